// The teams a database owner runs: `baton run|start` start them here (or ask the live owner to), and `baton
// stop|list|send|peek` reach them through the owner's control endpoint. Each instance: parse → setup tasks → context
// provider → its registration for the `context` tools → kickoff from 'system' → the team loop (teamRunner.ts), its
// agents reaching Baton's endpoint with a token each.
import { basename, resolve } from 'node:path';
import { BatonError } from '../../core/errors.js';
import type { Log } from '../../core/ports.js';
import type { McpEndpoint, RunScope } from '../../core/pipelines/runner.js';
import type { BatonApi } from '../../core/api.js';
import { teamHost } from '../../core/worker/host.js';
import type { TeamRuns, TeamRunSummary } from '../../core/worker/teamRuns.js';
import { TeamRunner, type AgentState, type TeamEnd, type TeamEvent } from '../../core/worker/teamRunner.js';
import type { AgentDefinition, ChannelEntry, ContextProvider, WorkflowFile } from '../../core/worker/types.js';
import { checkInstanceName, DEFAULT_INSTANCE, interpolate, workflowVariables } from '../../core/worker/workflowVariables.js';
import { invokeTeamAgent } from './teamInvoker.js';
import { ProjectMcpConfig } from './projectMcpConfig.js';
import { runSetup } from './setupTasks.js';
import { parseTarget } from './teamTarget.js';
import { createTeamContext, instanceContext, loadWorkflowFile } from './openContext.js';

/** The part of the owner's endpoint teams use. */
export interface TeamEndpoint {
  url: string;
  issueRunToken(scope: RunScope): { token: string; revoke(): void };
}

/** Options of the owner's teams. */
export interface TeamsOptions {
  /** The owner's core: team runs are recorded in its database, and its `context` tools find the providers there. */
  baton: BatonApi;
  endpoint: TeamEndpoint;
  /** Baton's data folder (beside the database): the MCP restore journal lives there. */
  dataDir: string;
  log: Log;
}

/** How to start an instance. */
export interface TeamStart {
  /** The workflow file (absolute, or relative to `cwd`). */
  file: string;
  /** The workflow itself (a standalone agent's), instead of reading `file`; `file` is then only its label. */
  workflow?: WorkflowFile;
  instance?: string;
  mode: 'run' | 'start';
  /** The agents' (and setup commands') project folder. */
  cwd: string;
  maxInvocations?: number;
  /** Environment for `${{ env.* }}` and the setup commands (the caller's). */
  env?: Record<string, string>;
  /** Hears every event of the instance from the start. */
  onEvent?: (event: TeamEvent) => void;
}

/** One line of `baton list`. */
export interface AgentListing {
  name: string;
  source: string;
  status: AgentState;
  instance: string;
  /** Why its last turn failed (status `failed`); absent from an older owner. */
  error?: string;
}

/** A running (or ended) team instance. */
export interface TeamInstance {
  /** The team run (an execution of kind 'worker'). */
  runId: string;
  instance: string;
  workflow: string;
  source: string;
  runner: TeamRunner;
  provider: ContextProvider;
  /** Every event so far (channel, agents, end), for followers in other processes. */
  events: TeamEvent[];
  /** Events dropped from the front of `events` (it keeps the newest EVENT_KEEP). */
  dropped: number;
  listeners: Set<(event: TeamEvent) => void>;
  end: TeamEnd | null;
  /** Settles once the team has ended and its outcome is recorded in the database. */
  recorded: Promise<void>;
  /** Adds an agent to the running team (a standalone agent joining its channel). */
  join(name: string, def: AgentDefinition): void;
  /** Starts the loop (after the kickoff is posted). */
  begin(): void;
}

const EVENT_KEEP = 5000;
/** The source shown for standalone agents. */
export const STANDALONE = '(standalone)';

/** The teams of one owner process. */
export class Teams {
  private readonly instances = new Map<string, TeamInstance>();
  private readonly projectConfig: ProjectMcpConfig;

  private readonly runs: TeamRuns;
  private stalePass: Promise<void> = Promise.resolve();

