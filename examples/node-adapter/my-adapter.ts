// The same adapter in TypeScript. Compile with `tsc -p .` (see tsconfig.json): the result,
// dist/my-adapter.js, is what averos.ts.config.json names.
import { promises as fs } from 'fs';
import * as path from 'path';

// Averos's adapter contract, as its documentation shows it.
export interface ExecutionNode {
  id: string;
  phase: string;
  command: string;
  runner: string;
  action: 'create' | 'update' | 'skip';
  args: Record<string, unknown>;
  dependsOn: string[];
}
export interface ExecutionContext {
  dryRun: boolean;
  workspaceRoot: string;
  logsDir: string;
  attempt: number;
  runId: string;
}
export interface ExecutionState {
  cwd: string;
  results: Record<string, ExecutionResult>;
}
export interface ExecutionFailure {
  nodeId?: string;
  message: string;
  exitCode?: number;
  code?: string;
  retryable?: boolean;
}
export interface ExecutionResult {
  success: boolean;
  durationMs: number;
  failure?: ExecutionFailure;
  runtimeMutation?: { created?: string[]; updated?: string[]; deleted?: string[] };
}
export interface ExecutionAdapter {
  preflight?(context: ExecutionContext): Promise<void> | void;
  open?(context: ExecutionContext): Promise<void> | void;
  execute(
    node: ExecutionNode,
    context: ExecutionContext,
    state: ExecutionState,
  ): Promise<ExecutionResult> | ExecutionResult;
  close?(): Promise<void> | void;
}

export default class MyAdapter implements ExecutionAdapter {
  async execute(
    node: ExecutionNode,
    context: ExecutionContext,
    state: ExecutionState,
  ): Promise<ExecutionResult> {
    const started = Date.now();
    if (node.id === process.env.AVEROS_EXAMPLE_FAIL) {
      return {
        success: false,
        durationMs: Date.now() - started,
        failure: { nodeId: node.id, message: `refusing ${node.id} (AVEROS_EXAMPLE_FAIL)` },
      };
    }
    const file = path.join('generated', `${node.id.replace(/[^A-Za-z0-9_.-]+/g, '_')}.json`);
    if (!context.dryRun) {
      await fs.mkdir(path.join(state.cwd, 'generated'), { recursive: true });
      const body = { id: node.id, command: node.command, action: node.action, args: node.args };
      await fs.writeFile(path.join(state.cwd, file), JSON.stringify(body, null, 2) + '\n');
    }
    console.log(`${context.dryRun ? 'would write' : 'wrote'} ${file}`);
    return {
      success: true,
      durationMs: Date.now() - started,
      runtimeMutation: context.dryRun ? undefined : { created: [file] },
    };
  }
}
