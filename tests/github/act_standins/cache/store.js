'use strict';
// Entries: <store>/<sha256(key)>.tar plus <sha256(key)>.json ({key, created}).
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { lines } = require('./lib.js');

function store() {
  // Unset: the runner's own $HOME (each act test has its own), as a fresh runner's empty cache.
  const dir = process.env.ACT_STANDIN_CACHE_DIR || path.join(os.homedir(), '.act-standin-cache');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

function entry(key) {
  const id = crypto.createHash('sha256').update(key).digest('hex');
  return { tar: path.join(store(), `${id}.tar`), meta: path.join(store(), `${id}.json`) };
}

function entries() {
  return fs.readdirSync(store()).filter((n) => n.endsWith('.json'))
    .map((n) => JSON.parse(fs.readFileSync(path.join(store(), n), 'utf8')))
    .sort((a, b) => b.created - a.created);
}

// Absolute paths, as actions/cache resolves them: ~ is $HOME, relative is the workspace.
function cachePaths() {
  return lines('path').map((p) => {
    if (p === '~' || p.startsWith('~/')) return path.join(os.homedir(), p.slice(1));
    return path.resolve(process.env.GITHUB_WORKSPACE || '.', p);
  });
}

module.exports = { entry, entries, cachePaths };