  constructor(private readonly options: TeamsOptions) {
    const host = teamHost(options.baton);
    if (!host) throw new Error('this core does not serve team runs');
    this.runs = host.teams;
    this.projectConfig = new ProjectMcpConfig(resolve(options.dataDir, 'team-mcp-restore'), options.log);
    for (const path of this.projectConfig.recover()) options.log.warn(`restored ${path} (a team's MCP entry left by a process that died)`);
    // The owner that ran them was killed (kill -9, a crash): their agents live on in their own process groups, so the
    // next owner stops them at once, not only when it next starts a team.
    this.endStale().catch((ex: unknown) => options.log.warn('stopping the agents of team runs whose Baton process ended failed', ex));
  }

  /** Starts an instance: setup, provider, kickoff, loop. Rejects (nothing left running) when any of it fails. */
  async start(req: TeamStart): Promise<TeamInstance> {
    const path = req.workflow ? req.file : resolve(req.cwd, req.file);
    const workflow = req.workflow ?? loadWorkflowFile(path);
    const instance = req.instance ?? DEFAULT_INSTANCE;
    checkInstanceName(instance);
    const running = this.instances.get(instance);
    if (running && !running.end) throw new BatonError('invalid_state', `team instance @${instance} is already running (${running.source}); stop it with \`baton stop @${instance}\`, or start this one with --instance NAME`);
    const context = instanceContext(workflow, instance);
    const env = req.env ?? (process.env as Record<string, string>);
    const base = workflowVariables({ workflow: { name: workflow.name! }, instance, context, env });
    const setup = await runSetup(workflow.setup ?? [], { cwd: req.cwd, env, base, expand: interpolate });
    const kickoff = workflow.kickoff === undefined ? undefined : interpolate(workflow.kickoff, { ...base, ...setup }, 'kickoff');
    // Mutable: an agent that joins later (baton new --context) becomes a valid @mention in the providers too.
    const agents = Object.keys(workflow.agents);
    const { provider: raw, dir } = await createTeamContext(context, agents, req.cwd);
    await this.endStale();
    const runId = await this.runs.start({
      workflow: workflow.name!, instance, source: path, contextDir: dir, cwd: req.cwd,
      agents: Object.entries(workflow.agents).map(([name, d]) => ({ name, backend: d.backend ?? 'claude', model: d.model })),
    });
    const provider = this.runs.attach(runId, raw);
    const team = this.launch(runId, workflow, instance, path, provider, req, agents);
    try {
      if (kickoff !== undefined && kickoff.trim()) await provider.appendChannel('system', kickoff);
    } catch (ex) {
      team.runner.fail(`the kickoff could not be posted: ${(ex as Error).message}`);
      throw ex;
    }
    team.begin();
    return team;
  }

  /**
   * Team runs the database shows running that no process runs any more (teams run only in the owner: this one): the
   * agents their process left running are stopped (before this team's agents start beside them), and they end. One
   * pass at a time: the pass a new owner begins with and a team start's must not stop the same agents twice.
   */
  private endStale(): Promise<void> {
    const pass = this.stalePass.then(async () => {
      const live = new Set([...this.instances.values()].filter((t) => !t.end).map((t) => t.runId));
      await endDeadTeamRuns(this.runs, (run) => !live.has(run.runId), 'failed', 'the Baton process that ran it ended while it ran', this.options.log);
    });
    this.stalePass = pass.catch(() => undefined);
    return pass;
  }

