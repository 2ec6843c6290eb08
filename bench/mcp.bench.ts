// workflow_next_step create/continue latency in process (InMemoryTransport, real core, durable temp DB) and over
// stdio (dist/cli.js mcp), plus current-step:// read latency; prints one JSON object.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { silentLog } from '../src/core/ports.js';
import { openBaton } from '../src/host/openBaton.js';
import { createMcpServer } from '../src/mcp/createMcpServer.js';
import { FakeBaton } from '../test/fixtures/mcp/fakeBaton.js';
import { stats } from './benchKit.js';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const STEPS = Number(process.env.BENCH_STEPS ?? 400);
const CREATES = Number(process.env.BENCH_CREATES ?? 200);
const READS = Number(process.env.BENCH_READS ?? 1000);
const TEMPLATE = 'bench-long';
const SHORT = 'bench-short';
const OUTPUT = { summary: 'done', artifacts: [], references: [], confidence: 0.9 };
/** What a real step hands in: a summary and a 1 KB markdown artifact. */
const REAL_OUTPUT = {
  summary: 'Found the cause and wrote it up.',
  artifacts: [{ type: 'markdown', title: 'Notes', content: `# Notes\n\n${'The session cookie is dropped when the proxy rewrites the path. '.repeat(16)}` }],
  references: ['src/auth/session.ts'],
  confidence: 0.9,
};
/** Steps of the realistic template (a bug-fix-sized workflow) and how many of its executions are timed. */
const SHORT_STEPS = 8;
const EXECUTIONS = Number(process.env.BENCH_EXECUTIONS ?? 60);

/** A sequential template of `count` tiny steps. */
function templateYaml(name: string, count: number): string {
  const steps = Array.from({ length: count }, (_, i) => {
    const name = `s${String(i).padStart(4, '0')}`;
    const dep = i === 0 ? '[]' : `[s${String(i - 1).padStart(4, '0')}]`;
    return `  - name: ${name}\n    agent: implementer\n    description: Step ${i}.\n    dependencies: ${dep}\n    allowed_actions: [Edit files]\n    required_output_format: A summary.\n    human_gate: false\n`;
  });
  return `name: ${name}\ndescription: Synthetic benchmark workflow\ntype: sequential\ntags: [bench]\nsteps:\n${steps.join('')}`;
}

/** A workspace with a bug-fix-sized template (create, continue) and a very long one (for the step-count cost). */
function writeWorkspace(dir: string): string {
  const ws = join(dir, 'ws');
  mkdirSync(join(ws, '.baton', 'workflows'), { recursive: true });
  writeFileSync(join(ws, '.baton', 'workflows', `${TEMPLATE}.yaml`), templateYaml(TEMPLATE, STEPS));
  writeFileSync(join(ws, '.baton', 'workflows', `${SHORT}.yaml`), templateYaml(SHORT, SHORT_STEPS));
  return ws;
}

type Sc = { status: string; new_step_token?: string; task_id?: string };

/** Measures create and continue through `client`. */
async function measureBroker(client: Client) {
  const call = async (args: Record<string, unknown>) => {
    const t0 = performance.now();
    const res = await client.callTool({ name: 'workflow_next_step', arguments: args });
    const ms = performance.now() - t0;
    const sc = res.structuredContent as Sc;
    if (sc.status !== 'ok' && sc.status !== 'task_closed') throw new Error(`unexpected ${JSON.stringify(res).slice(0, 400)}`);
    return { ms, sc };
  };
  for (let i = 0; i < 10; i++) await call({ template_name: SHORT }); // warm-up
  const create: number[] = [];
  for (let i = 0; i < CREATES; i++) create.push((await call({ template_name: SHORT })).ms);
  const createLong: number[] = [];
  for (let i = 0; i < 20; i++) createLong.push((await call({ template_name: TEMPLATE })).ms);
  // The headline figure: every continue of many runs of a bug-fix-sized workflow, each step with an artifact.
  const cont: number[] = [];
  let taskId = '';
  for (let e = 0; e < EXECUTIONS + 5; e++) {
    let { sc } = await call({ template_name: SHORT });
    const last = e === EXECUTIONS + 4;
    for (let i = 0; i < SHORT_STEPS - (last ? 4 : 0); i++) {
      const r = await call({ step_token: sc.new_step_token, model_output_so_far: REAL_OUTPUT });
      if (e >= 5) cont.push(r.ms); // the first runs are warm-up
      sc = r.sc;
    }
    if (last) taskId = sc.task_id!; // left mid-way: the resource read sees a live execution
  }
  // The cost with a very long workflow (the ready set grows with the step count), for information.
  let { sc } = await call({ template_name: TEMPLATE });
  const contLong: number[] = [];
  for (let i = 0; i < STEPS - 2; i++) {
    const r = await call({ step_token: sc.new_step_token, model_output_so_far: OUTPUT });
    if (i >= 10) contLong.push(r.ms);
    sc = r.sc;
  }
  return { create: stats(create), continue: stats(cont), [`create_${STEPS}_steps`]: stats(createLong), [`continue_${STEPS}_steps`]: stats(contLong), taskId };
}

