'use strict';
const { fail } = require('./lib.js');

fail('stand-in create-github-app-token: no GitHub App can be reached offline (the example skips this step unless AVEROS_APP_CLIENT_ID is set)');
