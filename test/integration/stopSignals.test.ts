// Rule: closing the terminal (SIGHUP) stops a Baton command as Ctrl-C does: `baton pipeline run` stops the agent it
// runs in a process group of its own (left to Node's default, the command died and the agent ran on, orphaned) and
// pauses the run, which `pipeline resume` goes on with, in whichever process runs it (`pipeline cancel` ends it);
// `baton serve` closes the database and removes its discovery file.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { readDiscovery } from '../../src/host/discovery.js';
import { CLI, ensureBuilt, killAll, pipelineSetup, ROOT, runCli, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { alive, readPid, startNode, type Started } from '../helpers/processes.js';
import { until } from '../helpers/until.js';

const AGENT = join(ROOT, 'test', 'fixtures', 'pipelines', 'agent.js');
const pids: number[] = [];

before(() => ensureBuilt());
after(() => killAll(pids));

/** A workspace whose pipeline `p` has one agent step that hangs on its first run (the fixture's HANG_AGENT). */
function hangingPipeline(prefix: string) {
  const t = pipelineSetup(prefix, `name: one
agents:
  - { id: slow, runner: command, command: [node, AGENT] }
workflow:
  - { id: work, type: agent, agentId: slow }
`, AGENT);
  const env = { COUNTER: join(t.dir, 'counter'), HANG_PID: join(t.dir, 'hang.pid'), HANG_AGENT: 'slow', BATON_LOG_LEVEL: 'error' };
  const cli = (args: string[]) => runCli([...args, '--db', t.db, '--workspace', t.workspace], env);
  return { ...t, env, cli };
}

/** Starts `baton pipeline run p` in the background; its JSON events so far, its stderr and its exit code. */
function startRun(w: ReturnType<typeof hangingPipeline>) {
  const run = startNode([CLI, 'pipeline', 'run', 'p', '--input', 'x', '--json', '--db', w.db, '--workspace', w.workspace], w.env);
  pids.push(run.child.pid!);
  const events = () => run.out().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { type: string; status?: string; error?: string; runId?: string });
  return { ...run, events };
}

/** The agent a started run is waiting on (the hanging fixture's pid, once it wrote it). */
async function agentOf(w: ReturnType<typeof hangingPipeline>): Promise<number> {
  const agent = await until('the agent', () => readPid(w.env.HANG_PID), 20_000);
  pids.push(agent);
  return agent;
}

/**
 * `baton serve` owning a workspace, and `baton pipeline run p` following the run it drives, its agent hanging in its
 * step: `check` gets them; the owner is stopped (in order) and the workspace removed afterwards.
 */
async function servingRun(prefix: string, check: (s: { w: ReturnType<typeof hangingPipeline>; serve: Started; run: ReturnType<typeof startRun>; agent: number; runId: string }) => Promise<void>): Promise<void> {
  const w = hangingPipeline(prefix);
  const serve = startNode([CLI, 'serve', '--db', w.db, '--workspace', w.workspace], w.env);
  pids.push(serve.child.pid!);
  let run: ReturnType<typeof startRun> | undefined;
  try {
    await until('baton serve', () => readDiscovery(w.db), 20_000);
    run = startRun(w);
    const agent = await agentOf(w);
    const runId = String(run.events().find((e) => e.type === 'run_started')!.runId);
    await check({ w, serve, run, agent, runId });
  } finally {
    run?.child.kill('SIGKILL');
    serve.child.kill('SIGTERM');
    await serve.exited;
    rmSync(w.dir, { recursive: true, force: true });
  }
}

