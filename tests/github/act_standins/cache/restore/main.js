'use strict';
// actions/cache/restore: the cache stand-in's restore, with no post step (nothing is saved).
require('../restore.js');
