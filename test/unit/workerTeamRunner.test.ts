// Rule: a team invokes an agent only for unread @mentions (one turn at a time per agent), acks what it showed a silent agent, ends `run` when every agent is idle, and stops endless ping-pong at the invocation limit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryContextProvider } from '../../src/core/worker/memoryContextProvider.js';
import { TeamRunner, type InvocationOutcome, type InvokeAgent, type TeamEvent } from '../../src/core/worker/teamRunner.js';
import { teamPrompt, teamSystemPrompt } from '../../src/core/worker/teamPrompts.js';
import { workflowGuidance } from '../../src/core/worker/guidance.js';

const ok: InvocationOutcome = { status: 'completed', text: 'done', error: null };

function team(script: (agent: string, prompt: string, provider: MemoryContextProvider) => Promise<void>, max?: number, agents = ['reviewer', 'coder']) {
  const provider = new MemoryContextProvider({ agents });
  const calls: { agent: string; prompt: string; systemPrompt: string }[] = [];
  const events: TeamEvent[] = [];
  let concurrent = 0;
  let most = 0;
  let maxConcurrentPerAgent = 0;
  const busy = new Map<string, number>();
  const invoke: InvokeAgent = (agent, req) => {
    calls.push({ agent, ...req });
    busy.set(agent, (busy.get(agent) ?? 0) + 1);
    maxConcurrentPerAgent = Math.max(maxConcurrentPerAgent, busy.get(agent)!);
    concurrent++;
    most = Math.max(most, concurrent);
    const outcome = script(agent, req.prompt, provider).then(() => ok).finally(() => {
      concurrent--;
      busy.set(agent, busy.get(agent)! - 1);
    });
    return { outcome, stop() {} };
  };
  const runner = new TeamRunner({
    workflow: 'review', instance: 'pr-1', agents: Object.fromEntries(agents.map((a) => [a, `You are ${a}.`])), provider, invoke, mode: 'run',
    maxInvocations: max, onEvent: (e) => events.push(e),
  });
  return { provider, runner, calls, events, perAgent: () => maxConcurrentPerAgent, most: () => most };
}

