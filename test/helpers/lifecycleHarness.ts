// Test harness for the lifecycle and content tools: the real core (in memory or on a durable temp file) behind a
// real MCP Client over InMemoryTransport, with a hand-moved clock and a log that remembers what it was told.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Baton, type BatonOptions } from '../../src/core/baton.js';
import { DEFAULT_RATE_LIMITS } from '../../src/core/broker/rateLimiter.js';
import type { Log } from '../../src/core/ports.js';
import { bundledContentDir } from '../../src/host/openBaton.js';
import { nodeCrypto, nodeFileSystem, randomIds } from '../../src/host/nodePorts.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import type { ToolGroup } from '../../src/mcp/toolGroups.js';
import { openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import { FakeClock } from './coreHarness.js';

/** A log that keeps every line. */
export class MemoryLog implements Log {
  readonly lines: Array<{ level: string; message: string }> = [];
  debug(message: string) { this.lines.push({ level: 'debug', message }); }
  info(message: string) { this.lines.push({ level: 'info', message }); }
  warn(message: string) { this.lines.push({ level: 'warn', message }); }
  error(message: string) { this.lines.push({ level: 'error', message }); }
}

/** A tool call's outcome. */
export interface Called {
  isError: boolean;
  text: string;
  sc: any;
  /** The result's `_meta` (a refusal's errorCode and errorDetails). */
  meta: Record<string, unknown> | undefined;
}

/** What `openLifecycle` returns. */
export interface LifecycleRig {
  baton: Baton;
  store: SqlJsStore;
  clock: FakeClock;
  log: MemoryLog;
  client: Client;
  workspace: string;
  call(name: string, args?: Record<string, unknown>): Promise<Called>;
  /** Calls and fails the test if the tool answered with an error. */
  ok(name: string, args?: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

/** A workspace folder with `.baton/` files (paths relative to `.baton`). */
export function makeLifecycleWorkspace(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-lc-'));
  mkdirSync(join(dir, '.baton'), { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, '.baton', rel, '..'), { recursive: true });
    writeFileSync(join(dir, '.baton', rel), text);
  }
  return dir;
}

/** Opens the core and a connected client. `dbPath` null → in memory. */
export async function openLifecycle(o: {
  dbPath?: string | null; workspace?: string; files?: Record<string, string>; bundled?: string; clock?: FakeClock;
  options?: Partial<BatonOptions>; groups?: ToolGroup[];
} = {}): Promise<LifecycleRig> {
  const clock = o.clock ?? new FakeClock();
  const log = new MemoryLog();
  const workspace = o.workspace ?? makeLifecycleWorkspace(o.files);
  const store = await openStore({ path: o.dbPath ?? null, durability: 'write', idleCheckpointMs: 60_000 });
  const baton = await Baton.create(
    { store, clock, ids: randomIds, crypto: nodeCrypto, log, fs: nodeFileSystem },
    {
      rateLimits: { ...DEFAULT_RATE_LIMITS, enabled: false }, approvalWaitMs: 0, ...o.options,
      workspacePath: workspace, contentDirs: [o.bundled ?? bundledContentDir(), join(workspace, '.baton')],
    },
  );
  const server = createMcpServer(baton, { toolGroups: o.groups ?? ['broker', 'lifecycle', 'content'], version: 't', log });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'lifecycle-test', version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Called> => {
    const res = await client.callTool({ name, arguments: args });
    const text = (res.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('\n');
    return { isError: res.isError === true, text, sc: res.structuredContent, meta: res._meta };
  };
  return {
    baton, store, clock, log, client, workspace, call,
    ok: async (name, args) => {
      const r = await call(name, args);
      if (r.isError) throw new Error(`${name} failed: ${r.text}`);
      return r.sc;
    },
    close: async () => {
      await client.close();
      await baton.close();
      await store.close();
    },
  };
}

/** A valid StepOutput. */
export const STEP_OUTPUT = { summary: 'Analysis complete', artifacts: [], findings: [], confidence: 0.95 };
/** A valid WorkflowOutput. */
export const WORKFLOW_OUTPUT = { summary: 'Feature development complete', workflow: { name: 'bug-fix' }, steps: [], artifacts: [], findings: [], confidence: 0.92 };
