// Test harness: the real core on an in-memory sql.js store with a hand-moved clock.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Baton, type BatonOptions } from '../../src/core/baton.js';
import { DEFAULT_RATE_LIMITS } from '../../src/core/broker/rateLimiter.js';
import { decodeTokenUnverified, signToken, type TokenPayload } from '../../src/core/broker/tokens.js';
import { silentLog, type Clock } from '../../src/core/ports.js';
import type { ModelOutput, NextStepResponse } from '../../src/core/types.js';
import { bundledContentDir } from '../../src/host/openBaton.js';
import { nodeCrypto, nodeFileSystem, randomIds } from '../../src/host/nodePorts.js';
import { fileSpecSource } from '../../src/host/specSourceFile.js';
import { openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';

/** A clock moved by hand. */
export class FakeClock implements Clock {
  constructor(public ms = Date.parse('2026-01-01T00:00:00.000Z')) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** The workspace folders this test process made: removed when it exits (a suite run made about a hundred). */
const workspaces: string[] = [];

/** A workspace folder with extra workflow YAML files under `.baton/workflows/`; removed when the process exits. */
export function makeWorkspace(workflows: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-ws-'));
  if (workspaces.push(dir) === 1) {
    process.once('exit', () => {
      for (const made of workspaces) rmSync(made, { recursive: true, force: true });
    });
  }
  mkdirSync(join(dir, '.baton', 'workflows'), { recursive: true });
  for (const [name, yaml] of Object.entries(workflows)) writeFileSync(join(dir, '.baton', 'workflows', `${name}.yaml`), yaml);
  return dir;
}

/** A Baton on a fresh in-memory store. */
export async function makeBaton(options: Partial<BatonOptions> & { workflows?: Record<string, string>; store?: SqlJsStore } = {}) {
  const clock = new FakeClock();
  const workspace = options.workspacePath ?? makeWorkspace(options.workflows);
  const store = options.store ?? (await openStore({ path: null }));
  const baton = await Baton.create(
    { store, clock, ids: randomIds, crypto: nodeCrypto, log: silentLog, fs: nodeFileSystem, specSource: fileSpecSource },
    {
      rateLimits: { ...DEFAULT_RATE_LIMITS, enabled: false },
      approvalWaitMs: 0,
      ...options,
      workspacePath: workspace,
      contentDirs: [bundledContentDir(), join(workspace, '.baton')],
    },
  );
  return { baton, clock, store, workspace };
}

/** A valid step output with one artifact. */
export function output(summary: string, artifactTitle = `${summary} artifact`, extra: Partial<ModelOutput> = {}): ModelOutput {
  return {
    summary,
    artifacts: [{ type: 'markdown', title: artifactTitle, content: `# ${artifactTitle}\n\nDetails of ${summary}.` }],
    references: ['src/app.ts'],
    confidence: 0.8,
    ...extra,
  };
}

/** Asserts an `ok` response and returns its step name and token. */
export function okStep(r: NextStepResponse): { step: string; token: string } {
  if (r.status !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(r, null, 2)}`);
  return { step: r.next_step_contract!.step_name, token: r.new_step_token! };
}

/** `token` with its payload changed by `fields` and its signature kept: what a client that alters a token sends. */
export function tamperedToken(token: string, fields: Partial<TokenPayload>): string {
  const [, sig] = token.split('.');
  const [body] = signToken(nodeCrypto, 'any secret', { ...(decodeTokenUnverified(token) as TokenPayload), ...fields }).split('.');
  return `${body}.${sig}`;
}

/** Starts a bug-fix run and submits each step until its gate; the gate's answer (status awaiting_approval, or thrown). */
export async function runToGate(baton: Baton, taskDescription?: string): Promise<NextStepResponse> {
  let r = await baton.nextStep({ template_name: 'bug-fix', ...(taskDescription === undefined ? {} : { task_description: taskDescription }) });
  while (r.status === 'ok') r = await baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: output(r.next_step_contract!.step_name) });
  if (r.status !== 'awaiting_approval') throw new Error(`expected the gate, got ${JSON.stringify(r, null, 2)}`);
  return r;
}

/** A workflow of one ungated step (`one`): a run of it finishes with one call after the claim. */
export const ONE_STEP_YAML = `name: one
description: One step
type: sequential
steps:
  - name: only
    agent: implementer
    description: Do it
`;

/** The spec's four-step ready-set example as a template. */
export const SPEC_EXAMPLE_YAML = `name: spec-example
description: The broker spec's ready-set example
type: hybrid
steps:
  - name: analyze-root-cause
    agent: debugger
    description: Analyze
  - name: implement-fix
    agent: implementer
    description: Implement
    dependencies: [analyze-root-cause]
  - name: design-refactor
    agent: architect
    description: Design
    dependencies: [analyze-root-cause]
  - name: review-code
    agent: reviewer
    description: Review
    dependencies: [implement-fix, design-refactor]
`;
