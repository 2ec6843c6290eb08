// Spec workflow benchmark on a 200-task tasks.md (10 phases × 20 tasks, the spec's format): parse, first render of a
// phase and of a task (cold cache), cached render, the whole phase step result, and the memory one execution holds
// (its parsed snapshot and every phase and task rendered) against the targets: first render ≤ 10 ms, cached ≤ 0.1 ms,
// ≤ 5 MB per execution. Prints one JSON object. Run: node --import tsx bench/spec.bench.ts
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Baton } from '../src/core/baton.js';
import { DEFAULT_RATE_LIMITS } from '../src/core/broker/rateLimiter.js';
import { silentLog } from '../src/core/ports.js';
import { renderPhase, renderTask, SpecContentCache } from '../src/core/specs/render.js';
import { parseSource } from '../src/core/specs/sourceParser.js';
import { SPEC_PARSERS } from '../src/core/specs/specWorkflows.js';
import { bundledContentDir } from '../src/host/openBaton.js';
import { nodeCrypto, nodeFileSystem, randomIds, systemClock } from '../src/host/nodePorts.js';
import { fileSpecSource } from '../src/host/specSourceFile.js';
import { openStore } from '../src/store/sqlJsStore.js';
import { readFileSync } from 'node:fs';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const PHASES = 10;
const PER_PHASE = 20;

/** A realistic 200-task tasks.md in the spec's format. */
function bigSpec(): string {
  const parts = ['# Platform rewrite — tasks\n'];
  for (let p = 1; p <= PHASES; p++) {
    parts.push(`\n### Phase ${p}: Module ${p} of the platform\n**Goal:** Move module ${p} to the new service boundaries without downtime.\n**Estimated Duration:** 2 days\n\n**Tasks:**\n`);
    for (let t = 1; t <= PER_PHASE; t++) {
      parts.push(
        `- [ ] **Task ${p}.${t}**: Port handler ${t} of module ${p} to the new API\n` +
        `  - **Estimated Time**: ${1 + (t % 4)} hours\n` +
        `  - **Dependencies**: ${t === 1 ? 'None' : `Task ${p}.${t - 1}`}\n` +
        `  - Keep the old route answering until the new one is verified in staging.\n` +
        `  - **Acceptance Criteria**:\n` +
        `    - [ ] Handler ${t} answers the same payloads as before (contract test)\n` +
        `    - [ ] p95 latency under 50 ms in the load test\n` +
        `    - [ ] Errors are logged with the request id\n`,
      );
    }
    parts.push(`\n**Validation Gate:**\n- [ ] Contract tests for module ${p} pass\n- [ ] Load test p95 under 50 ms\n- [ ] No new warnings in the logs\n`);
  }
  return parts.join('');
}

function stats(samples: number[]): { p50: number; p95: number; max: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(s.length * q))]!;
  return { p50: +at(0.5).toFixed(4), p95: +at(0.95).toFixed(4), max: +s.at(-1)!.toFixed(4) };
}

