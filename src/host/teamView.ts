// A team run as the editor shows it (panel and tree), read from the owner's core: its recorded channel, its agents
// with their unread @mentions and state, its documents (the served provider's, or the files left in its context
// directory once it ended). Serves the editor that owns the database and the `team_view` control op.
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { BatonError } from '../core/errors.js';
import { deriveInbox } from '../core/worker/mentions.js';
import type { TeamRuns, TeamRunSummary } from '../core/worker/teamRuns.js';
import { statusText } from '../shared/labels.js';
import type { PanelTeam, PanelTeamDocument } from '../shared/protocol.js';

/** Channel entries the view carries (the newest). */
export const TEAM_VIEW_MESSAGES = 200;
const MAX_DOCUMENTS = 200;

/** The summary of team run `runId`; `execution_not_found` when it is not one. */
export function teamRunSummary(runs: TeamRuns, runId: string): TeamRunSummary {
  const found = runs.summary(runId);
  if (!found) throw new BatonError('execution_not_found', `no team run ${runId}; Baton's tree (or \`baton list\`) shows the team runs`);
  return found;
}

/** The documents of an ended file-context team: the files under its context directory, as the provider lists them. */
export function documentsOnDisk(dir: string, channel = 'channel.md'): string[] {
  const found: string[] = [];
  const walk = (at: string): void => {
    let entries;
    try {
      entries = readdirSync(at, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of entries) {
      if (d.name.startsWith('.baton-') || found.length >= MAX_DOCUMENTS) continue;
      const full = join(at, d.name);
      const rel = relative(dir, full).split(sep).join('/');
      if (d.isDirectory()) walk(full);
      else if (d.isFile() && rel !== channel) found.push(rel);
    }
  };
  walk(dir);
  return found.sort();
}

/** The panel's view of team run `runId`. */
export async function buildTeamView(runs: TeamRuns, runId: string): Promise<PanelTeam> {
  const run = teamRunSummary(runs, runId);
  const channel = runs.channel(runId, undefined, TEAM_VIEW_MESSAGES);
  const served = runs.get(runId);
  const names = served ? await served.provider.listDocuments() : run.contextDir ? documentsOnDisk(run.contextDir) : [];
  const documents: PanelTeamDocument[] = names.map((name) => ({ name, path: run.contextDir ? join(run.contextDir, ...name.split('/')) : null }));
  const agents = run.agents.map((a) => ({
    name: a.agent, backend: a.backend, model: a.model, state: a.state,
    unread: deriveInbox(channel, a.agent, a.readCursor ?? undefined).length,
  }));
  return {
    instance: run.instance, workflow: run.workflow, status: statusText(run.status, run.cancelled), source: run.source, contextDir: run.contextDir,
    agents, working: agents.filter((a) => a.state === 'running').map((a) => a.name),
    channel: channel.map((e) => ({ from: e.from, timestamp: e.timestamp, message: e.message, mentions: e.mentions })),
    documents, canSend: run.status === 'running' && served !== undefined,
  };
}