  private launch(runId: string, workflow: WorkflowFile, instance: string, path: string, provider: ContextProvider, req: TeamStart, agentNames: string[]): TeamInstance {
    const tokens = new Map<string, { token: string; revoke(): void }>();
    const endpointOf = (agent: string): McpEndpoint => {
      let t = tokens.get(agent);
      if (!t) tokens.set(agent, (t = this.options.endpoint.issueRunToken({ runId, agent, toolGroups: ['context'] })));
      return { url: this.options.endpoint.url, token: t.token };
    };
    const listeners = new Set<(event: TeamEvent) => void>(req.onEvent ? [req.onEvent] : []);
    const events: TeamEvent[] = [];
    const defs: Record<string, AgentDefinition> = { ...workflow.agents };
    const runner = new TeamRunner({
      workflow: workflow.name!, instance, provider, mode: req.mode, maxInvocations: req.maxInvocations,
      agents: Object.fromEntries(Object.entries(defs).map(([name, d]) => [name, d.system_prompt])),
      invoke: (agent, request) => invokeTeamAgent(agent, defs[agent]!, request, {
        instance, cwd: req.cwd, endpoint: endpointOf(agent), projectConfig: this.projectConfig,
        track: (kind) => this.runs.trackTurn(runId, agent, kind),
      }),
      onEvent: (event) => {
        this.recordState(runId, event, 'agent' in event ? runner.states()[event.agent] : undefined);
        events.push(event);
        if (events.length > EVENT_KEEP) team.dropped += events.splice(0, events.length - EVENT_KEEP).length;
        for (const l of listeners) l(event);
      },
      onError: (ex) => this.options.log.error(`team @${instance}`, ex),
    });
    const team: TeamInstance = {
      runId, instance, workflow: workflow.name!, source: req.workflow ? path : basename(path), runner, provider, events, dropped: 0, listeners, end: null,
      recorded: Promise.resolve(),
      begin: () => undefined,
      join: (name, def) => {
        if (name in defs) throw new BatonError('invalid_state', `@${instance} already has an agent ${name}; pick another NAME`);
        defs[name] = def;
        agentNames.push(name);
        runner.addAgent(name, def.system_prompt);
      },
    };
    this.instances.set(instance, team);
    let poll: ReturnType<typeof setInterval> | undefined;
    // Only once the kickoff is in: a `run` whose first look finds no unread mention ends at once.
    team.begin = () => {
      // Entries written to the context by other processes (a person editing channel.md): recorded, and they wake agents.
      poll = setInterval(() => {
        void this.runs.sync(runId).catch(() => undefined);
        runner.notify();
      }, 1000);
      runner.notify();
    };
    team.recorded = runner.done.then(async (end) => {
      team.end = end;
      clearInterval(poll);
      for (const t of tokens.values()) t.revoke();
      await this.runs.sync(runId).catch(() => undefined);
      // Stopped before the agents were done (by a person, or by the owner's shutdown) is cancelled, not completed; idle
      // after a failed turn is failed, as `baton run` exits 1 for it.
      const failedTurns = end.reason === 'idle' && end.failures > 0;
      const outcome = end.reason === 'idle' && !failedTurns ? 'completed' : end.reason === 'stopped' ? 'cancelled' : 'failed';
      const why = failedTurns ? `${end.failures} agent turn${end.failures === 1 ? '' : 's'} failed; ${end.message}` : end.message;
      await this.runs.finish(runId, outcome, outcome === 'completed' ? undefined : why).catch((ex: unknown) => this.options.log.error(`recording the end of team @${instance}`, ex));
    });
    return team;
  }

  /** `now`: the agent's state in the runner after the event (a turn Baton stopped left it stopped, not failed). */
  private recordState(runId: string, event: TeamEvent, now: AgentState | undefined): void {
    const finished = now === 'stopped' ? 'stopped' : event.type === 'agent_finished' && event.status === 'completed' ? 'idle' : 'failed';
    const state = event.type === 'agent_started' ? 'running' : event.type === 'agent_finished' ? finished : null;
    if (state && 'agent' in event) void this.runs.setAgentState(runId, event.agent, state, event.type === 'agent_finished' ? event.error : null).catch((ex: unknown) => this.options.log.warn('recording an agent state failed', ex));
    // Its reason, where the person looks (the editor's output channel, the owner's stderr): the state only says failed.
    if (event.type === 'agent_finished' && event.status !== 'completed') this.options.log.info(`team ${runId}: @${event.agent} ${event.status}: ${event.error ?? 'no reason given'}`);
  }

