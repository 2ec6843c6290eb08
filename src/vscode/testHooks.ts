// `baton.test.state` (hidden from the palette): what end-to-end tests read from the running extension.
import type { ExecutionSummary } from '../core/api.js';
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

/** Reports the extension's state (waiting for Baton to be ready, or its failure). */
export async function testState(s: Services): Promise<TestState> {
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
