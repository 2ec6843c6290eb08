// Team runs in Baton's database, and the registry the `context` tools find a team's provider in.
//
// A team run is an execution of kind 'worker' (template_name = the workflow's name) with rows in team_runs,
// team_agents and team_messages (migration 006_teams.sql). The team runner:
//   const runId = await teams.start({ workflow, instance, agents, source, contextDir });
//   const provider = teams.attach(runId, rawProvider);   // records every channel entry, ack and document change
//   … agents get run tokens for { runId, agent } (owner.issueRunToken); their `context` tools call teams.get(runId)
//   await teams.finish(runId, 'completed');              // also detaches
// Entries written to the context by another process (`baton send` on a file context) are caught up by sync(runId).
import type { TeamStatusView } from '../api.js';
import { parseJson, type ExecutionRepo } from '../broker/executionRepo.js';
import { executionFacts, withCancelledMark } from '../broker/submittedOutput.js';
import { BatonError } from '../errors.js';
import type { AgentProcesses, LeftoverOutcome, ProcessTrack } from '../pipelines/agentProcesses.js';
import type { CorePorts, SqlValue } from '../ports.js';
import type { BatonEvent, ExecutionStatus } from '../types.js';
import { normalizeTimestamp } from './mentions.js';
import { RecordingContextProvider } from './recordingContextProvider.js';
import type { ChannelEntry, ContextProvider } from './types.js';

/** An agent of a team as the database keeps it. */
export interface TeamAgentRow {
  agent: string;
  backend: string;
  model: string;
  /** 'idle', 'running', 'stopped' or 'failed' (set by the team runner). */
  state: string;
  readCursor: string | null;
}

/** A team run as `baton list` and the faces show it. */
export interface TeamRunSummary {
  runId: string;
  instance: string;
  workflow: string;
  status: ExecutionStatus;
  source: string | null;
  contextDir: string | null;
  startedAt: string;
  agents: TeamAgentRow[];
  /** How many agents the team has (`agents` may hold fewer: see list's agentLimit); absent from an older owner. */
  agentCount?: number;
  messages: number;
  /** Whether it was stopped before its agents were done (its status is then `failed`); absent from an older owner. */
  cancelled?: boolean;
}

/** How many team runs a listing reads unless told. */
export const TEAM_RUNS_LISTED = 100;

type AgentRaw = { agent: string; backend: string; model: string; state: string; read_cursor: string | null };

/** A team whose context is served in this process. */
export interface TeamRegistration {
  runId: string;
  instance: string;
  workflow: string;
  /** The team's agent names (the only valid @mentions). */
  agents: readonly string[];
  /** The recording provider (use it, not the raw one, so that the database sees everything). */
  provider: ContextProvider;
}

/** What TeamRuns needs from the facade. */
export interface TeamDeps {
  ports: CorePorts;
  repo: ExecutionRepo;
  processes: AgentProcesses;
  projectId: () => number;
  emit: (events: BatonEvent[]) => void;
  event: (executionId: string, type: string, data: unknown) => void;
}

/** Team runs: their executions, their recorded channels, and the providers served in this process. */
export class TeamRuns {
  private readonly served = new Map<string, TeamRegistration>();

  constructor(private readonly deps: TeamDeps) {}

  private iso(): string {
    return new Date(this.deps.ports.clock.now()).toISOString();
  }

