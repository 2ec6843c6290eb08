// Rule: a team run is an execution of kind 'worker' in Baton's database (real sql.js store) with its instance,
// agents and every channel entry recorded once; acks never move a recorded cursor backwards; entries written to the
// context by another process are caught up by sync; an instance runs once at a time; finish ends and detaches it.
// The recording provider passes the shared provider suite, and a failed recording never fails a channel write.
// A gate decision or a step release on a team run (it has no gates, its agents hold no steps) is refused naming what a
// person can do: baton send, baton stop.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import { MemoryContextProvider } from '../../src/core/worker/memoryContextProvider.js';
import { teamHost } from '../../src/core/worker/host.js';
import type { BatonEvent } from '../../src/core/types.js';
import type { Log } from '../../src/core/ports.js';
import { RecordingContextProvider } from '../../src/core/worker/recordingContextProvider.js';
import type { TeamRuns } from '../../src/core/worker/teamRuns.js';
import { contextProviderSuite } from '../helpers/contextProviderSuite.js';
import { makeBaton } from '../helpers/coreHarness.js';

async function team() {
  const made = await makeBaton();
  const teams = teamHost(made.baton)!.teams;
  const events: BatonEvent[] = [];
  made.baton.onEvent((e) => events.push(e));
  const runId = await teams.start({ workflow: 'review', instance: 'pr-1', agents: [{ name: 'reviewer', backend: 'claude', model: 'claude-sonnet-4-5' }, { name: 'coder', backend: 'command' }], source: 'review.yaml', contextDir: '.workflow/pr-1/' });
  const raw = new MemoryContextProvider({ agents: ['reviewer', 'coder'], clock: made.clock });
  const provider = teams.attach(runId, raw);
  return { ...made, teams, runId, raw, provider, events };
}