async function main(): Promise<void> {
  const text = bigSpec();
  const template = readFileSync(join(bundledContentDir(), 'spec-templates', 'phase-template.md'), 'utf8');
  const taskTemplate = readFileSync(join(bundledContentDir(), 'spec-templates', 'task-template.md'), 'utf8');
  const ctx = { source: 'specs/platform/tasks.md', totalPhases: PHASES + 1 };

  // ---- parse ----
  const parseMs: number[] = [];
  let parsed = parseSource(SPEC_PARSERS, 'auto', text, 'tasks.md');
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    parsed = parseSource(SPEC_PARSERS, 'auto', text, 'tasks.md');
    parseMs.push(performance.now() - t0);
  }

  // ---- first render (cold cache) and cached ----
  const firstPhase: number[] = [];
  const firstTask: number[] = [];
  const cachedPhase: number[] = [];
  const cachedTask: number[] = [];
  for (let round = 0; round < 50; round++) {
    const cache = new SpecContentCache();
    const id = `exec-${round}`;
    const p = 1 + (round % PHASES);
    const phase = parsed.phases[p - 1]!;
    let t0 = performance.now();
    cache.phase(id, p, () => renderPhase(template, phase, ctx));
    firstPhase.push(performance.now() - t0);
    t0 = performance.now();
    cache.task(id, p, 7, () => renderTask(taskTemplate, phase, phase.tasks[6]!, ctx));
    firstTask.push(performance.now() - t0);
    for (let k = 0; k < 20; k++) {
      t0 = performance.now();
      cache.phase(id, p, () => { throw new Error('miss'); });
      cachedPhase.push(performance.now() - t0);
      t0 = performance.now();
      cache.task(id, p, 7, () => { throw new Error('miss'); });
      cachedTask.push(performance.now() - t0);
    }
  }

  // ---- the whole thing on the real core: start (read + parse + snapshot), each phase's step result ----
  const workspace = mkdtempSync(join(tmpdir(), 'baton-bench-spec-'));
  writeFileSync(join(workspace, 'tasks.md'), text);
  const store = await openStore({ path: null });
  const baton = await Baton.create(
    { store, clock: systemClock, ids: randomIds, crypto: nodeCrypto, log: silentLog, fs: nodeFileSystem, specSource: fileSpecSource },
    { workspacePath: workspace, contentDirs: [bundledContentDir(), join(workspace, '.baton')], rateLimits: { ...DEFAULT_RATE_LIMITS, enabled: false } },
  );
  const out = { summary: 'done', artifacts: [], references: [], confidence: 1 };
  const startMs: number[] = [];
  const phaseResultMs: number[] = [];
  for (let i = 0; i < 5; i++) {
    let t0 = performance.now();
    let r = await baton.nextStep({ template_name: 'spec_execution_v1', source: 'tasks.md' });
    startMs.push(performance.now() - t0);
    for (let p = 0; p <= 2; p++) {
      const evidence = r.context!.spec!.validation_gate.map(() => 'ok');
      t0 = performance.now();
      r = await baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: out, evidence });
      phaseResultMs.push(performance.now() - t0);
    }
  }

  // ---- memory per execution: snapshot + every phase and task rendered and cached ----
  const K = 20;
  gc();
  const before = process.memoryUsage().heapUsed;
  const ids: string[] = [];
  for (let i = 0; i < K; i++) {
    const s = await baton.specs.start({ source: 'tasks.md' });
    ids.push(s.session_id);
    for (let p = 1; p <= PHASES; p++) {
      baton.specs.specRepo.get(s.session_id);
      for (let t = 1; t <= PER_PHASE; t++) baton.specs.cache.task(s.session_id, p, t, () => renderTask(taskTemplate, parsed.phases[p - 1]!, parsed.phases[p - 1]!.tasks[t - 1]!, ctx));
      baton.specs.cache.phase(s.session_id, p, () => renderPhase(template, parsed.phases[p - 1]!, ctx));
    }
  }
  gc();
  const heapPerExecution = (process.memoryUsage().heapUsed - before) / K;
  const dbBytes = store.get<{ n: number }>('SELECT SUM(length(source_text) + length(parsed) + length(phase_template) + length(task_template)) / COUNT(*) AS n FROM spec_sources')!.n;
  const rendered = ids.length;
  for (const id of ids) baton.specs.cache.drop(id);

  await baton.close();
  await store.close();
  rmSync(workspace, { recursive: true, force: true });

  const first = stats(firstPhase);
  const cached = stats(cachedPhase);
  const result = {
    tasks: PHASES * PER_PHASE, phases: PHASES, source_bytes: Buffer.byteLength(text),
    parse_ms: stats(parseMs),
    first_render_phase_ms: first, first_render_task_ms: stats(firstTask),
    cached_render_phase_ms: cached, cached_render_task_ms: stats(cachedTask),
    start_workflow_ms: stats(startMs), submit_and_next_phase_result_ms: stats(phaseResultMs),
    heap_bytes_per_execution_all_rendered: Math.round(heapPerExecution), executions_measured: rendered,
    db_snapshot_bytes_per_execution: dbBytes,
    targets: { first_render_ms: 10, cached_ms: 0.1, bytes_per_execution: 5 * 1024 * 1024 },
    meets_targets: {
      first_render: first.p95 <= 10 && stats(firstTask).p95 <= 10,
      cached: cached.p95 <= 0.1 && stats(cachedTask).p95 <= 0.1,
      memory: heapPerExecution <= 5 * 1024 * 1024,
    },
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

void main().catch((ex: unknown) => {
  process.stderr.write(`${ex instanceof Error ? ex.stack : String(ex)}\n`);
  process.exit(1);
});