test('SIGHUP to `baton pipeline run` stops the agent and pauses the run; resume goes on from that step', async () => {
  const w = hangingPipeline('baton-hup-');
  const run = startRun(w);
  try {
    const agent = await agentOf(w);
    run.child.kill('SIGHUP');
    assert.equal(await run.exited, 3, run.err());
    assert.equal(alive(agent), false, 'the agent was stopped with its run');
    const summary = run.events().find((e) => e.type === 'summary');
    assert.deepEqual([summary?.status, summary?.error], ['paused', 'interrupted (the terminal closed)']);
    const runId = String(summary!.runId);
    assert.match(run.err(), new RegExp(`run ${runId} paused .*Go on from the step it stopped: baton pipeline resume ${runId} --db `));
    const status = await w.cli(['status', '--all', '--json']);
    const exec = (JSON.parse(status.stdout) as { executions: Array<{ status: string; steps: Array<{ status: string }> }> }).executions[0]!;
    assert.deepEqual([exec.status, exec.steps[0]!.status], ['paused', 'pending'], 'the step is put back, not left running');
    const resumed = await w.cli(['pipeline', 'resume', runId, '--json']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(readFileSync(w.env.COUNTER, 'utf8').trim().split('\n'), ['slow', 'slow'], 'the stopped step ran again');
  } finally {
    run.child.kill('SIGKILL');
    rmSync(w.dir, { recursive: true, force: true });
  }
});

test('Ctrl-C of a command following a run in `baton serve` pauses it there; `pipeline cancel` ends it', async () => {
  await servingRun('baton-int-', async ({ w, run, agent, runId }) => {
    run.child.kill('SIGINT');
    assert.equal(await run.exited, 3, run.err());
    assert.equal(alive(agent), false, 'the owner stopped the agent');
    const summary = run.events().find((e) => e.type === 'summary');
    assert.deepEqual([summary?.status, summary?.error], ['paused', 'interrupted (Ctrl-C)']);
    // The run's end comes before the summary, as from a run this command drives (the live view draws the step stopped).
    const finished = run.events().find((e) => e.type === 'run_finished');
    assert.deepEqual([finished?.status, finished?.error], ['paused', 'interrupted (Ctrl-C)']);
    const cancelled = await w.cli(['pipeline', 'cancel', runId]);
    assert.equal(cancelled.code, 0, cancelled.stderr);
    assert.equal(cancelled.stdout, `Cancelled run ${runId}.\n`);
    // Cancelled reads "cancelled" here too, as in `baton status`, not the `failed` it is stored as.
    const listed = await w.cli(['pipeline', 'list']);
    assert.match(listed.stdout, new RegExp(`${runId}  one  cancelled  0 tokens`), 'no pause reason once cancelled');
    const again = await w.cli(['pipeline', 'resume', runId]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, new RegExp(`Run ${runId} is cancelled; only a paused or interrupted run can be resumed`));
    const twice = await w.cli(['pipeline', 'cancel', runId]);
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, new RegExp(`Execution ${runId} is already cancelled; only an unfinished execution can be cancelled`));
    const notARun = await w.cli(['pipeline', 'cancel', 'nope']);
    assert.equal(notARun.code, 1);
    assert.match(notARun.stderr, /No pipeline run "nope"/);
  });
});

test('a command following a run in `baton serve` that `pipeline cancel` ends says it was cancelled, and by whom', async () => {
  await servingRun('baton-cancel-remote-', async ({ w, run, agent, runId }) => {
    const cancelled = await w.cli(['pipeline', 'cancel', runId]);
    assert.equal(cancelled.code, 0, cancelled.stderr);
    assert.equal(await run.exited, 1, run.err());
    await until('the owner stops the agent', () => !alive(agent), 10_000);
    const summary = run.events().find((e) => e.type === 'summary');
    assert.deepEqual([summary?.status, summary?.error], ['cancelled', 'by baton pipeline cancel']);
    assert.match(run.err(), new RegExp(`^baton: run ${runId} cancelled \\(by baton pipeline cancel\\)$`, 'm'));
  });
});

test('resuming through the owner a run paused there shows this pass only: the run\'s name, each step started once', async () => {
  await servingRun('baton-int-resume-', async ({ w, run, runId }) => {
    run.child.kill('SIGINT');
    assert.equal(await run.exited, 3, run.err());
    const resumed = await w.cli(['pipeline', 'resume', runId, '--json']);
    assert.equal(resumed.code, 0, resumed.stderr);
    const events = resumed.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; system?: string; status?: string });
    assert.equal(events[0]!.type, 'run_resumed');
    assert.equal(events[0]!.system, 'one');
    assert.equal(events.filter((e) => e.type === 'step_started').length, 1, resumed.stdout);
    assert.equal(events.at(-1)!.status, 'completed');
  });
});

