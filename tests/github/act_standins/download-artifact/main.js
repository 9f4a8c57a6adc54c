'use strict';
const fs = require('fs');
const path = require('path');
const { input, fail } = require('./lib.js');

const root = process.env.ACT_STANDIN_ARTIFACT_DIR;
if (!root) fail('stand-in download-artifact: ACT_STANDIN_ARTIFACT_DIR is not set');
const name = input('name');
if (!name) fail('stand-in download-artifact: a name is required (one artifact at a time)');
const source = path.join(root, name);
// as actions/download-artifact: a missing artifact fails the step
if (!fs.existsSync(source)) fail(`stand-in download-artifact: no artifact named ${name}`);
const dest = path.resolve(process.env.GITHUB_WORKSPACE || '.', input('path') || '.');
fs.mkdirSync(dest, { recursive: true });
for (const entry of fs.readdirSync(source)) {
  fs.cpSync(path.join(source, entry), path.join(dest, entry), { recursive: true });
}
console.log(`stand-in download-artifact: ${name} copied to ${dest}`);
