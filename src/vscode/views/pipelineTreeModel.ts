// The tree's Pipelines group as plain data: the workspace's systems (.baton/pipelines/*.yaml), each with its runs
// (pipeline executions, newest first), and the runs of systems no file holds (started from a blueprint). No 'vscode'.
import type { ExecutionSummary } from '../../core/api.js';
import { executionNodes, ICON_COLORS, type TreeNode } from './treeModel.js';
import { waitsForResume } from '../executionFilters.js';

/** A system file as the tree lists it. */
export interface PipelineFile {
  name: string;
  path: string;
  /** Relative to the workspace, for the description. */
  relPath: string;
  /** The first problem (file:line: message) when the file is not valid. */
  problem: string | null;
}

const DONE = new Set(['completed', 'failed']);

/**
 * `1 running · 2 paused ·` for the runs not finished, or ''. Paused ones, and those the process that drove them left
 * (orphaned), wait for a person to resume them: not running.
 */
function unfinished(runs: ExecutionSummary[], sep: string, trail: boolean): string {
  const paused = runs.filter(waitsForResume).length;
  const running = runs.filter((e) => !DONE.has(e.status) && !waitsForResume(e)).length;
  const parts = [running ? `${running} running` : '', paused ? `${paused} paused` : ''].filter(Boolean);
  return parts.length ? `${trail ? '' : sep}${parts.join(sep)}${trail ? sep : ''}` : '';
}

/** The Pipelines group node; none when there is no system and no run. */
export function pipelinesGroupNode(files: PipelineFile[], executions: ExecutionSummary[]): TreeNode | null {
  const runs = executions.filter((e) => e.kind === 'pipeline');
  if (!files.length && !runs.length) return null;
  const names = new Set([...files.map((f) => f.name), ...runs.map((r) => r.workflow ?? '')]);
  return {
    id: 'group:pipelines', label: 'Pipelines', description: `${names.size} pipeline${names.size === 1 ? '' : 's'}${unfinished(runs, ' · ', false)}`,
    tooltip: 'Systems of agents in .baton/pipelines and their runs. Run one with Baton: Run Pipeline…',
    icon: { id: 'type-hierarchy-sub' }, contextValue: 'group', collapsible: 'expanded', ref: { kind: 'group', group: 'pipelines' },
  };
}

/** One node per system (files first, by name), then one per system that only runs name; each folds onto its runs. */
export function pipelineNodes(files: PipelineFile[], executions: ExecutionSummary[]): TreeNode[] {
  const runs = executions.filter((e) => e.kind === 'pipeline');
  const entries: Array<{ name: string; path: string | null; relPath: string | null; problem: string | null }> =
    [...files].sort((a, b) => a.name.localeCompare(b.name)).map((f) => ({ ...f }));
  for (const r of runs) {
    const name = r.workflow ?? '';
    if (!entries.some((e) => e.name === name)) entries.push({ name, path: null, relPath: null, problem: null });
  }
  return entries.map((e) => {
    const mine = runs.filter((r) => r.workflow === e.name);
    const counts = mine.length ? `${unfinished(mine, ' · ', true)}${mine.length} run${mine.length === 1 ? '' : 's'}` : 'not run yet';
    return {
      // A new id once it has runs: the editor keeps the first collapsible state it saw for an id.
      id: mine.length ? `pipeline:${e.name}` : `pipeline:${e.name}:idle`,
      label: e.name,
      description: e.problem ? 'not valid' : e.relPath ? `${counts} · ${e.relPath}` : counts,
      tooltip: e.problem ?? (e.path ? `${e.path}\nRun it with Baton: Run Pipeline…` : 'Runs of a system no file in .baton/pipelines holds (a blueprint\'s)'),
      icon: e.problem ? { id: 'error', color: ICON_COLORS.error } : { id: 'symbol-structure' },
      contextValue: e.path && !e.problem ? 'pipeline' : 'pipeline:other',
      collapsible: mine.length ? 'expanded' : 'none',
      ref: { kind: 'pipeline', name: e.name, path: e.path },
      // A file that is not valid shows its problem on click (Run Pipeline refuses it with Open File at the line).
      ...(e.problem && e.path ? { command: { id: 'baton.runPipeline', title: 'Show the Problem' } } : {}),
    };
  });
}

/** The runs of one system, as execution nodes (click opens the panel; steps below). */
export function pipelineRunNodes(executions: ExecutionSummary[], name: string, more = false): TreeNode[] {
  return executionNodes(executions, { kind: 'pipeline', name, path: null }, new Set(), more);
}