test('a command that missed its run\'s end before the owner was killed reads the end from the run\'s timeline, not "failed"', async () => {
  await servingRun('baton-cancel-unseen-', async ({ w, serve, run, runId }) => {
    // Stopped, the command cannot see the cancel before its owner dies; it learns of both when it goes on.
    run.child.kill('SIGSTOP');
    try {
      const cancelled = await w.cli(['pipeline', 'cancel', runId]);
      assert.equal(cancelled.code, 0, cancelled.stderr);
      serve.child.kill('SIGKILL');
      await serve.exited;
    } finally {
      run.child.kill('SIGCONT');
    }
    assert.equal(await run.exited, 1, run.err());
    assert.equal(run.err(), `baton: run ${runId} cancelled (by baton pipeline cancel)\n`);
    const summary = run.events().find((e) => e.type === 'summary');
    assert.deepEqual([summary?.status, summary?.error], ['cancelled', 'by baton pipeline cancel']);
    // The events it missed come before the summary, as when it sees them live.
    const finished = run.events().find((e) => e.type === 'run_finished');
    assert.deepEqual([finished?.status, finished?.error], ['failed', 'cancelled']);
  });
});

test('`baton serve` stopped while it runs a pipeline for a following command pauses the run and stops its agent', async () => {
  await servingRun('baton-serve-stop-', async ({ w, serve, run, agent, runId }) => {
    serve.child.kill('SIGTERM');
    assert.equal(await serve.exited, 0, serve.err());
    assert.equal(alive(agent), false, 'the owner stopped the agent before it closed the database');
    assert.equal(await run.exited, 3, run.err());
    const summary = run.events().find((e) => e.type === 'summary');
    assert.deepEqual([summary?.status, summary?.error], ['paused', 'interrupted (the Baton process running it closed)']);
    const resumed = await w.cli(['pipeline', 'resume', runId, '--json']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(readFileSync(w.env.COUNTER, 'utf8').trim().split('\n'), ['slow', 'slow']);
  });
});

test('a command following a run whose owner is killed says so and how to go on; resume stops the agent left running', async () => {
  await servingRun('baton-serve-kill-', async ({ w, serve, run, agent, runId }) => {
    serve.child.kill('SIGKILL');
    // Not failed: it goes on with resume, as an interrupted run does (exit 3).
    assert.equal(await run.exited, 3, run.err());
    assert.match(run.err(), new RegExp(`run ${runId} stopped: Baton process ${serve.child.pid}, which ran it, ended\\. Go on from the step it stopped: baton pipeline resume ${runId} --db `));
    assert.equal(run.events().find((e) => e.type === 'summary')?.status, 'interrupted');
    assert.equal(alive(agent), true, 'a killed owner could not stop its agent');
    const listed = await w.cli(['pipeline', 'list']);
    assert.match(listed.stdout, new RegExp(`${runId}  one  running \\(the process running it ended; go on with baton pipeline resume ${runId} --db \\S+\\)`));
    const resumed = await w.cli(['pipeline', 'resume', runId, '--json']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(alive(agent), false, 'resume stopped the agent left running');
    assert.deepEqual(readFileSync(w.env.COUNTER, 'utf8').trim().split('\n'), ['slow', 'slow']);
  });
});

test('SIGHUP to `baton serve` closes the database in order: exit 0, discovery file and lock gone', async () => {
  const t = tempSetup('baton-hup-serve-');
  const { child, exited, err } = startNode([CLI, 'serve', '--db', t.db, '--workspace', t.workspace]);
  pids.push(child.pid!);
  try {
    await until('discovery file', () => readDiscovery(t.db), 20_000);
    child.kill('SIGHUP');
    assert.equal(await exited, 0, err());
    assert.equal(readDiscovery(t.db), null);
    assert.equal(existsSync(`${t.db}.lock`), false, 'the lock is released');
  } finally {
    child.kill('SIGKILL');
    rmSync(t.dir, { recursive: true, force: true });
  }
});
