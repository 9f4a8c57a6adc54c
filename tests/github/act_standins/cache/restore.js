'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const { input, lines, setOutput } = require('./lib.js');
const { entry, entries } = require('./store.js');

const key = input('key', { required: true });
setOutput('cache-primary-key', key);
let matched = fs.existsSync(entry(key).meta) ? key : null;
if (!matched) {
  const all = entries();
  for (const prefix of lines('restore-keys')) {
    const found = all.find((e) => e.key.startsWith(prefix));
    if (found) { matched = found.key; break; }
  }
}
if (!matched) {
  setOutput('cache-hit', 'false');
  console.log(`stand-in cache: no entry for key ${key}`);
  process.exit(0);
}
execFileSync('tar', ['-xPf', entry(matched).tar], { stdio: 'inherit' });
setOutput('cache-hit', String(matched === key));
setOutput('cache-matched-key', matched);
console.log(`stand-in cache: restored ${matched}${matched === key ? ' (exact key)' : ' (restore-keys)'}`);
