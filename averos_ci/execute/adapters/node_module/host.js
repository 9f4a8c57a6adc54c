#!/usr/bin/env node
/*
 * averos-ci Node-module host: one long-lived Node process that loads a user's adapter
 * module (an Averos ExecutionAdapter written in JavaScript or compiled TypeScript) and
 * calls its methods for the Python side.
 *
 * Protocol: JSON lines. stdin carries requests, stdout carries only protocol replies
 * (anything the module prints goes to stderr and to the request's log).
 *   start   -> {"type":"ready","node":"v20..","methods":["execute","open",...]}
 *              or {"type":"fatal","error":"..."}
 *   request <- {"id":1,"op":"call","method":"execute","args":[node, context, state]}
 *   reply   -> {"type":"result","id":1,"ok":true,"value":<returned value>,"log":[...]}
 *              or {"type":"result","id":1,"ok":false,"missing":true}   (optional method absent)
 *              or {"type":"result","id":1,"ok":false,"error":{"name","message","stack"},"log":[...]}
 *   exit    <- {"op":"exit"}
 * Requests are handled one at a time, in order. The host keeps ``state.results`` itself
 * (one entry per successful execute), so each request carries only the new node.
 */
'use strict';

const path = require('path');
const util = require('util');
const { pathToFileURL } = require('url');
// The module must not write to the protocol stream: console output goes to stderr and to
// the current request's log.
const { reply: protocolWrite, requestLog, serve } = require('../_jsonlines.js');

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const modulePath = path.resolve(arg('--module') || '');
const exportName = arg('--export') || 'default';


function describeError(err) {
  if (err instanceof Error) {
    return { name: err.name, message: err.message, stack: err.stack || '' };
  }
  return { name: typeof err, message: typeof err === 'string' ? err : util.inspect(err), stack: '' };
}

async function loadAdapter() {
  const ns = await import(pathToFileURL(modulePath).href);
  let target = ns[exportName];
  // A CommonJS module compiled from `export default` has its exports under `default` twice.
  if (target && typeof target === 'object' && target.__esModule && exportName in target) {
    target = target[exportName];
  }
  if (target === undefined) {
    const names = Object.keys(ns).join(', ') || '(none)';
    throw new Error(`${modulePath} has no export named "${exportName}" (exports: ${names})`);
  }
  if (typeof target === 'function') {
    // A class implementing ExecutionAdapter (or a factory function returning an adapter).
    const isClass = /^class[\s{]/.test(Function.prototype.toString.call(target)) ||
      (target.prototype && typeof target.prototype.execute === 'function');
    target = isClass ? new target() : await target();
  }
  if (!target || typeof target.execute !== 'function') {
    throw new Error(
      `export "${exportName}" of ${modulePath} is not an ExecutionAdapter: it needs an execute(node, context, state) method`,
    );
  }
  return target;
}

async function main() {
  let adapter;
  try {
    adapter = await loadAdapter();
  } catch (err) {
    const { name, message, stack } = describeError(err);
    protocolWrite({ type: 'fatal', error: `${name}: ${message}`, stack });
    process.exit(3);
  }
  const methods = ['preflight', 'open', 'execute', 'close'].filter(
    (m) => typeof adapter[m] === 'function',
  );
  const results = {};
  protocolWrite({ type: 'ready', node: process.version, methods });

  // Lines that are not JSON are ignored; at the end of stdin the requests read are answered.
  serve(
    async (request) => {
      const { id, method } = request;
      const args = Array.isArray(request.args) ? request.args : [];
      if (typeof adapter[method] !== 'function') {
        protocolWrite({ type: 'result', id, ok: false, missing: true, log: [] });
        return;
      }
      const log = [];
      requestLog.set(log);
      try {
        if (method === 'execute' && args[2]) {
          args[2].results = results; // Averos's ExecutionState: cwd + results of earlier nodes
        }
        const value = await adapter[method](...args);
        if (method === 'execute' && value && value.success === true && args[0]) {
          results[args[0].id] = value;
        }
        protocolWrite({ type: 'result', id, ok: true, value: value === undefined ? null : value, log });
      } catch (err) {
        protocolWrite({ type: 'result', id, ok: false, error: describeError(err), log });
      } finally {
        requestLog.set(null);
      }
    },
    { finishOnClose: true },
  );
}

process.on('unhandledRejection', (reason) => {
  process.stderr.write(`unhandled promise rejection: ${util.inspect(reason)}\n`);
});

main();
