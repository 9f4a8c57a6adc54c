'use strict';
const fs = require('fs');
const path = require('path');
const { input, lines, fail } = require('./lib.js');

const root = process.env.ACT_STANDIN_ARTIFACT_DIR;
if (!root) fail('stand-in upload-artifact: ACT_STANDIN_ARTIFACT_DIR is not set');
const dest = path.join(root, input('name') || 'artifact');
const found = lines('path').map((p) => path.resolve(process.env.GITHUB_WORKSPACE || '.', p)).filter((p) => fs.existsSync(p));
if (found.length === 0) {
  const mode = input('if-no-files-found') || 'warn';
  if (mode === 'error') fail('stand-in upload-artifact: no files found');
  if (mode === 'warn') console.log('::warning::stand-in upload-artifact: no files found');
  process.exit(0);
}
fs.mkdirSync(dest, { recursive: true });
for (const p of found) fs.cpSync(p, path.join(dest, path.basename(p)), { recursive: true });
console.log(`stand-in upload-artifact: ${found.length} path(s) copied to ${dest}`);
