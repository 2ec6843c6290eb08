// What the panel's team section offers to stop: the whole instance while the team runs in its owner, and each agent
// that is working now. Pure, shared by the webview and its tests.
import type { PanelTeam } from './protocol.js';

/** The stop actions the panel shows for `team`. */
export interface TeamStopTargets {
  /** Whether the Stop button (the whole instance, `@instance`) is shown. */
  team: boolean;
  /** The agents with their own stop button (working now, in a running team). */
  agents: string[];
}

/** The stop actions for `team`: none once it has ended (or no process runs it any more). */
export function teamStopTargets(team: PanelTeam): TeamStopTargets {
  if (!team.canSend) return { team: false, agents: [] };
  return { team: true, agents: team.agents.filter((a) => a.state === 'running').map((a) => a.name) };
}

/** The confirmation a person answers before `target` (`@instance` or `agent@instance`) is stopped. */
export function teamStopQuestion(instance: string, agent: string | null): { message: string; detail: string; action: string } {
  if (agent === null) return { message: `Stop team @${instance}?`, detail: 'Agents that are working are killed. The team run ends as stopped; its channel stays readable.', action: 'Stop Team' };
  return { message: `Stop ${agent}@${instance}?`, detail: `${agent} is killed if it is working; the rest of the team keeps running.`, action: 'Stop Agent' };
}