  /**
   * A standalone agent: with `context`, it joins that running instance (its channel, documents and @mentions);
   * without, it runs alone as instance NAME (`NAME@NAME`, listed as standalone) with its own context, until stopped.
   */
  async newAgent(req: { name: string; def: AgentDefinition; context?: string; cwd: string }): Promise<string> {
    if (!/^[a-zA-Z][a-zA-Z0-9_-]*$/.test(req.name) || ['system', 'user', 'all'].includes(req.name)) {
      throw new BatonError('invalid_input', `'${req.name}' is not a valid agent name: a letter, then letters, digits, '_' or '-' (not system, user or all)`);
    }
    if (req.context !== undefined) {
      const team = this.get(req.context);
      if (team.end) throw new BatonError('invalid_state', `team instance @${req.context} has ended (${team.end.reason})`);
      team.join(req.name, req.def);
      await this.runs.addAgent(team.runId, { name: req.name, backend: req.def.backend ?? 'claude', model: req.def.model });
      return `${req.name}@${req.context}`;
    }
    // A standalone agent is an instance of its own name: a name taken is refused in the terms of `new` (no --instance).
    const taken = this.instances.get(req.name);
    if (taken && !taken.end) {
      throw new BatonError('invalid_state', taken.source === STANDALONE
        ? `standalone agent ${req.name} is already running; stop it with \`baton stop ${req.name}\`, or pick another NAME`
        : `'${req.name}' is the name of a running team instance (@${req.name}, ${taken.source}); a standalone agent runs as an instance of its own name, so pick another NAME (or join that team with --context @${req.name})`);
    }
    const team = await this.start({ file: STANDALONE, workflow: { name: req.name, agents: { [req.name]: req.def } }, instance: req.name, mode: 'start', cwd: req.cwd });
    return `${req.name}@${team.instance}`;
  }

  /** The instance named `name`; a BatonError naming the running ones otherwise. */
  get(name: string): TeamInstance {
    const team = this.instances.get(name);
    if (!team) throw new BatonError('not_found', `no team instance @${name}; running: ${this.names().map((n) => `@${n}`).join(', ') || 'none'} (see \`baton list\`)`);
    return team;
  }

  /** The instance of a target; a missing `NAME@NAME` (the CLI passes a standalone agent NAME so) is named as NAME. */
  private targetInstance(agent: string | null, instance: string): TeamInstance {
    const team = this.instances.get(instance);
    // `baton stop x1` for the team instance @x1: the CLI passed it as the standalone agent x1@x1.
    if (team && agent === instance && team.source !== STANDALONE && !(agent in team.runner.states())) {
      const agents = Object.keys(team.runner.states()).map((a) => `${a}@${instance}`).join(', ');
      throw new BatonError('not_found', `${agent} is a team instance, not a standalone agent: name the whole team @${instance}, or one of its agents (${agents})`);
    }
    if (agent !== instance || team) return this.get(instance);
    const running = this.names().map((n) => `@${n}`).join(', ') || 'none';
    throw new BatonError('not_found', `no standalone agent ${agent} (nor a team instance @${instance}); running: ${running} (see \`baton list\`; a team's agent is agent@instance)`);
  }

  /** Instance names, running ones first. */
  names(): string[] {
    return [...this.instances.values()].sort((a, b) => Number(a.end !== null) - Number(b.end !== null)).map((t) => t.instance);
  }

  /** The instances still running. */
  running(): string[] {
    return [...this.instances.values()].filter((t) => !t.end).map((t) => t.instance);
  }

  /** Every agent of every running instance. */
  list(): AgentListing[] {
    return [...this.instances.values()].filter((t) => !t.end).flatMap((t) =>
      Object.entries(t.runner.states()).map(([agent, status]) => {
        const error = status === 'failed' ? t.runner.lastError(agent) : undefined;
        return { name: `${agent}@${t.instance}`, source: t.source, status, instance: t.instance, ...(error !== undefined ? { error } : {}) };
      }));
  }

  /**
   * Stops `agent@instance`, `@instance` or (target undefined) everything; the names stopped. `reason`: why a whole
   * team stops, when not `baton stop` (a following `baton run`'s Ctrl-C).
   */
  stop(target: string | undefined, reason?: string): string[] {
    if (target === undefined) {
      const all = [...this.instances.values()].filter((t) => !t.end);
      for (const t of all) t.runner.stop(reason ?? 'stopped by baton stop --all');
      return all.map((t) => `@${t.instance}`);
    }
    const { agent, instance } = parseTarget(target);
    const team = this.targetInstance(agent, instance);
    if (team.end) throw new BatonError('invalid_state', `team instance @${instance} has already ended (${team.end.reason})`);
    if (agent === null) {
      team.runner.stop(reason ?? `stopped by baton stop @${instance}`);
      return [`@${instance}`];
    }
    if (!(agent in team.runner.states())) throw new BatonError('not_found', `no agent ${agent} in @${instance}; its agents: ${Object.keys(team.runner.states()).join(', ')}`);
    team.runner.stopAgent(agent);
    return [`${agent}@${instance}`];
  }

