// Which files start spec workflows in the editor and what the CodeLens over them says. No 'vscode' import
// (unit-tested); specCommands.ts wires it to the editor.
import { isAbsolute, relative, sep } from 'node:path';
import type { SpecSummary } from '../core/specTypes.js';
import { isTasksFile, TASKS_FILE_NAME } from '../core/specs/specWorkflows.js';

/** Every spec tool names its task list `tasks.md`, so the CodeLens selector is that name anywhere and nothing else. */
export { isTasksFile, TASKS_FILE_NAME };
/** The CodeLens document selector's pattern and the picker's search glob. */
export const TASKS_GLOB = `**/${TASKS_FILE_NAME}`;
/** Folders the picker does not search. */
export const TASKS_EXCLUDE = '**/{node_modules,.git,.baton}/**';

/** The path relative to the workspace folder with `/` separators, or undefined when it is not inside it. */
export function workspaceRelative(folder: string, path: string): string | undefined {
  const rel = relative(folder, path);
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

/** One CodeLens over a tasks.md: its title and the command it runs with its argument. */
export interface SpecLens {
  title: string;
  command: 'baton.startSpecWorkflow' | 'baton.showExecution';
  /** The execution id for Show Execution; none for Start (the lens passes the document's URI). */
  executionId?: string;
}

const RUNNING = new Set(['pending', 'running', 'paused', 'timeout', 'escalated', 'awaiting_approval']);

/** The lenses of a tasks.md: its running spec workflow (click to open it) if there is one, else "Start with Baton". */
export function specLenses(specs: SpecSummary[]): SpecLens[] {
  const running = specs.filter((s) => RUNNING.has(s.status));
  if (!running.length) return [{ title: '$(play) Start with Baton', command: 'baton.startSpecWorkflow' }];
  return running.map((s) => ({
    title: s.current_phase === null
      ? `$(pass) Baton: all phases done · ${s.status.replace(/_/g, ' ')}`
      : `$(${s.status === 'awaiting_approval' ? 'bell' : 'sync'}) Baton: Phase ${s.current_phase}/${s.total_phases - 1}${s.status === 'awaiting_approval' ? ' awaiting approval' : ''} · Show`,
    command: 'baton.showExecution',
    executionId: s.execution_id,
  }));
}
