// Rule: `baton pipeline` runs systems as durable executions: a run whose process is SIGKILLed resumes at the step
// that was running and never runs a completed step again; human_review waits for `baton approve` from another
// process; a budget pauses the run (exit 3) until a person raises it; bad files are refused with file:line: field.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CLI, ensureBuilt, killAll, pipelineSetup, ROOT, runCli, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { readPid } from '../helpers/processes.js';
import { until } from '../helpers/until.js';

const AGENT = join(ROOT, 'test', 'fixtures', 'pipelines', 'agent.js');
const pids: number[] = [];

before(() => ensureBuilt());
after(() => killAll(pids));

function workspaceWith(yaml: string) {
  const t = pipelineSetup('baton-pipe-', yaml, AGENT);
  const env = { COUNTER: join(t.dir, 'counter'), HANG_PID: join(t.dir, 'hang.pid'), BATON_LOG_LEVEL: 'error' };
  return { ...t, env, counter: () => (existsSync(env.COUNTER) ? readFileSync(env.COUNTER, 'utf8').trim().split('\n') : []) };
}

const THREE = `name: three
agents:
  - { id: scout, runner: command, command: [node, AGENT] }
  - { id: slow, runner: command, command: [node, AGENT] }
  - { id: final, runner: command, command: [node, AGENT] }
workflow:
  - { id: one, type: agent, agentId: scout, outputVariable: a }
  - { id: two, type: agent, agentId: slow, inputTemplate: "{{a}}", outputVariable: b }
  - { id: three, type: agent, agentId: final, inputTemplate: "{{b}}" }
`;

/** Starts `baton pipeline run` and collects its JSON lines. */
function startRun(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, 'pipeline', 'run', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  pids.push(child.pid!);
  const lines: Array<Record<string, unknown>> = [];
  let buf = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buf.slice(0, nl)) as Record<string, unknown>);
      buf = buf.slice(nl + 1);
    }
  });
  child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, lines, exited, stderr: () => stderr };
}

test('a run SIGKILLed mid-step resumes at that step; the completed step is never run again', async () => {
  const w = workspaceWith(THREE);
  const env = { ...w.env, HANG_AGENT: 'slow' };
  const run = startRun(['p', '--input', 'find the bug', '--db', w.db, '--workspace', w.workspace], env);
  const started = await until('run_started', () => run.lines.find((l) => l.type === 'run_started'), 20_000);
  const runId = String(started.runId);
  pids.push(await until('the slow agent', () => readPid(env.HANG_PID), 20_000));
  assert.deepEqual(w.counter(), ['scout', 'slow']);
  run.child.kill('SIGKILL');
  assert.equal(await run.exited, null);

  const status = await runCli(['status', '--json', '--db', w.db]);
  const exec = (JSON.parse(status.stdout) as { executions: Array<{ execution_id: string; status: string; steps: Array<{ step_name: string; status: string }> }> }).executions.find((e) => e.execution_id === runId)!;
  assert.equal(exec.status, 'running');
  assert.deepEqual(exec.steps.map((s) => [s.step_name, s.status]), [['one', 'completed'], ['two', 'running']]);

  const resumed = await runCli(['pipeline', 'resume', runId, '--json', '--db', w.db, '--workspace', w.workspace], env);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(w.counter(), ['scout', 'slow', 'slow', 'final'], 'scout ran once; slow ran again; final once');
  const events = resumed.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; step?: string; replayed?: boolean });
  assert.ok(events.some((e) => e.type === 'step_completed' && e.step === 'one' && e.replayed === true));
  const summary = events.find((e) => e.type === 'summary') as unknown as { status: string; usage: { byAgent: Record<string, { steps: number }> } };
  assert.equal(summary.status, 'completed');
  assert.equal(summary.usage.byAgent.scout!.steps, 1);
  const after = await runCli(['status', '--all', '--json', '--db', w.db]);
  assert.equal((JSON.parse(after.stdout) as { executions: Array<{ status: string }> }).executions[0]!.status, 'completed');
  assert.match(events.map((e) => JSON.stringify(e)).join('\n'), /final answered: slow answered: scout answered: find the bug \(saw memory\) \(saw memory\)/);
});