  /** Posts a person's message to an instance's channel (mentioning the agent when `to` names one). */
  async send(message: string, to: string, from = 'user'): Promise<ChannelEntry> {
    const { agent, instance } = parseTarget(to);
    const team = this.targetInstance(agent, instance);
    if (team.end) throw new BatonError('invalid_state', `team instance @${instance} has ended (${team.end.reason}); start it again with \`baton start FILE --instance ${instance}\``);
    if (agent !== null && !(agent in team.runner.states())) throw new BatonError('not_found', `no agent ${agent} in @${instance}; its agents: ${Object.keys(team.runner.states()).join(', ')}`);
    // A stopped agent never wakes again: the message would be posted for nobody to read.
    if (agent !== null && team.runner.states()[agent] === 'stopped') {
      throw new BatonError('invalid_state', `${agent}@${instance} was stopped and takes no more turns, so nothing was sent; post to the whole team with --to @${instance}, or start the team again (baton stop @${instance}, then baton start FILE --instance ${instance})`);
    }
    const text = agent !== null && !new RegExp(`@${agent}(?![A-Za-z0-9_-])`).test(message) ? `@${agent} ${message}` : message;
    const entry = await team.provider.appendChannel(from, text);
    team.runner.notify();
    return entry;
  }

  /** An instance's channel, entry-point document and agents. */
  async peek(name?: string): Promise<{ instance: string; channel: ChannelEntry[]; document: string; agents: Record<string, AgentState>; end: TeamEnd | null }> {
    const team = this.get(name ?? this.names()[0] ?? DEFAULT_INSTANCE);
    return { instance: team.instance, channel: await team.provider.readChannel(), document: await team.provider.readDocument(), agents: team.runner.states(), end: team.end };
  }

  /**
   * Stops every team and restores the project files (owner shutdown); settles once every team's end is in the
   * database, that of a team that ended just before too (its `end` is set before its outcome is written), so that the
   * database is not closed under that write.
   */
  async closeAll(): Promise<void> {
    const all = [...this.instances.values()];
    for (const t of all) if (!t.end) t.runner.stop('Baton is shutting down');
    await Promise.all(all.map((t) => t.recorded));
    this.projectConfig.releaseAll();
  }
}

/**
 * Ends the team runs `pick` chooses among those the database shows running, which the caller knows no process runs
 * (it owns the database and runs none of them): the agents their dead process left running are stopped first, each
 * whole process group (a live one that cannot be proved to be the agent is only named, with the command to stop it).
 */
export async function endDeadTeamRuns(
  runs: TeamRuns, pick: (run: TeamRunSummary) => boolean, outcome: 'failed' | 'cancelled', reason: string, log: Log,
): Promise<TeamRunSummary[]> {
  const ended: TeamRunSummary[] = [];
  for (const run of runs.list({ activeOnly: true, limit: 10_000 }).filter(pick)) {
    for (const left of await runs.stopLeftovers(run.runId)) {
      if (left.outcome === 'stopped') log.warn(`team @${run.instance}: ${left.message}`);
      if (left.outcome === 'forgotten') log.warn(`team @${run.instance}: ${left.message}; stop it by hand if it is (kill -TERM -- -${left.record.pgid})`);
    }
    await runs.finish(run.runId, outcome, reason);
    ended.push(run);
  }
  return ended;
}

const TEAMS = new WeakMap<object, Teams>();

/** Gives an owner's core its teams (done once by the owner when its endpoint is up). */
export function attachTeams(baton: object, options: TeamsOptions): Teams {
  const teams = new Teams(options);
  TEAMS.set(baton, teams);
  return teams;
}

/** The teams of the owner whose core is `baton`; a BatonError when this process runs none. */
export function teamsOf(baton: object): Teams {
  const teams = TEAMS.get(baton);
  if (!teams) throw new BatonError('invalid_state', 'this Baton process does not run agent teams');
  return teams;
}
