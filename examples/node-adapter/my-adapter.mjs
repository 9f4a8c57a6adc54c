// An Averos ExecutionAdapter in plain JavaScript, run by averos-ci's "node-module" adapter.
//
// It realizes each plan node by writing a JSON file under <workspaceRoot>/generated/, so a
// run is easy to inspect. Two knobs, for demos and tests: AVEROS_EXAMPLE_FAIL names a node
// id to fail, AVEROS_EXAMPLE_DELAY_MS slows every node down.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export default class MyAdapter {
  // Optional: check what the adapter needs before anything is written.
  async preflight(context) {
    if (!context.workspaceRoot) throw new Error('no workspaceRoot in the context');
  }

  // Optional: called once before the first node.
  async open(context) {
    this.opened = new Date().toISOString();
  }

  // Required: realize one node. Return (a promise of) {success, durationMs, failure?, runtimeMutation?}.
  async execute(node, context, state) {
    const started = Date.now();
    const delay = Number(process.env.AVEROS_EXAMPLE_DELAY_MS || 0);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    if (node.id === process.env.AVEROS_EXAMPLE_FAIL) {
      return {
        success: false,
        durationMs: Date.now() - started,
        failure: { nodeId: node.id, message: `refusing ${node.id} (AVEROS_EXAMPLE_FAIL)` },
      };
    }
    const file = path.join('generated', `${node.id.replace(/[^A-Za-z0-9_.-]+/g, '_')}.json`);
    if (!context.dryRun) {
      await mkdir(path.join(state.cwd, 'generated'), { recursive: true });
      const body = { id: node.id, command: node.command, action: node.action, args: node.args };
      await writeFile(path.join(state.cwd, file), JSON.stringify(body, null, 2) + '\n');
    }
    console.log(`${context.dryRun ? 'would write' : 'wrote'} ${file}`);
    return {
      success: true,
      durationMs: Date.now() - started,
      runtimeMutation: context.dryRun ? undefined : { created: [file] },
    };
  }

  // Optional: called once after the run, also after failures and interruptions.
  async close() {}
}