test('a run `baton pipeline cancel` ends reads cancelled: in the command driving it, the list, cancel and resume', async () => {
  const w = workspaceWith(THREE);
  const env = { ...w.env, HANG_AGENT: 'slow' };
  const run = startRun(['p', '--input', 'x', '--db', w.db, '--workspace', w.workspace], env);
  const runId = String((await until('run_started', () => run.lines.find((l) => l.type === 'run_started'), 20_000)).runId);
  pids.push(await until('the slow agent', () => readPid(env.HANG_PID), 20_000));
  const cancelled = await runCli(['pipeline', 'cancel', runId, '--db', w.db, '--workspace', w.workspace], env);
  assert.equal(cancelled.code, 0, cancelled.stderr);
  // Not "aborted: aborted": the run was cancelled, and by whom.
  assert.equal(await run.exited, 1, run.stderr());
  assert.equal(run.stderr(), `baton: run ${runId} cancelled (by baton pipeline cancel)\n`);
  const summary = run.lines.find((l) => l.type === 'summary')!;
  assert.deepEqual([summary.status, summary.error], ['cancelled', 'by baton pipeline cancel']);
  const finished = run.lines.find((l) => l.type === 'run_finished')!;
  assert.deepEqual([finished.status, finished.error], ['failed', 'cancelled'], 'stored failed, with the mark; not "aborted"');
  const listed = await runCli(['pipeline', 'list', '--db', w.db, '--workspace', w.workspace]);
  assert.match(listed.stdout, new RegExp(`^ {2}${runId} {2}three {2}cancelled {2}15 tokens`, 'm'));
  const listedJson = JSON.parse((await runCli(['pipeline', 'list', '--json', '--db', w.db, '--workspace', w.workspace])).stdout) as { runs: Array<{ status: string; cancelled: boolean }> };
  assert.deepEqual(listedJson.runs.map((r) => [r.status, r.cancelled]), [['failed', true]], 'JSON keeps the stored status, with the mark');
  const twice = await runCli(['pipeline', 'cancel', runId, '--db', w.db, '--workspace', w.workspace], env);
  assert.equal(twice.code, 1);
  assert.equal(twice.stderr, `baton: Execution ${runId} is already cancelled; only an unfinished execution can be cancelled.\n`);
  const resumed = await runCli(['pipeline', 'resume', runId, '--db', w.db, '--workspace', w.workspace], env);
  assert.equal(resumed.code, 1);
  assert.match(resumed.stderr, new RegExp(`^baton: Run ${runId} is cancelled; only a paused or interrupted run can be resumed\\.`));
});

/** Plan, a human review of the plan, then do it. */
const GATED = `name: gated
agents:
  - { id: planner, runner: command, command: [node, AGENT] }
  - { id: doer, runner: command, command: [node, AGENT] }
workflow:
  - { id: plan, type: agent, agentId: planner, outputVariable: plan }
  - { id: check, type: human_review, inputTemplate: "OK? {{plan}}" }
  - { id: do, type: agent, agentId: doer, inputTemplate: "{{plan}}" }
`;

test('a human_review step waits until `baton approve` from another process; then the run goes on', async () => {
  const w = workspaceWith(GATED);
  const run = startRun(['p', '--input', 'ship it', '--db', w.db, '--workspace', w.workspace], w.env);
  const waiting = await until('the gate', () => run.lines.find((l) => l.type === 'step_awaiting_approval'), 20_000);
  assert.equal(waiting.prompt, 'OK? planner answered: ship it');
  assert.deepEqual(w.counter(), ['planner']);
  const approved = await runCli(['approve', String(waiting.runId), '--db', w.db]);
  assert.equal(approved.code, 0, approved.stderr);
  // The run this CLI drives goes on (or is already done when the approval reads it back), not "execution running".
  assert.match(approved.stdout, /^Approved check of \S+: step completed; the run (goes on|completed)\n$/);
  assert.equal(await run.exited, 0, run.stderr());
  assert.deepEqual(w.counter(), ['planner', 'doer']);
});

test('`baton reject` of a human_review says what becomes of the run: it fails, or goes on under onReject: continue', async () => {
  for (const [onReject, then] of [['fail', /the run (failed|ends: it fails with your reason)/], ['continue', /the run (completed|goes on with this review not approved)/]] as const) {
    const w = workspaceWith(GATED.replace('inputTemplate: "OK? {{plan}}"', `inputTemplate: "OK? {{plan}}", onReject: ${onReject}`));
    const run = startRun(['p', '--input', 'ship it', '--db', w.db, '--workspace', w.workspace], w.env);
    const waiting = await until('the gate', () => run.lines.find((l) => l.type === 'step_awaiting_approval'), 20_000);
    const rejected = await runCli(['reject', String(waiting.runId), '--feedback', 'not this plan', '--db', w.db]);
    assert.equal(rejected.code, 0, rejected.stderr);
    // The run's command may have ended with it before the rejection reads it back: never "execution running".
    assert.match(rejected.stdout, new RegExp(`^Rejected check of \\S+: step (failed|completed); ${then.source}\n$`), onReject);
    assert.equal(await run.exited, onReject === 'fail' ? 1 : 0, run.stderr());
  }
});