async function inProcess(dir: string, ws: string) {
  const opened = await openBaton({ dbPath: join(dir, 'inproc', 'baton.db'), workspace: ws, rateLimits: false, log: silentLog });
  const server = createMcpServer(opened.baton, { toolGroups: ['broker'], version: 'bench', log: silentLog });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench', version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  const broker = await measureBroker(client);
  const reads: number[] = [];
  const uri = `current-step://${broker.taskId}`;
  for (let i = 0; i < 50; i++) await client.readResource({ uri });
  for (let i = 0; i < READS; i++) {
    const t0 = performance.now();
    await client.readResource({ uri });
    reads.push(performance.now() - t0);
  }
  await client.close();
  await opened.close();
  const { taskId: _t, ...figures } = broker;
  return { ...figures, resource_read_current_step: stats(reads) };
}

async function overStdio(dir: string, ws: string) {
  if (!existsSync(CLI)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--db', join(dir, 'stdio', 'baton.db'), '--workspace', ws, '--rate-limits', 'off'],
    stderr: 'ignore',
    env: { ...(process.env as Record<string, string>), BATON_LOG_LEVEL: 'warn' },
  });
  const client = new Client({ name: 'bench-stdio', version: '1' });
  await client.connect(transport);
  const broker = await measureBroker(client);
  await client.close();
  const { taskId: _t, ...figures } = broker;
  return figures;
}

/** stdio transport plus the MCP layer over a core that answers instantly (tsx-run fixture, so a little slower than the bundle). */
async function stdioLayerOnly() {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', join(ROOT, 'test', 'fixtures', 'mcp', 'fakeStdioServer.ts')],
    stderr: 'ignore',
    cwd: ROOT,
  });
  const client = new Client({ name: 'bench-stdio-layer', version: '1' });
  await client.connect(transport);
  const out: number[] = [];
  for (let i = 0; i < 1050; i++) {
    const t0 = performance.now();
    await client.callTool({ name: 'workflow_next_step', arguments: { step_token: 'tok', model_output_so_far: OUTPUT } });
    if (i >= 50) out.push(performance.now() - t0);
  }
  await client.close();
  return { continue: stats(out) };
}

/** The MCP layer alone (validation, aliasing, call log, SDK) over a core that answers instantly. */
async function layerOnly() {
  const baton = new FakeBaton();
  baton.nextStepImpl = async () => ({ status: 'ok', execution_id: 'e', task_id: 't', new_step_token: 'tok', human_message: 'go' });
  const server = createMcpServer(baton, { toolGroups: ['broker'], version: 'bench', log: silentLog });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench-layer', version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  const time = async (n: number, fn: () => Promise<unknown>) => {
    const out: number[] = [];
    for (let i = 0; i < n + 50; i++) {
      const t0 = performance.now();
      await fn();
      if (i >= 50) out.push(performance.now() - t0);
    }
    return stats(out);
  };
  const cont = await time(1000, () => client.callTool({ name: 'workflow_next_step', arguments: { step_token: 'tok', model_output_so_far: OUTPUT } }));
  const read = await time(1000, () => client.readResource({ uri: 'current-step://task-1' }));
  await client.close();
  return { continue: cont, resource_read: read };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-mcp-'));
  try {
    const ws = writeWorkspace(dir);
    const mcp_layer_only = await layerOnly();
    const stdio_layer_only = await stdioLayerOnly();
    const in_process = await inProcess(dir, ws);
    const stdio = await overStdio(dir, ws);
    const targets = { stdio_continue_p50_ms: 1, stdio_continue_p95_ms: 3, create_p50_ms: 1.5, resource_read_p50_ms: 0.3 };
    const met = {
      stdio_continue_p50: stdio.continue.p50_ms <= targets.stdio_continue_p50_ms,
      stdio_continue_p95: stdio.continue.p95_ms <= targets.stdio_continue_p95_ms,
      stdio_create_p50: stdio.create.p50_ms <= targets.create_p50_ms,
      in_process_create_p50: in_process.create.p50_ms <= targets.create_p50_ms,
      resource_read_p50: in_process.resource_read_current_step.p50_ms <= targets.resource_read_p50_ms,
    };
    process.stdout.write(JSON.stringify({ steps_in_template: SHORT_STEPS, steps_in_long_template: STEPS, in_process, stdio, mcp_layer_only, stdio_layer_only, targets, met }) + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((ex: unknown) => {
  process.stderr.write(`${(ex as Error).stack ?? String(ex)}\n`);
  process.exit(1);
});