describe('team runs in the database', () => {
  it('starts an execution of kind worker with its instance and agents', async () => {
    const { store, teams, runId } = await team();
    const exec = store.get<{ kind: string; template_name: string; status: string }>('SELECT kind, template_name, status FROM executions WHERE execution_id = ?', [runId]);
    assert.deepEqual({ ...exec }, { kind: 'worker', template_name: 'review', status: 'running' });
    const [summary] = teams.list();
    assert.equal(summary?.instance, 'pr-1');
    assert.deepEqual(summary?.agents.map((a) => [a.agent, a.backend, a.state]), [['reviewer', 'claude', 'idle'], ['coder', 'command', 'idle']]);
    assert.equal(teams.get(runId)?.instance, 'pr-1');
    assert.deepEqual(teams.get(runId)?.agents, ['reviewer', 'coder']);
  });

  it('is not cancelled for being idle while this process serves it; once it is not served, it is', async () => {
    const { baton, clock, teams, runId } = await team();
    clock.advance(31 * 86_400_000);
    assert.equal((await baton.prune({ idle_days: 30, dry_run: true })).cancelled, 0, 'nor counted by a dry run');
    const served = await baton.prune({ idle_days: 30 });
    assert.deepEqual(served.cancelled_ids, [], 'a team served here is live, however quiet its channel');
    assert.equal(baton.workflowStatus(runId).status, 'running');
    teams.detach(runId);
    const gone = await baton.prune({ idle_days: 30 });
    assert.deepEqual(gone.cancelled_ids, [runId], 'left behind by a process that ended');
    assert.equal(baton.workflowStatus(runId).status, 'failed');
  });

  it('refuses a gate decision (baton approve) naming what a person can do with a team: send to it or stop it', async () => {
    const { baton, teams, runId } = await team();
    await assert.rejects(baton.decide({ execution_id: runId, decision: 'approve' }), (ex: unknown) => {
      assert.ok(BatonError.is(ex, 'invalid_state'));
      assert.equal(ex.message, `${runId} is a team run: its agents take turns and no step waits for approval. `
        + 'Talk to it with `baton send MESSAGE --to @pr-1`, or stop it with `baton stop @pr-1`.');
      return true;
    });
    await teams.finish(runId, 'cancelled');
    await assert.rejects(baton.decide({ execution_id: runId, decision: 'approve' }),
      { message: `${runId} is a team run: its agents take turns and no step waits for approval.` });
  });

  it('refuses a step release (baton release) naming what a person can do with a team instead: send to it or stop it', async () => {
    const { baton, teams, runId } = await team();
    await assert.rejects(baton.release(runId), (ex: unknown) => {
      assert.ok(BatonError.is(ex, 'invalid_state'));
      assert.equal(ex.message, `${runId} is a team run: its agents take turns and hold no steps, so there is none to release. `
        + 'Talk to it with `baton send MESSAGE --to @pr-1`, or stop it with `baton stop @pr-1`.');
      return true;
    });
    await teams.finish(runId, 'completed');
    await assert.rejects(baton.release(runId, 'coder'),
      { message: `${runId} is a team run: its agents take turns and hold no steps, so there is none to release.` });
  });

  it('records an agent that joins a running team, idle, with an event; the same name twice is refused by the database', async () => {
    const { store, teams, runId, events } = await team();
    await teams.addAgent(runId, { name: 'helper', backend: 'command' });
    assert.deepEqual(teams.list()[0]?.agents.map((a) => [a.agent, a.backend, a.state]), [['reviewer', 'claude', 'idle'], ['coder', 'command', 'idle'], ['helper', 'command', 'idle']]);
    assert.equal(store.get<{ n: number }>("SELECT COUNT(*) AS n FROM events WHERE execution_id = ? AND event_type = 'agent_joined'", [runId])?.n, 1);
    assert.ok(events.some((e) => e.type === 'team' && e.execution_id === runId && e.what === 'agent'));
    await assert.rejects(teams.addAgent(runId, { name: 'helper', backend: 'command' }), /UNIQUE|constraint/i);
  });

  it('records every channel entry once, with an event and a live notice', async () => {
    const { store, teams, runId, provider, clock, events } = await team();
    const a = await provider.appendChannel('system', 'Workflow started');
    clock.advance(1000);
    const b = await provider.appendChannel('reviewer', '@coder fix line 42');
    assert.deepEqual(teams.channel(runId), [a, b]);
    assert.equal(await teams.record(runId, [a, b]), 0, 'recording again adds nothing');
    assert.equal(store.get<{ n: number }>("SELECT COUNT(*) AS n FROM events WHERE execution_id = ? AND event_type = 'channel_message'", [runId])?.n, 2);
    assert.equal(teams.list()[0]?.messages, 2);
    assert.ok(events.some((e) => e.type === 'team' && e.execution_id === runId && e.what === 'message'));
    assert.deepEqual(teams.channel(runId, a.timestamp), [b]);
    assert.deepEqual(teams.channel(runId, undefined, 1), [b]);
  });

  it('shows in workflow-status with unread counts per agent and the channel', async () => {
    const { baton, runId, provider, clock } = await team();
    const a = await provider.appendChannel('reviewer', '@coder one');
    clock.advance(1000);
    await provider.appendChannel('reviewer', '@coder @reviewer two');
    await provider.ackInbox('coder', a.timestamp);
    const status = baton.workflowStatus(runId);
    assert.equal(status.workflow, 'review');
    assert.equal(status.team?.instance, 'pr-1');
    assert.equal(status.team?.messages, 2);
    assert.deepEqual(status.team?.agents.map((x) => [x.agent, x.unread]), [['reviewer', 0], ['coder', 1]]);
    assert.deepEqual(status.team?.channel.map((e) => e.message), ['@coder one', '@coder @reviewer two']);
  });

  it('records read cursors, never backwards', async () => {
    const { teams, runId, provider, clock } = await team();
    const a = await provider.appendChannel('reviewer', '@coder one');
    clock.advance(1000);
    const b = await provider.appendChannel('reviewer', '@coder two');
    await provider.ackInbox('coder', b.timestamp);
    await provider.ackInbox('coder', a.timestamp);
    assert.equal(teams.agents(runId).find((x) => x.agent === 'coder')?.readCursor, b.timestamp);
  });

  it('records document changes and agent states as events', async () => {
    const { store, teams, runId, provider } = await team();
    await provider.writeDocument('# Notes');
    await provider.createDocument('todos.md', '- [ ] x');
    await provider.deleteDocument('todos.md');
    await teams.setAgentState(runId, 'coder', 'running');
    const rows = store.all<{ event_type: string; event_data: string }>("SELECT event_type, event_data FROM events WHERE execution_id = ? AND event_type IN ('document_changed', 'agent_state') ORDER BY id", [runId]);
    assert.deepEqual(rows.map((r) => [r.event_type, JSON.parse(r.event_data)]), [
      ['document_changed', { op: 'write', file: '(entry point)', bytes: 7 }],
      ['document_changed', { op: 'create', file: 'todos.md', bytes: 7 }],
      ['document_changed', { op: 'delete', file: 'todos.md', bytes: 0 }],
      ['agent_state', { agent: 'coder', state: 'running' }],
    ]);
    assert.equal(teams.agents(runId).find((x) => x.agent === 'coder')?.state, 'running');
  });

  it('an agent whose turn failed is listed with its reason while the run runs, until its state moves on', async () => {
    const { baton, teams, runId } = await team();
    await teams.setAgentState(runId, 'coder', 'failed', 'claude: "claude" was not found on PATH. Install it.');
    assert.deepEqual(teams.failingAgents(runId), [{ agent: 'coder', error: 'claude: "claude" was not found on PATH. Install it.' }]);
    assert.deepEqual(baton.listExecutions({}).find((e) => e.execution_id === runId)?.failing_agents, [{ agent: 'coder', error: 'claude: "claude" was not found on PATH. Install it.' }]);
    await teams.setAgentState(runId, 'coder', 'idle');
    assert.deepEqual(teams.failingAgents(runId), []);
    assert.equal(baton.listExecutions({}).find((e) => e.execution_id === runId)?.failing_agents, undefined);
  });

  it('finish cancelled: failed to the state machine with the cancelled mark and its reason, in the listing and the event', async () => {
    const { baton, store, teams, runId } = await team();
    await teams.finish(runId, 'cancelled', 'stopped by baton stop @pr-1');
    const exec = store.get<{ status: string; metadata: string }>('SELECT status, metadata FROM executions WHERE execution_id = ?', [runId])!;
    assert.equal(exec.status, 'failed');
    assert.equal((JSON.parse(exec.metadata) as { cancelled?: { reason: string } }).cancelled?.reason, 'stopped by baton stop @pr-1');
    assert.equal(teams.list()[0]?.cancelled, true);
    assert.equal(baton.listExecutions().find((e) => e.execution_id === runId)?.cancelled, true, 'baton status and the views say "cancelled"');
    const event = store.get<{ event_data: string }>("SELECT event_data FROM events WHERE execution_id = ? AND event_type = 'team_finished'", [runId])!;
    assert.deepEqual(JSON.parse(event.event_data), { status: 'failed', cancelled: true, reason: 'stopped by baton stop @pr-1' });
    assert.ok(teams.agents(runId).every((a) => a.state === 'stopped'));
  });

  it('finish failed keeps its error in the event; completed says only its status', async () => {
    const a = await team();
    await a.teams.finish(a.runId, 'failed', 'the kickoff could not be posted: disk full');
    const data = (t: typeof a) => JSON.parse(t.store.get<{ event_data: string }>("SELECT event_data FROM events WHERE execution_id = ? AND event_type = 'team_finished'", [t.runId])!.event_data) as unknown;
    assert.deepEqual(data(a), { status: 'failed', error: 'the kickoff could not be posted: disk full' });
    assert.equal(a.teams.list()[0]?.cancelled, false);
    const b = await team();
    await b.teams.finish(b.runId, 'completed');
    assert.deepEqual(data(b), { status: 'completed' });
  });

  it('catches up entries another writer added to the context', async () => {
    const { teams, runId, raw, provider } = await team();
    await provider.appendChannel('system', 'recorded');
    await raw.appendChannel('user', 'written by `baton send` in another process');
    assert.equal(await teams.sync(runId), 1);
    assert.deepEqual(teams.channel(runId).map((e) => e.from), ['system', 'user']);
    assert.equal(await teams.sync(runId), 0);
  });

  it('runs an instance once at a time, and finish ends and detaches it', async () => {
    const { teams, runId, store } = await team();
    await assert.rejects(teams.start({ workflow: 'review', instance: 'pr-1', agents: [] }), (ex: unknown) => BatonError.is(ex, 'invalid_state') && /already running.*baton stop @pr-1/.test(ex.message));
    await teams.finish(runId, 'completed');
    assert.equal(teams.get(runId), undefined);
    assert.equal(store.get<{ status: string }>('SELECT status FROM executions WHERE execution_id = ?', [runId])?.status, 'completed');
    assert.ok(teams.agents(runId).every((a) => a.state === 'stopped'));
    await teams.finish(runId, 'failed');
    assert.equal(store.get<{ status: string }>('SELECT status FROM executions WHERE execution_id = ?', [runId])?.status, 'completed', 'finishing twice changes nothing');
    const again = await teams.start({ workflow: 'review', instance: 'pr-1', agents: [] });
    assert.equal(teams.list().find((t) => t.runId === runId)?.cancelled, false);
    assert.notEqual(again, runId);
    assert.deepEqual(teams.list({ activeOnly: true }).map((t) => t.runId), [again]);
    assert.throws(() => teams.attach('nope', new MemoryContextProvider({ agents: [] })), (ex: unknown) => BatonError.is(ex, 'execution_not_found'));
  });
});

contextProviderSuite('recording provider', async (o) => {
  const made = await makeBaton();
  const teams = teamHost(made.baton)!.teams;
  const runId = await teams.start({ workflow: 'suite', instance: `i-${Math.random().toString(36).slice(2)}`, agents: o.agents.map((name) => ({ name, backend: 'command' })) });
  return teams.attach(runId, new MemoryContextProvider(o));
});

describe('recording failures', () => {
  it('are logged and never fail the channel write', async () => {
    const errors: string[] = [];
    const log: Log = { debug() {}, info() {}, warn() {}, error: (m: string) => void errors.push(m) };
    const broken = { record: async () => { throw new Error('disk full'); }, recordAck: async () => { throw new Error('disk full'); } } as unknown as TeamRuns;
    const inner = new MemoryContextProvider({ agents: ['coder'] });
    const p = new RecordingContextProvider(inner, broken, 'run-x', log);
    const e = await p.appendChannel('system', '@coder hi');
    await p.ackInbox('coder', e.timestamp);
    assert.deepEqual(await inner.readChannel(), [e]);
    assert.deepEqual(errors, ['recording a channel entry of team run run-x failed', 'recording a read cursor of team run run-x failed']);
  });
});