test('a run over its budget pauses (exit 3, budget_exceeded) and resumes after the budget is raised', async () => {
  const w = workspaceWith(THREE);
  const env = { ...w.env, TOKENS: '100', USAGE_FIRST: '1' };
  const run = startRun(['p', '--input', 'x', '--budget-tokens', '150', '--db', w.db, '--workspace', w.workspace], env);
  assert.equal(await run.exited, 3, run.stderr());
  const runId = String(run.lines[0]!.runId);
  assert.deepEqual(w.counter(), ['scout', 'slow'], 'the second step was stopped when its tokens passed the budget; the third did not start');
  const summary = run.lines.find((l) => l.type === 'summary') as { status: string; error: string };
  assert.equal(summary.status, 'paused');
  assert.match(summary.error, /budget_exceeded: 220 tokens used, budget 150/);
  // The way on names the database, as an interrupted run's does: run elsewhere, it would not find the run otherwise.
  // Only the flag of the limit it passed: the run has no dollar budget.
  assert.ok(run.stderr().includes(`Raise the budget and go on: baton pipeline resume ${runId} --db ${w.db} --budget-tokens N\n`), run.stderr());
  const refused = await runCli(['pipeline', 'resume', runId, '--db', w.db, '--workspace', w.workspace], env);
  assert.equal(refused.code, 1);
  assert.ok(refused.stderr.includes(`still over its budget: 220 tokens used, budget 150 tokens. Resume it with a token budget above 220. For example: baton pipeline resume ${runId} --db ${w.db} --budget-tokens N\n`), refused.stderr);
  const resumed = await runCli(['pipeline', 'resume', runId, '--budget-tokens', '1000', '--json', '--db', w.db, '--workspace', w.workspace], env);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(w.counter(), ['scout', 'slow', 'slow', 'final'], 'the stopped step runs again; the completed one does not');
  const done = resumed.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; usage?: { total: { tokens: number }; bySteps: Record<string, { tokens: number }> } }).find((e) => e.type === 'summary')!;
  assert.equal(done.usage!.total.tokens, 440, 'the stopped attempt stays billed');
  assert.equal(done.usage!.bySteps.two!.tokens, 220);
});

test('with a live owner (baton serve), the run happens in the owner and the CLI follows it; approve reaches it', async () => {
  const w = workspaceWith(GATED);
  const serve = spawn(process.execPath, [CLI, 'serve', '--db', w.db, '--workspace', w.workspace], { env: { ...process.env, ...w.env }, stdio: ['ignore', 'ignore', 'pipe'] });
  pids.push(serve.pid!);
  try {
    await until('baton serve', () => existsSync(join(w.db, '..', 'server.json')), 20_000);
    const run = startRun(['p', '--input', 'ship it', '--db', w.db, '--workspace', w.workspace], w.env);
    const first = await until('run_started', () => run.lines.find((l) => l.type === 'run_started'), 20_000).catch((ex: Error) => {
      throw new Error(`${ex.message}; stderr: ${run.stderr()}`);
    });
    assert.equal(first.owner, serve.pid, 'the owner runs it');
    const waiting = await until('the gate', () => run.lines.find((l) => l.type === 'step_awaiting_approval'), 20_000);
    assert.equal(waiting.prompt, 'OK? planner answered: ship it');
    const approved = await runCli(['approve', String(first.runId), '--db', w.db]);
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal(await run.exited, 0, run.stderr());
    const summary = run.lines.find((l) => l.type === 'summary') as { status: string; usage: { total: { tokens: number } } };
    assert.equal(summary.status, 'completed');
    assert.equal(summary.usage.total.tokens, 30);
    assert.deepEqual(w.counter(), ['planner', 'doer']);
  } finally {
    serve.kill('SIGTERM');
  }
});

test('two runs started at once on a new database: one owns it, the other runs in it and follows; both finish', async () => {
  const w = workspaceWith(THREE);
  const runs = [0, 1].map((i) => startRun(['p', '--input', `run ${i}`, '--json', '--db', w.db, '--workspace', w.workspace], w.env));
  const codes = await Promise.all(runs.map((r) => r.exited));
  assert.deepEqual(codes, [0, 0], runs.map((r) => r.stderr()).join('\n'));
  for (const r of runs) assert.ok(r.lines.some((l) => l.type === 'summary'), JSON.stringify(r.lines.at(-1)));
});

