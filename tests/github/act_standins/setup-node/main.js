'use strict';
const path = require('path');
const { input, setOutput, addPath, fail, satisfies } = require('./lib.js');

const wanted = input('node-version');
const version = process.versions.node;
if (wanted && !satisfies(version, wanted)) {
  fail(`stand-in setup-node: the host's Node.js is ${version}, the workflow asks for ${wanted} (install it on the host)`);
}
addPath(path.dirname(process.execPath));
setOutput('node-version', `v${version}`);
console.log(`stand-in setup-node: Node.js v${version} at ${process.execPath}`);
