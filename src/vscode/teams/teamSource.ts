// Agent team runs as the editor reaches them: in its own process when it owns the database (the owner runs teams, so
// `baton start` in a terminal starts them here too), else through the owner's /control endpoint, the way the `baton`
// team commands do (team_start, team_send, team_stop, team_runs, team_view). No 'vscode' import.
import type { TeamRuns, TeamRunSummary } from '../../core/worker/teamRuns.js';
import type { ChannelEntry } from '../../core/worker/types.js';
import type { ControlRequest } from '../../host/ownerServer.js';
import { buildTeamView } from '../../host/teamView.js';
import type { Teams } from '../../host/worker/teams.js';
import type { PanelTeam } from '../../shared/protocol.js';
import type { OwnerControl } from '../remoteSource.js';

/** What an editor start asks for. */
export interface TeamLaunch {
  /** The workflow file (absolute). */
  file: string;
  instance: string;
  /** The agents' project folder (the workspace). */
  cwd: string;
}

/** Team runs for the editor's command, panel and tree. */
export interface TeamSource {
  /** Whether the teams run in this process. */
  readonly local: boolean;
  /** Team runs, newest first; `agentLimit`: at most that many agents each (working first; `agentCount` counts all). */
  runs(opts?: { agentLimit?: number }): Promise<TeamRunSummary[]>;
  view(runId: string): Promise<PanelTeam>;
  /** Starts an instance that keeps running (people and agents post until it is stopped); answers with its run id. */
  start(launch: TeamLaunch): Promise<string>;
  /** Posts a person's message (as 'user') to an instance's channel, like `baton send`. */
  send(message: string, instance: string): Promise<ChannelEntry>;
  /** Stops `@instance` (its working agents are killed) or `agent@instance`, like `baton stop`; answers with what stopped. */
  stop(target: string): Promise<string[]>;
  /** A document's text, for documents no file holds (a memory context). */
  readDocument(runId: string, name: string): Promise<string>;
}

/** The editor owns the database: its Teams run the instances. */
export class LocalTeams implements TeamSource {
  readonly local = true;

  constructor(private readonly runsOf: TeamRuns, private readonly teams: Teams) {}

  async runs(opts: { agentLimit?: number } = {}): Promise<TeamRunSummary[]> {
    return this.runsOf.list({ agentLimit: opts.agentLimit });
  }

  view(runId: string): Promise<PanelTeam> {
    return buildTeamView(this.runsOf, runId);
  }

  async start(launch: TeamLaunch): Promise<string> {
    const team = await this.teams.start({ file: launch.file, instance: launch.instance, mode: 'start', cwd: launch.cwd });
    return team.runId;
  }

  send(message: string, instance: string): Promise<ChannelEntry> {
    return this.teams.send(message, `@${instance}`);
  }

  async stop(target: string): Promise<string[]> {
    return this.teams.stop(target);
  }

  async readDocument(runId: string, name: string): Promise<string> {
    const served = this.runsOf.get(runId);
    if (!served) throw new Error(`team run ${runId} has ended; its in-memory documents ended with it`);
    return served.provider.readDocument(name);
  }
}

/**
 * A terminal Baton owns the database: teams start and are read there, through the window's watched connection to it
 * (a call waiting on an owner found silent fails then, in the window's words).
 */
export class RemoteTeams implements TeamSource {
  readonly local = false;

  constructor(private readonly owner: OwnerControl) {}

  private async result<T>(request: ControlRequest, timeoutMs?: number): Promise<T> {
    return ((await this.owner.control(request, timeoutMs)) as { result: T }).result;
  }

  runs(opts: { agentLimit?: number } = {}): Promise<TeamRunSummary[]> {
    // An owner that predates agent_limit ignores it and sends every agent (the tree still shows only the first ones).
    return this.result({ op: 'team_runs', ...(opts.agentLimit !== undefined ? { agent_limit: opts.agentLimit } : {}) });
  }

  view(runId: string): Promise<PanelTeam> {
    return this.result({ op: 'team_view', run_id: runId });
  }

  async start(launch: TeamLaunch): Promise<string> {
    // Setup commands run before the answer: allow them their time.
    const started = await this.result<{ run_id: string }>({ op: 'team_start', file: launch.file, instance: launch.instance, mode: 'start', cwd: launch.cwd }, 5 * 60_000);
    return started.run_id;
  }

  send(message: string, instance: string): Promise<ChannelEntry> {
    return this.result({ op: 'team_send', message, to: `@${instance}` });
  }

  stop(target: string): Promise<string[]> {
    return this.result({ op: 'team_stop', target });
  }

  async readDocument(): Promise<string> {
    throw new Error(`this team's documents are held in memory by Baton process ${this.owner.pid}; read them there with baton peek`);
  }
}