test('an invalid pipeline is refused with file:line: field and the allowed values; a missing one lists those there are', async () => {
  const w = workspaceWith(THREE.replace('type: agent, agentId: slow', 'type: agnet, agentId: slow'));
  const bad = await runCli(['pipeline', 'run', 'p', '--input', 'x', '--db', w.db, '--workspace', w.workspace]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /p\.yaml:8: workflow\[1\]\.type: must be one of agent, sequential, parallel, conditional, loop, human_review, transform; got the string "agnet"/);
  assert.equal(existsSync(w.db), false, 'nothing was created');
  const missing = await runCli(['pipeline', 'run', 'nope', '--input', 'x', '--db', w.db, '--workspace', w.workspace]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /No pipeline "nope": .* \(pipelines: p\)/);
  const noInput = await runCli(['pipeline', 'run', 'p', '--db', w.db, '--workspace', w.workspace]);
  assert.equal(noInput.code, 2);
  assert.match(noInput.stderr, /needs --input TEXT/);
});

test('a pipeline FILE is read from the current folder, with --workspace too; one found only under it is refused naming the path to type', async () => {
  const w = workspaceWith(THREE);
  const typed = join('ws', '.baton', 'pipelines', 'p.yaml');
  const ran = await runCli(['pipeline', 'run', typed, '--input', 'go', '--json', '--db', w.db, '--workspace', 'ws'], w.env, w.dir);
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(JSON.parse(ran.stdout.trim().split('\n').at(-1)!).status, 'completed');
  const fromWorkspace = await runCli(['pipeline', 'run', join('.baton', 'pipelines', 'p.yaml'), '--input', 'go', '--db', w.db, '--workspace', 'ws'], w.env, w.dir);
  assert.equal(fromWorkspace.code, 1);
  assert.equal(fromWorkspace.stderr, `baton: no file ${join(w.dir, '.baton', 'pipelines', 'p.yaml')} (.baton/pipelines/p.yaml is read from the current folder, as the shell reads a path), but there is ${join(w.workspace, '.baton', 'pipelines', 'p.yaml')} under --workspace: write ${typed}\n`);
  const nowhere = await runCli(['pipeline', 'run', 'nope.yaml', '--input', 'go', '--db', w.db, '--workspace', 'ws'], w.env, w.dir);
  assert.equal(nowhere.code, 1);
  assert.match(nowhere.stderr, new RegExp(`^baton: No pipeline "nope\\.yaml": no file ${join(w.dir, 'nope.yaml').replace(/[.]/g, '\\.')}, and not in `));
});

test('a folder named like a pipeline or blueprint file is listed with its problem; the other files work', async () => {
  const w = workspaceWith(THREE);
  mkdirSync(join(w.workspace, '.baton', 'pipelines', 'folder.yaml'));
  mkdirSync(join(w.workspace, '.baton', 'blueprints', 'folder.yaml'), { recursive: true });
  const listed = await runCli(['pipeline', 'list', '--json', '--db', w.db, '--workspace', w.workspace]);
  assert.equal(listed.code, 0, listed.stderr);
  const systems = (JSON.parse(listed.stdout) as { systems: Array<{ name: string; valid: boolean; problems: string[] }> }).systems;
  assert.deepEqual(systems.map((x) => [x.name, x.valid]), [['folder', false], ['three', true]]);
  assert.match(systems[0]!.problems[0]!, /folder\.yaml: cannot read the file \(it is a folder, not a file\)$/);
  const ran = await runCli(['pipeline', 'run', 'three', '--input', 'go', '--db', w.db, '--workspace', w.workspace], w.env);
  assert.equal(ran.code, 0, ran.stderr);
  const asPath = await runCli(['pipeline', 'run', join('.baton', 'pipelines', 'folder.yaml'), '--input', 'go', '--db', w.db, '--workspace', w.workspace], {}, w.workspace);
  assert.equal(asPath.code, 1);
  assert.match(asPath.stderr, /^baton: Pipeline .*folder\.yaml is not valid:\n.*cannot read the file \(it is a folder, not a file\)/);
  const blueprints = await runCli(['blueprint', 'list', '--json', '--workspace', w.workspace]);
  assert.equal(blueprints.code, 0, blueprints.stderr);
  const listedBlueprints = (JSON.parse(blueprints.stdout) as { blueprints: Array<{ id: string; problems: Array<{ message: string }> }> }).blueprints;
  assert.ok(listedBlueprints.some((b) => b.id === 'feature-implementation' && b.problems.length === 0));
  assert.deepEqual(listedBlueprints.find((b) => b.id === 'folder')?.problems.map((p) => p.message), ['cannot read the file (it is a folder, not a file)']);
});

