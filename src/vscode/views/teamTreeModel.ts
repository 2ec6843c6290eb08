// The tree's Agent Teams group as plain data: the team runs (newest first), each with its agents and their states
// (working, idle, stopped, failed), both capped (a node counts the rest). A run opens its panel on click. No 'vscode'.
import type { TeamRunSummary } from '../../core/worker/teamRuns.js';
import { statusText } from '../../shared/labels.js';
import { FINISHED_SHOWN, ICON_COLORS, messageNode, statusIcon, type NodeIcon, type TreeNode } from './treeModel.js';

const DONE = new Set(['completed', 'failed']);

/** How many agents a team run lists (the working ones first, read so from the database); the panel shows them all. */
export const TEAM_AGENTS_SHOWN = 50;

/** The Agent Teams group node; none when there is no team run. */
export function teamsGroupNode(runs: readonly TeamRunSummary[]): TreeNode | null {
  if (!runs.length) return null;
  const active = runs.filter((r) => !DONE.has(r.status)).length;
  return {
    id: 'group:teams', label: 'Agent Teams', description: `${runs.length} run${runs.length === 1 ? '' : 's'}${active ? ` · ${active} running` : ''}`,
    tooltip: 'Teams of agents that talk through a shared channel. Start one with Baton: Run Agent Team (YAML)… or baton start',
    icon: { id: 'organization' }, contextValue: 'group', collapsible: 'expanded', ref: { kind: 'group', group: 'teams' },
  };
}

/** What the run is doing: who works now, else how much was said. */
function runDescription(run: TeamRunSummary): string {
  const working = run.agents.filter((a) => a.state === 'running').map((a) => a.agent);
  if (working.length && !DONE.has(run.status)) return `working: ${working.join(', ')}`;
  return `${run.messages} message${run.messages === 1 ? '' : 's'} · ${run.workflow}`;
}

/**
 * The team runs under the group: every unfinished one, then the newest FINISHED_SHOWN finished ones, then (if there
 * are more, or `more` older runs were not read) a node that opens Show Execution to find the others.
 */
export function teamRunNodes(runs: readonly TeamRunSummary[], more = false): TreeNode[] {
  const finished = runs.filter((r) => DONE.has(r.status));
  const hidden = finished.length - FINISHED_SHOWN;
  const shown = [...runs.filter((r) => !DONE.has(r.status)), ...finished.slice(0, FINISHED_SHOWN)];
  const nodes = shown.map(teamRunNode);
  if (hidden > 0 || (more && finished.length > 0)) {
    const label = hidden > 0 ? `${hidden}${more ? '+' : ''} older finished team ${hidden === 1 && !more ? 'run' : 'runs'}...` : 'Older finished team runs...';
    nodes.push(messageNode('older', label, 'find one with Show Execution', 'teams'));
  }
  return nodes;
}

/** One team run, labelled with its workflow, instance and status. */
function teamRunNode(r: TeamRunSummary): TreeNode {
  return {
    // A finished run gets a new id: the editor keeps the first collapsible state it saw for an id.
    id: `team:${r.runId}${DONE.has(r.status) ? ':done' : ''}`,
    label: `${r.workflow}@${r.instance} · ${statusText(r.status, r.cancelled)}`,
    description: runDescription(r),
    tooltip: `Team run ${r.runId}\nWorkflow ${r.source ?? r.workflow}${r.contextDir ? `\nContext ${r.contextDir}` : ''}\nStarted ${r.startedAt}`,
    icon: statusIcon(r.status, r.cancelled),
    contextValue: `team:${r.status}`,
    collapsible: DONE.has(r.status) ? 'collapsed' : 'expanded',
    ref: { kind: 'execution', execution_id: r.runId, workflow: r.workflow, status: r.status },
    command: { id: 'baton.showExecution', title: 'Show Team' },
  };
}

/** The codicon of an agent's state. */
export function agentStateIcon(state: string): NodeIcon {
  switch (state) {
    case 'running': return { id: 'sync~spin', color: ICON_COLORS.running };
    case 'idle': return { id: 'circle-large-outline' };
    case 'failed': return { id: 'error', color: ICON_COLORS.failed };
    default: return { id: 'debug-stop', color: ICON_COLORS.muted };
  }
}

/**
 * The agents of a team run with their states: at most TEAM_AGENTS_SHOWN (as read: the working first), then a node
 * that counts the others and opens the team's panel, which lists them all.
 */
export function teamAgentNodes(run: TeamRunSummary): TreeNode[] {
  const shown = run.agents.slice(0, TEAM_AGENTS_SHOWN);
  const rest = Math.max(run.agentCount ?? run.agents.length, run.agents.length) - shown.length;
  const nodes: TreeNode[] = shown.map((a) => ({
    id: `team:${run.runId}:agent:${a.agent}`,
    label: `${a.agent} · ${a.state === 'running' ? 'working' : a.state}`,
    description: `${a.backend}${a.model ? ` · ${a.model}` : ''}`,
    tooltip: `${a.agent}@${run.instance}${a.readCursor ? `\nRead up to ${a.readCursor}` : ''}`,
    icon: agentStateIcon(a.state),
    contextValue: 'teamAgent',
    collapsible: 'none',
    ref: { kind: 'teamAgent', execution_id: run.runId, agent: a.agent, state: a.state },
    command: { id: 'baton.showExecution', title: 'Show Team' },
  }));
  if (rest > 0) {
    nodes.push({
      id: `team:${run.runId}:more-agents`, label: `${rest} more ${rest === 1 ? 'agent' : 'agents'}...`, description: 'open the team to see them all',
      tooltip: `${run.workflow}@${run.instance} has ${shown.length + rest} agents; its panel lists them all`,
      icon: { id: 'ellipsis' }, contextValue: 'message', collapsible: 'none',
      // The run's own reference, so the click opens this team's panel (Show Execution reads the run from it).
      ref: { kind: 'execution', execution_id: run.runId, workflow: run.workflow, status: run.status },
      command: { id: 'baton.showExecution', title: 'Show Team' },
    });
  }
  return nodes;
}
