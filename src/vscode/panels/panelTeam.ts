// The panel's team section behaviour without the editor: reads an agent team run's view (channel, agents, unread
// counts, documents), posts a person's message to its channel as 'user' (the path `baton send` takes), and opens a
// document the panel lists (by name: the webview never hands a path to open), and stops the team or one of its agents
// once the person confirms (the path `baton stop` takes). No 'vscode' import.
import { BatonError } from '../../core/errors.js';
import type { PanelTeam, PanelTeamDocument } from '../../shared/protocol.js';
import type { TeamSource } from '../teams/teamSource.js';

/** How a panel reaches team runs and opens their documents. */
export interface PanelTeams {
  source(): Promise<TeamSource>;
  /** Opens a document in an editor tab: its file when it has one, else `read()`'s text. */
  openDocument(doc: PanelTeamDocument, read: () => Promise<string>): Promise<unknown>;
  /** Asks the person (a modal) whether to stop `agent@instance`, or the whole instance when agent is null. */
  confirmStop(instance: string, agent: string | null): Promise<boolean>;
}

/** One panel's team part: whether its execution is a team run, and its latest view. */
export class PanelTeamPart {
  /** Whether the execution is a team run (unknown until first read). */
  private isTeam: boolean | undefined;
  private last: PanelTeam | null = null;

  constructor(private readonly teams: PanelTeams | undefined) {}

  /** The team view of `executionId`; null when it is not a team run (or this editor serves no teams). */
  async load(executionId: string): Promise<PanelTeam | null> {
    if (!this.teams || this.isTeam === false) return null;
    try {
      this.last = await (await this.teams.source()).view(executionId);
      this.isTeam = true;
      return this.last;
    } catch (ex) {
      if (!BatonError.is(ex, 'execution_not_found') || this.isTeam) throw ex;
      this.isTeam = false;
      return null;
    }
  }

  /** Posts `message` to the team's channel as 'user'; the error to show when it cannot. */
  async send(executionId: string, message: string): Promise<void> {
    const team = await this.current(executionId);
    if (!team.canSend) throw new BatonError('invalid_state', `team @${team.instance} is ${team.status}: start it again to post to its channel`);
    await (await this.teams!.source()).send(message, team.instance);
  }

  /** Stops the team shown (agent null) or one of its agents, once the person confirms; false when they decline. */
  async stop(executionId: string, agent: string | null): Promise<boolean> {
    const team = await this.current(executionId);
    if (!team.canSend) throw new BatonError('invalid_state', `team @${team.instance} is ${team.status}: there is nothing to stop`);
    if (agent !== null && !team.agents.some((a) => a.name === agent)) {
      throw new BatonError('not_found', `no agent ${agent} in @${team.instance}; its agents: ${team.agents.map((a) => a.name).join(', ')}`);
    }
    if (!(await this.teams!.confirmStop(team.instance, agent))) return false;
    await (await this.teams!.source()).stop(agent === null ? `@${team.instance}` : `${agent}@${team.instance}`);
    return true;
  }

  /** Opens the document named `name` of the team shown. */
  async open(executionId: string, name: string): Promise<void> {
    const team = await this.current(executionId);
    const doc = team.documents.find((d) => d.name === name);
    if (!doc) throw new BatonError('not_found', `team @${team.instance} has no document ${name}; its documents: ${team.documents.map((d) => d.name).join(', ') || 'none'}`);
    const source = await this.teams!.source();
    await this.teams!.openDocument(doc, () => source.readDocument(executionId, doc.name));
  }

  private async current(executionId: string): Promise<PanelTeam> {
    const team = this.last ?? (await this.load(executionId));
    if (!team) throw new BatonError('invalid_state', `execution ${executionId} is not an agent team run`);
    return team;
  }
}
