/*
 * The Node side of _jsonlines.py, shared by angular/driver/driver.js and node_module/host.js.
 *
 * stdout carries only protocol replies, one JSON object a line: once this module is loaded,
 * console output (and any write to stdout) goes to stderr and to the current request's log.
 * Requests come on stdin, one JSON object a line, and are handled one at a time, in order,
 * until {"op":"exit"} or the end of stdin.
 */
'use strict';

const fs = require('fs');
const readline = require('readline');
const util = require('util');

const reply = (obj) => fs.writeSync(1, JSON.stringify(obj) + '\n');

// The log of the request being handled, or null between requests.
let currentLog = null;
const capture = (level) => (...args) => {
  const line = args.map((a) => (typeof a === 'string' ? a : util.inspect(a))).join(' ');
  if (currentLog) currentLog.push(`[${level}] ${line}`);
  process.stderr.write(line + '\n');
};
console.log = capture('info');
console.info = capture('info');
console.warn = capture('warn');
console.error = capture('error');
console.debug = capture('debug');
process.stdout.write = (chunk, encoding, cb) => process.stderr.write(chunk, encoding, cb);

const requestLog = {
  get: () => currentLog,
  set: (log) => {
    currentLog = log;
  },
};

/*
 * handle(request) answers one request (with reply()). badLine(err) is called for a line that
 * is not JSON. At the end of stdin the process exits at once, or with finishOnClose only after
 * the requests already read are answered.
 */
function serve(handle, { badLine = () => {}, finishOnClose = false } = {}) {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  let chain = Promise.resolve();
  rl.on('line', (line) => {
    if (!line.trim()) return;
    chain = chain.then(async () => {
      let request;
      try {
        request = JSON.parse(line);
      } catch (err) {
        badLine(err);
        return;
      }
      if (request.op === 'exit') process.exit(0);
      await handle(request);
    });
  });
  rl.on('close', () => {
    if (finishOnClose) chain.then(() => process.exit(0));
    else process.exit(0);
  });
}

module.exports = { reply, requestLog, serve };
