// Test hooks: `baton.test.state`, what the end-to-end tests read from the running extension. It hands out the endpoint's
// bearer token and the held step tokens, so it exists only in an extension host started with BATON_TEST_HOOKS=1 (the
// e2e harness sets it for the editors it starts); it is not in package.json, and without the variable nothing registers it.
import * as vscode from 'vscode';
import type { ExecutionSummary } from '../core/api.js';
import { TEST_HOOKS_ENV, TEST_STATE_COMMAND, testHooksRequested } from './commandIds.js';
import type { HeldStep } from './heldSteps.js';
import type { Services } from './services.js';

/** The state the e2e tests read. */
export interface TestState {
  mode: 'owner' | 'client';
  state: string;
  endpoint: { url: string; token: string };
  dbPath: string;
  activationMs: number;
  firstRenderMs: number | null;
  /** The URL last handed to the editor's MCP registry (null until the editor asked); the registry applies it shortly after. */
  mcpProvidedUrl: string | null;
  executions: ExecutionSummary[];
  /** Steps the editor claimed (Start Workflow claims the first step); their tokens let a test client take them over. */
  heldSteps: HeldStep[];
}

/** Registers the test hooks when the environment asks for them; otherwise registers nothing and returns undefined. */
export function registerTestHooks(s: Services, env: Record<string, string | undefined> = process.env): vscode.Disposable | undefined {
  if (!testHooksRequested(env)) return undefined;
  s.log.warn(`Baton: test hooks registered (${TEST_HOOKS_ENV}=1): ${TEST_STATE_COMMAND} hands out the endpoint token`);
  return vscode.commands.registerCommand(TEST_STATE_COMMAND, () => testState(s));
}

/** Reports the extension's state (waiting for Baton to be ready, or its failure). */
async function testState(s: Services): Promise<TestState> {
  const c = s.connection;
  const executions = await c.ready().then(() => c.listExecutions({ limit: 200 }), () => []);
  return {
    mode: c.mode,
    state: c.state,
    endpoint: c.endpoint(),
    dbPath: c.dbPath,
    activationMs: s.timings.activationMs,
    firstRenderMs: s.timings.firstRenderMs,
    mcpProvidedUrl: s.timings.mcpProvidedUrl,
    executions,
    heldSteps: s.held.all(),
  };
}