test('run: reviewer mentions coder, coder answers without mentions, the team ends idle', async () => {
  const t = team(async (agent, _prompt, p) => {
    if (agent === 'reviewer') await p.appendChannel('reviewer', '@coder please fix the null check');
    else await p.writeDocument('fixed the null check');
  });
  await t.provider.appendChannel('system', 'PR diff … @reviewer please review');
  t.runner.notify();
  const end = await t.runner.done;
  assert.equal(end.reason, 'idle');
  assert.deepEqual(t.calls.map((c) => c.agent), ['reviewer', 'coder']);
  assert.match(t.calls[0]!.prompt, /\[system\]\nPR diff … @reviewer please review/);
  assert.match(t.calls[0]!.systemPrompt, /^You are reviewer\.\n\n## Workflow Participation/);
  assert.match(t.calls[1]!.prompt, /\[reviewer\]\n@coder please fix/);
  assert.equal(await t.provider.readDocument(), 'fixed the null check');
  assert.deepEqual(t.events.filter((e) => e.type === 'channel').map((e) => (e as { entry: { from: string } }).entry.from), ['system', 'reviewer']);
  assert.equal(t.events.at(-1)!.type, 'team_ended');
});

test('a silent agent (no inbox_ack) is acked up to what it was shown, so it is not woken again for the same message', async () => {
  const t = team(async () => {});
  await t.provider.appendChannel('system', '@reviewer look');
  t.runner.notify();
  const end = await t.runner.done;
  assert.equal(end.reason, 'idle');
  assert.equal(t.calls.length, 1);
  assert.deepEqual(await t.provider.peekInbox('reviewer'), []);
});

test('a message that arrives during a turn is not acked by the runner and wakes the agent again', async () => {
  let first = true;
  const t = team(async (agent, _prompt, p) => {
    if (agent === 'reviewer' && first) {
      first = false;
      await p.appendChannel('coder', '@reviewer one more thing');
    }
  });
  await t.provider.appendChannel('system', '@reviewer look');
  t.runner.notify();
  await t.runner.done;
  assert.deepEqual(t.calls.map((c) => c.agent), ['reviewer', 'reviewer']);
  assert.match(t.calls[1]!.prompt, /one more thing/);
  assert.doesNotMatch(t.calls[1]!.prompt, /@reviewer look/);
});

test('agents run concurrently, but never two turns of one agent at once', async () => {
  const t = team(async (agent, _p, p) => {
    await new Promise((r) => setTimeout(r, 20));
    await p.appendChannel(agent, agent === 'reviewer' ? '@coder again' : '@reviewer again');
  }, 6);
  await t.provider.appendChannel('system', '@reviewer and @coder start');
  t.runner.notify();
  t.runner.notify();
  const end = await t.runner.done;
  assert.equal(t.perAgent(), 1);
  assert.equal(t.most(), 2);
  assert.equal(end.reason, 'max_invocations');
});

test('endless ping-pong stops at the invocation limit with a message that names the fix', async () => {
  const t = team(async (agent, _p, p) => {
    await p.appendChannel(agent, agent === 'reviewer' ? '@coder your turn' : '@reviewer your turn');
  }, 6);
  await t.provider.appendChannel('system', '@reviewer go');
  t.runner.notify();
  const end = await t.runner.done;
  assert.equal(end.reason, 'max_invocations');
  assert.equal(end.invocations, 6);
  assert.match(end.message, /--max-invocations/);
});

test('a failed invocation counts as a failure, its messages are acked, the team still ends idle', async () => {
  const provider = new MemoryContextProvider({ agents: ['a'] });
  const runner = new TeamRunner({
    workflow: 'w', instance: 'i', agents: { a: '' }, provider, mode: 'run',
    invoke: () => ({ outcome: Promise.reject(new Error('runner_unavailable: codex was not found')), stop() {} }),
  });
  await provider.appendChannel('system', '@a hi');
  runner.notify();
  const end = await runner.done;
  assert.deepEqual([end.reason, end.failures, end.invocations], ['idle', 1, 1]);
});

test('an agent whose last turn failed reads failed, with its reason, until a turn of it completes', async () => {
  const provider = new MemoryContextProvider({ agents: ['a', 'b'] });
  let failing = true;
  const runner = new TeamRunner({
    workflow: 'w', instance: 'i', agents: { a: '', b: '' }, provider, mode: 'start',
    invoke: (agent) => ({
      outcome: agent === 'a' && failing ? Promise.resolve({ status: 'failed' as const, text: '', error: 'command: "x" was not found on PATH. Check it.' }) : Promise.resolve(ok),
      stop() {},
    }),
  });
  await provider.appendChannel('system', '@a and @b work');
  runner.notify();
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(runner.states(), { a: 'failed', b: 'idle' });
  assert.equal(runner.lastError('a'), 'command: "x" was not found on PATH. Check it.');
  assert.equal(runner.lastError('b'), undefined);
  failing = false;
  await provider.appendChannel('user', '@a again');
  runner.notify();
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(runner.states(), { a: 'idle', b: 'idle' });
  assert.equal(runner.lastError('a'), undefined);
  runner.stop();
  await runner.done;
  assert.deepEqual(runner.states(), { a: 'stopped', b: 'stopped' });
});

test('stop kills running invocations; stopping every agent ends the team', async () => {
  const provider = new MemoryContextProvider({ agents: ['a', 'b'] });
  const stopped: string[] = [];
  const invoke: InvokeAgent = (agent) => {
    let settle!: (o: InvocationOutcome) => void;
    const outcome = new Promise<InvocationOutcome>((r) => (settle = r));
    return { outcome, stop: () => { stopped.push(agent); settle({ status: 'aborted', text: '', error: 'aborted' }); } };
  };
  const runner = new TeamRunner({ workflow: 'w', instance: 'i', agents: { a: '', b: '' }, provider, invoke, mode: 'start' });
  await provider.appendChannel('system', '@a and @b work');
  runner.notify();
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(runner.states(), { a: 'running', b: 'running' });
  runner.stopAgent('a');
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(runner.states(), { a: 'stopped', b: 'running' });
  assert.equal(runner.isEnded, false);
  runner.stopAgent('b');
  const end = await runner.done;
  assert.equal(end.reason, 'stopped');
  assert.deepEqual(stopped, ['a', 'b']);
});

test('a turn Baton stops (baton stop agent@instance) is no failure: a run whose other agents go idle ends idle, 0 failures', async () => {
  const provider = new MemoryContextProvider({ agents: ['a', 'b'] });
  const invoke: InvokeAgent = (agent) => {
    if (agent === 'b') return { outcome: Promise.resolve(ok), stop() {} };
    let settle!: (o: InvocationOutcome) => void;
    const outcome = new Promise<InvocationOutcome>((r) => (settle = r));
    return { outcome, stop: () => settle({ status: 'aborted', text: '', error: 'aborted' }) };
  };
  const runner = new TeamRunner({ workflow: 'w', instance: 'i', agents: { a: '', b: '' }, provider, invoke, mode: 'run' });
  await provider.appendChannel('system', '@a and @b work');
  runner.notify();
  await new Promise((r) => setTimeout(r, 20));
  runner.stopAgent('a');
  const end = await runner.done;
  assert.deepEqual([end.reason, end.failures, end.invocations], ['idle', 0, 2]);
});

test('an aborted turn Baton did not stop still counts as a failure', async () => {
  const provider = new MemoryContextProvider({ agents: ['a'] });
  const runner = new TeamRunner({
    workflow: 'w', instance: 'i', agents: { a: '' }, provider, mode: 'run',
    invoke: () => ({ outcome: Promise.resolve({ status: 'aborted', text: '', error: 'killed from outside' }), stop() {} }),
  });
  await provider.appendChannel('system', '@a hi');
  runner.notify();
  const end = await runner.done;
  assert.deepEqual([end.reason, end.failures], ['idle', 1]);
});

test('start mode does not end when idle; a later message wakes the agent', async () => {
  const provider = new MemoryContextProvider({ agents: ['a'] });
  const seen: string[] = [];
  const runner = new TeamRunner({
    workflow: 'w', instance: 'i', agents: { a: '' }, provider, mode: 'start',
    invoke: (_a, req) => { seen.push(req.prompt); return { outcome: Promise.resolve(ok), stop() {} }; },
  });
  runner.notify();
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(runner.isEnded, false);
  await provider.appendChannel('user', '@a ping');
  runner.notify();
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(seen.length, 1);
  runner.stop();
  assert.equal((await runner.done).reason, 'stopped');
});

test('prompts: high priority first, the guidance after the agent\'s own system prompt', () => {
  const entry = (timestamp: string, message: string, mentions: string[]) => ({ timestamp, from: 'x', message, mentions });
  const prompt = teamPrompt('coder', 'review', 'pr-1', [
    { entry: entry('2026-01-01T00:00:01.000Z', '@coder normal', ['coder']), unread: true, priority: 'normal' },
    { entry: entry('2026-01-01T00:00:02.000Z', '@coder urgent fix', ['coder']), unread: true, priority: 'high' },
  ]);
  assert.ok(prompt.indexOf('urgent fix') < prompt.indexOf('@coder normal'));
  assert.match(prompt, /You are @coder in the team "review" \(instance pr-1\)/);
  assert.equal(teamSystemPrompt('  Be terse. ', 'coder', ['reviewer', 'coder']), `Be terse.\n\n${workflowGuidance('coder', ['reviewer', 'coder'])}`);
  assert.match(teamSystemPrompt('', 'coder', ['reviewer', 'coder']), /^## Workflow Participation\n\nYou are @coder, part of a multi-agent workflow with @reviewer/);
});
