#!/usr/bin/env node
/*
 * averos-ci schematics driver: one long-lived Node process that loads
 * @angular-devkit/schematics once (from the workspace's own node_modules) and runs
 * many schematic invocations, so each plan node costs milliseconds instead of the
 * 1.4-2.1 s start-up of `ng generate`.
 *
 * Protocol: JSON lines. stdin carries requests, stdout carries only protocol replies
 * (anything a schematic prints goes to the request's log and to stderr).
 *   start   -> {"type":"ready","schematicsVersion":..,"node":..,"project":..}
 *              or {"type":"fatal","error":..}
 *   request <- {"id":1,"collection":"@wiforge/averos","schematic":"add-simple-member",
 *               "options":{...},"dryRun":false,"journal":"/abs/dir or null"}
 *   reply   -> {"type":"result","id":1,"ok":true,"changes":[{"kind":"create","path":"src/..."}],
 *               "log":["..."],"durationMs":12}
 *              or {"type":"result","id":1,"ok":false,"error":"...","log":[...],"changes":[...]}
 *   read    <- {"op":"read","id":2,"path":"src/app/model/x.ts","dryRun":false}
 *   reply   -> {"type":"read","id":2,"content":"..." or null}
 * The tree of a request is committed to disk before its reply is written. With a journal
 * directory, the original bytes of every file are saved there before it is first changed
 * (undo log, rolled back by the Python side if the process dies mid-commit).
 */
'use strict';

const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');
// Schematics must not write to the protocol stream: console output goes to the request's log.
const { reply: protocolWrite, requestLog, serve } = require('../../_jsonlines.js');

const rootArg = process.argv.indexOf('--root');
const root = path.resolve(rootArg > 0 ? process.argv[rootArg + 1] : process.cwd());


let devkit;
try {
  const req = createRequire(path.join(root, 'package.json'));
  devkit = {
    core: req('@angular-devkit/core'),
    node: req('@angular-devkit/core/node'),
    schematics: req('@angular-devkit/schematics'),
    tools: req('@angular-devkit/schematics/tools'),
    version: req('@angular-devkit/schematics/package.json').version,
  };
} catch (err) {
  protocolWrite({ type: 'fatal', error: `cannot load @angular-devkit/schematics from ${root}/node_modules: ${err.message}` });
  process.exit(3);
}

function readWorkspace() {
  const file = path.join(root, 'angular.json');
  const ws = JSON.parse(fs.readFileSync(file, 'utf8'));
  const names = Object.keys(ws.projects || {});
  const project = ws.defaultProject || names[0];
  return { ws, project };
}

// Same merge as the Angular CLI's getSchematicDefaults (workspace, then project level).
function schematicDefaults(ws, project, collection, schematic) {
  const result = {};
  const merge = (source) => {
    if (!source || typeof source !== 'object') return;
    Object.assign(result, source[`${collection}:${schematic}`]);
    if (source[collection] && typeof source[collection] === 'object') {
      Object.assign(result, source[collection][schematic]);
    }
  };
  merge(ws.schematics);
  if (project && ws.projects && ws.projects[project]) merge(ws.projects[project].schematics);
  return result;
}

// Undo journal: before the first change of a path in a request, save what it was.
function journalingHost(scoped, state) {
  const save = (p) => {
    if (!state.dir) return;
    const rel = String(p).replace(/^\/+/, '');
    if (state.seen.has(rel)) return;
    state.seen.add(rel);
    const abs = path.join(root, rel);
    const seq = 'd' + String(state.seq++).padStart(6, '0');
    const existed = fs.existsSync(abs) && fs.statSync(abs).isFile();
    if (existed) fs.copyFileSync(abs, path.join(state.dir, `${seq}.bak`));
    fs.writeFileSync(path.join(state.dir, `${seq}.json`), JSON.stringify({ path: rel, existed }));
  };
  const host = Object.create(scoped);
  host.write = (p, content) => { save(p); return scoped.write(p, content); };
  host.delete = (p) => { save(p); return scoped.delete(p); };
  host.rename = (from, to) => { save(from); save(to); return scoped.rename(from, to); };
  return host;
}

const journalState = { dir: null, seen: new Set(), seq: 0 };
const workflows = new Map();
const hosts = new Map(); // the workflows' hosts: the dry-run one holds an in-memory layer