  /** Creates a team run (an execution of kind 'worker' in `running`); returns its id. */
  async start(opts: {
    workflow: string; instance: string; agents: ReadonlyArray<{ name: string; backend: string; model?: string }>;
    source?: string | null; contextDir?: string | null; cwd?: string;
  }): Promise<string> {
    const running = this.runningInstance(opts.instance);
    if (running) throw new BatonError('invalid_state', `instance ${opts.instance} is already running (run ${running}); stop it with \`baton stop @${opts.instance}\` or pick another --instance`);
    const id = this.deps.ports.ids.uuid();
    const now = this.iso();
    await this.deps.ports.store.transaction(() => {
      this.deps.repo.insertExecution({
        execution_id: id, kind: 'worker', template_id: null, template_name: opts.workflow, task_id: null, project_id: this.deps.projectId(),
        status: 'running', now, metadata: { origin: 'worker', instance: opts.instance, agents: opts.agents.map((a) => a.name), source: opts.source ?? null, cwd: opts.cwd ?? null },
      });
      this.deps.ports.store.run('INSERT INTO team_runs (execution_id, instance, workflow, source, context_dir, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        [id, opts.instance, opts.workflow, opts.source ?? null, opts.contextDir ?? null, now]);
      for (const a of opts.agents) {
        this.deps.ports.store.run('INSERT INTO team_agents (execution_id, agent, backend, model, state, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
          [id, a.name, a.backend, a.model ?? '', 'idle', now]);
      }
      this.deps.event(id, 'team_started', { workflow: opts.workflow, instance: opts.instance, agents: opts.agents.map((a) => a.name) });
    });
    this.deps.emit([{ type: 'execution', execution_id: id, task_id: null, status: 'running' }]);
    return id;
  }

  /** Serves `provider` as run `runId`'s context in this process; returns the recording provider to use. */
  attach(runId: string, provider: ContextProvider): ContextProvider {
    const run = this.run(runId);
    const agents = this.agents(runId).map((a) => a.agent);
    const recording = new RecordingContextProvider(provider, this, runId, this.deps.ports.log);
    this.served.set(runId, { runId, instance: run.instance, workflow: run.workflow, agents, provider: recording });
    return recording;
  }

  /** Stops serving run `runId`'s context in this process. */
  detach(runId: string): void {
    this.served.delete(runId);
  }

  /** The team served as run `runId` in this process, if any. */
  get(runId: string): TeamRegistration | undefined {
    return this.served.get(runId);
  }

  /**
   * Ends a team run and detaches it: completed, failed with an error, or cancelled (stopped by a person or by the
   * owner's shutdown before the agents were done; `reason` says which). A cancelled run is `failed` to the state
   * machine with the mark that makes the views say "cancelled", as a cancelled workflow is.
   */
  async finish(runId: string, outcome: 'completed' | 'failed' | 'cancelled', reason?: string): Promise<void> {
    this.detach(runId);
    const exec = this.deps.repo.execution(runId);
    if (!exec || exec.kind !== 'worker') throw notTeam(runId);
    if (exec.status === 'completed' || exec.status === 'failed') return;
    const now = this.iso();
    const status = outcome === 'completed' ? 'completed' : 'failed';
    const why = outcome === 'cancelled' ? reason ?? 'stopped' : null;
    await this.deps.ports.store.transaction(() => {
      this.deps.repo.updateExecution(runId, {
        status, completed_at: now, duration_ms: Date.parse(now) - Date.parse(exec.started_at),
        ...(why !== null ? { metadata: withCancelledMark(exec.metadata, why, null, now) } : {}),
        ...(outcome === 'failed' && reason ? { error: reason } : {}),
      }, now, exec.status);
      this.deps.ports.store.run("UPDATE team_agents SET state = 'stopped', updated_at = ? WHERE execution_id = ? AND state IN ('idle', 'running')", [now, runId]);
      const said = why !== null ? { cancelled: true, reason: why } : outcome === 'failed' && reason ? { error: reason } : {};
      this.deps.event(runId, 'team_finished', { status, ...said });
    });
    this.deps.emit([{ type: 'execution', execution_id: runId, task_id: null, status }]);
  }

  /** Records the process of one turn of `agent` while it runs (agentProcesses.ts). */
  trackTurn(runId: string, agent: string, runner: string): ProcessTrack | undefined {
    return this.deps.processes.track(runId, agent, agent, runner);
  }

  /**
   * Stops the agents that the process of a run no process serves any more left running; a live one that cannot be
   * proved to be the agent is left alone and forgotten (the run is over: nothing resumes it). What was done with each.
   */
  stopLeftovers(runId: string): Promise<LeftoverOutcome[]> {
    return this.deps.processes.stopLeftovers(runId, 'forget');
  }

  /** Records channel entries (idempotent: an entry already recorded is skipped); returns how many were new. */
  async record(runId: string, entries: readonly ChannelEntry[]): Promise<number> {
    if (entries.length === 0) return 0;
    const now = this.iso();
    const added = await this.deps.ports.store.transaction(() => {
      let n = 0;
      for (const e of entries) {
        const changed = this.deps.ports.store.run('INSERT OR IGNORE INTO team_messages (execution_id, ts, sender, message, mentions, recorded_at) VALUES (?, ?, ?, ?, ?, ?)',
          [runId, e.timestamp, e.from, e.message, JSON.stringify(e.mentions), now]);
        if (changed) this.deps.event(runId, 'channel_message', { from: e.from, timestamp: e.timestamp, mentions: e.mentions });
        n += changed;
      }
      if (n) this.deps.ports.store.run('UPDATE executions SET updated_at = ? WHERE execution_id = ?', [now, runId]);
      return n;
    });
    if (added) this.deps.emit([{ type: 'team', execution_id: runId, what: 'message' }]);
    return added;
  }

  /** Records an agent's read cursor. */
  async recordAck(runId: string, agent: string, cursor: string): Promise<void> {
    const now = this.iso();
    const newest = this.deps.ports.store.get<{ ts: string | null }>('SELECT MAX(ts) AS ts FROM team_messages WHERE execution_id = ?', [runId])?.ts;
    const until = normalizeTimestamp(cursor);
    const capped = newest && until > newest ? newest : until;
    await this.deps.ports.store.transaction(() => {
      // Cursors never move backwards (as in the providers).
      this.deps.ports.store.run('UPDATE team_agents SET read_cursor = ?, updated_at = ? WHERE execution_id = ? AND agent = ? AND (read_cursor IS NULL OR read_cursor < ?)',
        [capped, now, runId, agent, capped]);
      this.deps.event(runId, 'inbox_acked', { agent, until });
    });
    this.deps.emit([{ type: 'team', execution_id: runId, what: 'ack' }]);
  }

  /** Records a document change (`op`: write, append, create, delete) by `agent`. */
  async recordDocument(runId: string, op: string, file: string, bytes: number): Promise<void> {
    await this.deps.ports.store.transaction(() => this.deps.event(runId, 'document_changed', { op, file, bytes }));
    this.deps.emit([{ type: 'team', execution_id: runId, what: 'document' }]);
  }

  /** Records an agent that joins a running team (baton new NAME --context @instance), idle until mentioned. */
  async addAgent(runId: string, agent: { name: string; backend: string; model?: string }): Promise<void> {
    const now = this.iso();
    await this.deps.ports.store.transaction(() => {
      this.deps.ports.store.run('INSERT INTO team_agents (execution_id, agent, backend, model, state, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
        [runId, agent.name, agent.backend, agent.model ?? '', 'idle', now]);
      this.deps.event(runId, 'agent_joined', { agent: agent.name, backend: agent.backend });
    });
    this.deps.emit([{ type: 'team', execution_id: runId, what: 'agent' }]);
  }

  /**
   * Sets an agent's state ('idle', 'running', 'stopped', 'failed'), as the team runner sees it; `error`: why its turn
   * failed (kept in the event, for failingAgents).
   */
  async setAgentState(runId: string, agent: string, state: 'idle' | 'running' | 'stopped' | 'failed', error?: string | null): Promise<void> {
    const now = this.iso();
    const changed = await this.deps.ports.store.transaction(() => {
      const n = this.deps.ports.store.run('UPDATE team_agents SET state = ?, updated_at = ? WHERE execution_id = ? AND agent = ? AND state <> ?', [state, now, runId, agent, state]);
      if (n) this.deps.event(runId, 'agent_state', { agent, state, ...(state === 'failed' && error ? { error } : {}) });
      return n;
    });
    if (changed) this.deps.emit([{ type: 'team', execution_id: runId, what: 'agent' }]);
  }

  /** Records what the served provider of `runId` holds that the database does not (entries other processes wrote). */
  async sync(runId: string): Promise<number> {
    const served = this.served.get(runId);
    if (!served) throw new BatonError('not_found', `team run ${runId} is not served in this process; attach its context first`);
    const last = this.deps.ports.store.get<{ ts: string }>('SELECT MAX(ts) AS ts FROM team_messages WHERE execution_id = ?', [runId])?.ts ?? undefined;
    return this.record(runId, await (served.provider as RecordingContextProvider).inner.readChannel(last ?? undefined));
  }

  /** The recorded channel of a run, oldest first (after `since`, the newest `limit`). */
  channel(runId: string, since?: string, limit = 200): ChannelEntry[] {
    const rows = this.deps.ports.store.all<{ ts: string; sender: string; message: string; mentions: string }>(
      'SELECT ts, sender, message, mentions FROM (SELECT ts, sender, message, mentions FROM team_messages WHERE execution_id = ? AND ts > ? ORDER BY ts DESC LIMIT ?) ORDER BY ts',
      [runId, since ?? '', limit]);
    return rows.map((r) => ({ timestamp: r.ts, from: r.sender, message: r.message, mentions: JSON.parse(r.mentions) as string[] }));
  }

  /**
   * The agents of a run with their state and read cursor, in the order they joined. With `limit`, only that many are
   * read: the working ones first, then the failed, then the others (what a capped list should not leave out).
   */
  agents(runId: string, limit?: number): TeamAgentRow[] {
    const rows = limit === undefined
      ? this.deps.ports.store.all<AgentRaw>('SELECT agent, backend, model, state, read_cursor FROM team_agents WHERE execution_id = ? ORDER BY rowid', [runId])
      : this.deps.ports.store.all<AgentRaw>(
        `SELECT agent, backend, model, state, read_cursor FROM (
           SELECT rowid AS joined, agent, backend, model, state, read_cursor FROM team_agents WHERE execution_id = ?
            ORDER BY CASE state WHEN 'running' THEN 0 WHEN 'failed' THEN 1 ELSE 2 END, rowid LIMIT ?) ORDER BY joined`, [runId, limit]);
    return rows.map((r) => ({ agent: r.agent, backend: r.backend, model: r.model, state: r.state, readCursor: r.read_cursor }));
  }

  /** Team runs, newest first (`activeOnly`: those running; `agentLimit`: at most that many agents read per run). */
  list(opts: { activeOnly?: boolean; limit?: number; agentLimit?: number } = {}): TeamRunSummary[] {
    return this.summaries(opts.activeOnly ? "WHERE e.status = 'running'" : '', [opts.limit ?? TEAM_RUNS_LISTED], opts.agentLimit);
  }

  /** Team run `runId` as `list` gives it, with every agent (undefined when it is not a team run). */
  summary(runId: string): TeamRunSummary | undefined {
    return this.summaries('WHERE t.execution_id = ?', [runId, 1])[0];
  }

  private summaries(where: string, params: SqlValue[], agentLimit?: number): TeamRunSummary[] {
    const rows = this.deps.ports.store.all<{ execution_id: string; instance: string; workflow: string; source: string | null; context_dir: string | null; status: ExecutionStatus; started_at: string; metadata: string; messages: number; agent_count: number }>(
      `SELECT t.execution_id, t.instance, t.workflow, t.source, t.context_dir, e.status, e.started_at, e.metadata,
              (SELECT COUNT(*) FROM team_messages m WHERE m.execution_id = t.execution_id) AS messages,
              (SELECT COUNT(*) FROM team_agents a WHERE a.execution_id = t.execution_id) AS agent_count
         FROM team_runs t JOIN executions e ON e.execution_id = t.execution_id
        ${where} ORDER BY e.started_at DESC, t.rowid DESC LIMIT ?`, params);
    return rows.map((r) => ({
      runId: r.execution_id, instance: r.instance, workflow: r.workflow, status: r.status, source: r.source, contextDir: r.context_dir,
      startedAt: r.started_at, agents: this.agents(r.execution_id, agentLimit), agentCount: r.agent_count, messages: r.messages,
      cancelled: executionFacts({ metadata: parseJson(r.metadata, {}) }).cancelled,
    }));
  }

  /** The team view of workflow-status:// (undefined for an execution that is not a team run). */
  statusView(runId: string): TeamStatusView | undefined {
    const run = this.deps.ports.store.get<{ instance: string; source: string | null; context_dir: string | null }>(
      'SELECT instance, source, context_dir FROM team_runs WHERE execution_id = ?', [runId]);
    if (!run) return undefined;
    const count = (agent: string, cursor: string | null) => this.deps.ports.store.all<{ sender: string; mentions: string }>(
      'SELECT sender, mentions FROM team_messages WHERE execution_id = ? AND ts > ?', [runId, cursor ?? ''],
    ).filter((m) => m.sender !== agent && (JSON.parse(m.mentions) as string[]).includes(agent)).length;
    const messages = this.deps.ports.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM team_messages WHERE execution_id = ?', [runId])?.n ?? 0;
    return {
      instance: run.instance, source: run.source, context_dir: run.context_dir, messages, channel: this.channel(runId, undefined, 50),
      agents: this.agents(runId).map((a) => ({ agent: a.agent, backend: a.backend, model: a.model, state: a.state, read_cursor: a.readCursor, unread: count(a.agent, a.readCursor) })),
    };
  }

  /** The agents of run `runId` whose last turn failed, each with the reason its `agent_state` event kept (or null). */
  failingAgents(runId: string): Array<{ agent: string; error: string | null }> {
    const failing = this.deps.ports.store.all<{ agent: string }>("SELECT agent FROM team_agents WHERE execution_id = ? AND state = 'failed' ORDER BY rowid", [runId]);
    if (failing.length === 0) return [];
    const events = this.deps.ports.store.all<{ event_data: string }>(
      "SELECT event_data FROM events WHERE execution_id = ? AND event_type = 'agent_state' ORDER BY id DESC", [runId])
      .map((e) => parseJson<{ agent?: unknown; state?: unknown; error?: unknown }>(e.event_data, {}));
    return failing.map(({ agent }) => {
      const data = events.find((d) => d.agent === agent && d.state === 'failed');
      return { agent, error: typeof data?.error === 'string' ? data.error : null };
    });
  }

  /** The running run of an instance, if any. */
  runningInstance(instance: string): string | undefined {
    return this.deps.ports.store.get<{ execution_id: string }>(
      "SELECT t.execution_id FROM team_runs t JOIN executions e ON e.execution_id = t.execution_id WHERE t.instance = ? AND e.status = 'running' ORDER BY t.rowid DESC LIMIT 1",
      [instance])?.execution_id;
  }

  private run(runId: string): { instance: string; workflow: string } {
    const row = this.deps.ports.store.get<{ instance: string; workflow: string }>('SELECT instance, workflow FROM team_runs WHERE execution_id = ?', [runId]);
    if (!row) throw notTeam(runId);
    return row;
  }
}

function notTeam(runId: string): BatonError {
  return new BatonError('execution_not_found', `no team run ${runId}; \`baton list\` shows the team runs`);
}