test('pipeline list and blueprint list print text unless --json, also when stdout is not a terminal', async () => {
  const w = workspaceWith(THREE);
  writeFileSync(join(w.workspace, '.baton', 'pipelines', 'q.yaml'), `name: single
agents:
  - { id: solo, runner: command, command: [node, ${JSON.stringify(AGENT)}] }
workflow:
  - { id: only, type: agent, agentId: solo }
`);
  const pipelines = await runCli(['pipeline', 'list', '--db', w.db, '--workspace', w.workspace]);
  assert.equal(pipelines.code, 0, pipelines.stderr);
  // Counts in words: "1 agent, 1 step", not "1 agents, 1 steps".
  assert.match(pipelines.stdout, /^Pipelines:\n {2}three {2}3 agents, 3 steps {2}.*p\.yaml\n {2}single {2}1 agent, 1 step {2}.*q\.yaml\nRuns:\n {2}\(none\)\n$/);
  const blueprints = await runCli(['blueprint', 'list', '--workspace', w.workspace]);
  assert.equal(blueprints.code, 0, blueprints.stderr);
  assert.match(blueprints.stdout, /^feature-implementation {2}.*\n {4}--input feature=… {2}Feature to implement \(string\)$/m);
  assert.doesNotMatch(blueprints.stdout, /^\{/, 'not JSON');
  assert.ok(JSON.parse((await runCli(['blueprint', 'list', '--json', '--workspace', w.workspace])).stdout).blueprints.length > 0);
});

test('baton blueprint new writes a runnable system and names missing inputs', async () => {
  const w = workspaceWith(THREE);
  const missing = await runCli(['blueprint', 'new', 'feat', '--from', 'feature-implementation', '--workspace', w.workspace]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /missing input 'feature': Feature to implement \(string\); pass it with --input feature=…$/m);
  const unknown = await runCli(['blueprint', 'new', 'feat', '--from', 'nope', '--workspace', w.workspace]);
  assert.match(unknown.stderr, /No blueprint "nope"\. Blueprints: .*feature-implementation/);
  const made = await runCli(['blueprint', 'new', 'research', '--from', 'research-pipeline', '--input', 'topic=cart', '--runner', 'command', '--command', 'node', '--command', AGENT, '--workspace', w.workspace]);
  assert.equal(made.code, 0, made.stderr);
  assert.equal(made.stderr, '', 'a blueprint without problems warns of nothing');
  const again = await runCli(['blueprint', 'new', 'research', '--from', 'research-pipeline', '--input', 'topic=cart', '--runner', 'command', '--command', 'node', '--command', AGENT, '--workspace', w.workspace]);
  assert.match(again.stderr, /already exists; pick another name or pass --force/);
  const ran = await runCli(['pipeline', 'run', 'research', '--input', 'go', '--db', w.db, '--workspace', w.workspace], w.env);
  assert.equal(ran.code, 0, ran.stderr);
  assert.deepEqual(w.counter(), ['scout', 'analyzer', 'summarizer']);
  const listed = await runCli(['pipeline', 'list', '--json', '--db', w.db, '--workspace', w.workspace]);
  const body = JSON.parse(listed.stdout) as { systems: Array<{ name: string }>; runs: Array<{ system: string; status: string }> };
  assert.deepEqual(body.systems.map((s) => s.name).sort(), ['research', 'three']);
  assert.deepEqual(body.runs.map((r) => [r.system, r.status]), [['research', 'completed']]);
  // A field the blueprint's file has that is ignored (`requiredInput:` for `requiredInputs:`) is said when it is used.
  const bundled = readFileSync(join(ROOT, 'content', 'blueprints', 'research-pipeline.yaml'), 'utf8');
  mkdirSync(join(w.workspace, '.baton', 'blueprints'), { recursive: true });
  writeFileSync(join(w.workspace, '.baton', 'blueprints', 'slip.yaml'), `${bundled.replace(/^id: .*$/m, 'id: slip')}\nrequiredInput: []\n`);
  const slip = await runCli(['blueprint', 'new', 'slipped', '--from', 'slip', '--input', 'topic=cart', '--runner', 'command', '--command', 'node', '--command', AGENT, '--workspace', w.workspace]);
  assert.equal(slip.code, 0, slip.stderr);
  assert.match(slip.stderr, /^baton: warning: .*slip\.yaml:\d+: requiredInput: unknown field \(did you mean 'requiredInputs'\?\)/m);
});