function getWorkflow(dryRun) {
  if (workflows.has(dryRun)) return workflows.get(dryRun);
  const { core, node, schematics, tools } = devkit;
  const scoped = new core.virtualFs.ScopedHost(new node.NodeJsSyncHost(), core.normalize(root));
  // A dry run commits into an in-memory layer over the disk (CordHost): nothing is written,
  // yet later nodes of the same run see what earlier ones would have created.
  const host = dryRun ? new core.virtualFs.CordHost(scoped) : journalingHost(scoped, journalState);
  const workflow = new tools.NodeWorkflow(host, {
    root: core.normalize(root),
    force: false,
    dryRun: false,
    packageManager: 'npm',
    registry: new core.schema.CoreSchemaRegistry(schematics.formats.standardFormats),
    resolvePaths: [root, __dirname],
    schemaValidation: true,
    optionTransforms: [
      async (schematic, current) => {
        const { ws, project: p } = readWorkspace();
        const proj = typeof (current && current.project) === 'string' ? current.project : p;
        return { ...schematicDefaults(ws, proj, schematic.collection.name, schematic.name), ...current };
      },
    ],
  });
  workflow.registry.addPostTransform(core.schema.transforms.addUndefinedDefaults);
  workflow.registry.useXDeprecatedProvider((msg) => requestLog.get() && requestLog.get().push(`[warn] ${msg}`));
  // Without these the Averos schematics that chain others fail with
  // `Project "undefined" does not exist` (the Angular CLI registers the same providers).
  workflow.registry.addSmartDefaultProvider('projectName', () => readWorkspace().project);
  workflow.registry.addSmartDefaultProvider('workingDirectory', () => undefined);
  workflows.set(dryRun, workflow);
  hosts.set(dryRun, host);
  return workflow;
}

// Read a file as the schematics would see it (through the dry run's in-memory layer).
async function readFile(request) {
  const { core } = devkit;
  getWorkflow(Boolean(request.dryRun));
  const host = hosts.get(Boolean(request.dryRun));
  const p = core.normalize('/' + String(request.path).replace(/^\/+/, ''));
  try {
    const isFile = await host.isFile(p).toPromise();
    if (!isFile) return { type: 'read', id: request.id, content: null };
    const buffer = await host.read(p).toPromise();
    return { type: 'read', id: request.id, content: Buffer.from(buffer).toString('utf8') };
  } catch (err) {
    return { type: 'read', id: request.id, content: null };
  }
}

// The reporter runs before the commit: the disk still holds the old bytes.
function unchanged(rel, content) {
  try {
    return Boolean(content) && fs.readFileSync(path.join(root, rel)).equals(Buffer.from(content));
  } catch (err) {
    return false;
  }
}

async function run(request) {
  const started = Date.now();
  const log = [];
  const changes = [];
  const errors = [];
  requestLog.set(log);
  journalState.dir = request.dryRun ? null : request.journal || null;
  journalState.seen = new Set();
  journalState.seq = 0;
  if (journalState.dir) fs.mkdirSync(journalState.dir, { recursive: true });
  const { core } = devkit;
  const logger = new core.logging.Logger(request.schematic);
  logger.subscribe((entry) => log.push(`[${entry.level}] ${entry.message}`));
  const workflow = getWorkflow(Boolean(request.dryRun));
  const sub = workflow.reporter.subscribe((event) => {
    const p = String(event.path || '').replace(/^\/+/, '');
    if (event.kind === 'error') {
      const what = event.description === 'alreadyExist' ? 'already exists' : 'does not exist';
      errors.push(`${p} ${what}`);
    } else if (event.kind === 'rename') {
      changes.push({ kind: 'delete', path: p });
      changes.push({ kind: 'create', path: String(event.to).replace(/^\/+/, '') });
    } else {
      if (event.kind === 'update' && !request.dryRun && unchanged(p, event.content)) return;
      changes.push({ kind: event.kind, path: p });
      log.push(`${event.kind.toUpperCase()} ${p}`);
    }
  });
  try {
    await workflow
      .execute({
        collection: request.collection,
        schematic: request.schematic,
        options: request.options || {},
        allowPrivate: false,
        debug: false,
        logger,
      })
      .toPromise();
    return { type: 'result', id: request.id, ok: true, changes, log, durationMs: Date.now() - started };
  } catch (err) {
    const message = errors.length ? `${errors.join('; ')} (${err.message})` : String(err.message || err);
    return { type: 'result', id: request.id, ok: false, error: message, changes, log, durationMs: Date.now() - started };
  } finally {
    sub.unsubscribe();
    requestLog.set(null);
    journalState.dir = null;
  }
}

let project;
try {
  project = readWorkspace().project;
} catch (err) {
  protocolWrite({ type: 'fatal', error: `cannot read ${path.join(root, 'angular.json')}: ${err.message}` });
  process.exit(3);
}
protocolWrite({ type: 'ready', schematicsVersion: devkit.version, node: process.version, project });

// stdin closes when averos-ci exits or is killed: stop at once (no finishOnClose) rather than
// keep writing into a workspace that a resumed run is about to roll back.
serve(
  async (request) => protocolWrite(await (request.op === 'read' ? readFile(request) : run(request))),
  {
    badLine: (err) =>
      protocolWrite({ type: 'result', id: null, ok: false, error: `bad request: ${err.message}`, log: [], changes: [] }),
  },
);
