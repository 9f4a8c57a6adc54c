'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const { input } = require('./lib.js');
const { entry, cachePaths } = require('./store.js');

const key = input('key', { required: true });
const target = entry(key);
if (fs.existsSync(target.meta)) {
  console.log(`stand-in cache: ${key} is already stored, not saving`);
  process.exit(0);
}
const paths = cachePaths().filter((p) => fs.existsSync(p));
if (paths.length === 0) {
  console.log('::warning::stand-in cache: none of the paths exist, nothing saved');
  process.exit(0);
}
const tmp = `${target.tar}.tmp-${process.pid}`;
// A cached template's node_modules is hard-linked into other workspaces: a link made or removed
// elsewhere (another test, beside this one) changes a file's ctime, not its contents, and GNU tar
// then says "file changed as we read it" and exits 1. Only a status above 1 is a failure.
try {
  execFileSync('tar', ['--warning=no-file-changed', '-cPf', tmp, ...paths], { stdio: 'inherit' });
} catch (err) {
  if (err.status !== 1) throw err;
}
fs.renameSync(tmp, target.tar);
fs.writeFileSync(`${target.meta}.tmp`, JSON.stringify({ key, created: Date.now() }));
fs.renameSync(`${target.meta}.tmp`, target.meta);
console.log(`stand-in cache: saved ${paths.join(', ')} as ${key}`);
