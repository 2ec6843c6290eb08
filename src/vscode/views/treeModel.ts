// The Baton tree as plain data: Workflows (templates) › Executions › Steps › Artifacts. No 'vscode' import, so the
// shape, ids, labels, icons and context values are unit-tested; workflowsTreeProvider.ts turns nodes into TreeItems.
import type { ArtifactRecord, AvailableWorkflowsResource, ExecutionSummary, StepStatusView, WorkflowStatusResource } from '../../core/api.js';
import type { Finding } from '../../core/lifecycleTypes.js';
import type { ExecutionStatus, StepStatus, WorkflowTemplate } from '../../core/types.js';
import { budgetReasonText, leftStepText, plural, runName, shownProgress, statusText, taskLabel } from '../../shared/labels.js';

export { statusText };

/**
 * The theme colours of the tree's icons. Two stock colours give a mark under 3:1 against the side bar in the light
 * themes (testing.iconPassed 1.9:1, disabledForeground 1.8-2.1:1), so those two are Baton's own (package.json
 * contributes.colors), which a theme can set and whose defaults name colours that give at least 3:1.
 */
export const ICON_COLORS = {
  running: 'charts.blue',
  attention: 'list.warningForeground',
  passed: 'baton.iconPassed',
  failed: 'testing.iconFailed',
  error: 'list.errorForeground',
  muted: 'baton.iconMuted',
} as const;

/** A codicon and an optional theme colour id. */
export interface NodeIcon {
  id: string;
  color?: string;
}

/** What a node stands for (command handlers read it from the tree item argument). */
export type NodeRef =
  | { kind: 'folder'; name: string }
  | { kind: 'template'; template: string }
  | { kind: 'templateStep'; template: string; step_name: string }
  | { kind: 'group'; group: 'other' | 'pipelines' | 'teams' }
  | { kind: 'teamAgent'; execution_id: string; agent: string; state: string }
  | { kind: 'pipeline'; name: string; /** The system file; null for runs of a system no file holds (a blueprint's). */ path: string | null }
  | { kind: 'execution'; execution_id: string; workflow: string | null; status: ExecutionStatus }
  | { kind: 'step'; execution_id: string; step_name: string; status: StepStatus; /** Set on a spec workflow's phases. */ phase?: number }
  | { kind: 'specTask'; execution_id: string; phase: number; task: number }
  | { kind: 'artifact'; execution_id: string; artifact_id: string; title: string | null; type: string }
  | { kind: 'finding'; execution_id: string; finding_id: string }
  | { kind: 'message'; message: 'starting' | 'failed' | 'empty' | 'other-folder' | 'no-steps' | 'older' | 'more-unfinished' | 'spec-phases' };

/** One tree node. */
export interface TreeNode {
  /** Stable across refreshes (e2e tests and expansion state rely on it). */
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  icon: NodeIcon;
  /**
   * For `view/item/context` menus: `template`, `templateStep`, `execution:<status>`, `step:<status>`, `artifact`, `finding`,
   * `specTask`, `message`. A `templateStep` is a template's outline, not a step of a run: no menu offers it step actions.
   */
  contextValue: string;
  collapsible: 'none' | 'collapsed' | 'expanded';
  ref: NodeRef;
  /** A command run on click. */
  command?: { id: string; title: string };
}

const DONE = new Set<ExecutionStatus>(['completed', 'failed']);
/** Executions shown in their own groups (Pipelines, Agent Teams), not under templates or "Other executions". */
const OWN_GROUP = new Set(['pipeline', 'worker']);

/** The codicon of an execution or step status (colours are theme colour ids); a cancelled execution is not an error. */
export function statusIcon(status: ExecutionStatus | StepStatus, cancelled = false): NodeIcon {
  if (cancelled && status === 'failed') return { id: 'circle-slash', color: ICON_COLORS.muted };
  switch (status) {
    case 'running': return { id: 'sync~spin', color: ICON_COLORS.running };
    case 'awaiting_approval': return { id: 'bell', color: ICON_COLORS.attention };
    case 'completed': return { id: 'pass', color: ICON_COLORS.passed };
    case 'failed': return { id: 'error', color: ICON_COLORS.failed };
    case 'pending': return { id: 'circle-outline' };
    case 'ready': return { id: 'circle-large-outline' };
    case 'skipped': return { id: 'debug-step-over', color: ICON_COLORS.muted };
    case 'paused': return { id: 'debug-pause', color: ICON_COLORS.attention };
    case 'timeout': return { id: 'watch', color: ICON_COLORS.attention };
    case 'escalated': return { id: 'warning', color: ICON_COLORS.attention };
  }
}

/** The label of an execution: "<workflow> · <status> · <progress>%" (a cancelled one says "cancelled"). */
export function executionLabel(e: Pick<ExecutionSummary, 'workflow' | 'kind' | 'status' | 'progress' | 'cancelled' | 'orphaned'>): string {
  return `${e.workflow ?? e.kind} · ${e.orphaned ? 'interrupted' : statusText(e.status, e.cancelled)} · ${shownProgress(e.progress, e.status)}%`;
}

/** What tells one run from another of the same workflow: the task as typed (clipped), then the step or start time. */
export function executionDescription(e: Pick<ExecutionSummary, 'task_description' | 'current_step' | 'status' | 'started_at'>): string {
  const when = e.current_step && !DONE.has(e.status) ? e.current_step : e.started_at.slice(0, 16).replace('T', ' ');
  const task = taskLabel(e.task_description);
  return task ? `${task} · ${when}` : when;
}

/** The Cancel confirmation's question: the run with its task, status, step and start, so a person knows which run stops. */
export function cancelQuestion(e: ExecutionSummary): string {
  const step = e.current_step ? ` at ${e.current_step}` : '';
  return `Cancel ${runName(e.workflow ?? e.kind, e.task_description, 60)}? It is ${statusText(e.status, e.cancelled)}${step}, ` +
    `started ${e.started_at.slice(0, 16).replace('T', ' ')}.`;
}

/** A spec template's description in the tree while it has no run, as the Start Workflow picker says it. */
export const SPEC_OUTLINE = 'phases from a tasks.md';

/** A message node (starting, failed, empty). */
export function messageNode(message: Extract<NodeRef, { kind: 'message' }>['message'], label: string, detail?: string, scope?: string): TreeNode {
  const icons = {
    starting: 'loading~spin', failed: 'error', empty: 'add', 'other-folder': 'info', 'no-steps': 'info', older: 'history',
    'more-unfinished': 'ellipsis', 'spec-phases': 'checklist',
  } as const;
  const commands = {
    failed: { id: 'baton.showLog', title: 'Show Log' },
    empty: { id: 'baton.startWorkflow', title: 'Start Workflow…' },
    older: { id: 'baton.showExecution', title: 'Show Execution' },
    'more-unfinished': { id: 'baton.showExecution', title: 'Show Execution' },
    'spec-phases': { id: 'baton.startSpecWorkflow', title: 'Start Spec Workflow from tasks.md...' },
  } as const;
  // The messages with a command are those of the table above.
  const command = message in commands ? commands[message as keyof typeof commands] : undefined;
  return {
    id: scope ? `message:${message}:${scope}` : `message:${message}`, label, tooltip: detail, description: detail, icon: { id: icons[message] }, contextValue: 'message',
    collapsible: 'none', ref: { kind: 'message', message }, command,
  };
}

/**
 * The root nodes when Baton is ready: one node per template, then other executions (not from a template). A template
 * with runs lists them, expanded; one without runs is folded and opens onto its steps (templateStepNodes). `fromTasks`:
 * the templates whose phases come from a tasks.md (their one step would read "1 step", as the picker knows).
 */
export function rootNodes(
  workflows: AvailableWorkflowsResource['workflows'], executions: ExecutionSummary[], more = false, fromTasks: ReadonlySet<string> = new Set(),
): TreeNode[] {
  const names = new Set(workflows.map((w) => w.name));
  const nodes: TreeNode[] = [];
  if (executions.length === 0) nodes.push(messageNode('empty', 'Start a workflow…'));
  for (const w of [...workflows].sort((a, b) => a.name.localeCompare(b.name))) {
    const runs = executions.filter((e) => e.workflow === w.name && !OWN_GROUP.has(e.kind));
    const active = runs.filter((e) => !DONE.has(e.status)).length;
    nodes.push({
      // The editor keeps the first collapsible state it saw for an id, so the folded outline of a template without runs
      // has an id of its own: the template's first run appears under a new, expanded node instead of a folded one.
      id: runs.length ? `template:${w.name}` : `template:${w.name}:outline`,
      label: w.name,
      description: runs.length ? `${active} active · ${runCount(runs.length, more)}`
        : fromTasks.has(w.name) ? SPEC_OUTLINE : plural(w.steps_count, 'step'),
      tooltip: w.description,
      icon: { id: 'list-ordered' },
      contextValue: 'template',
      collapsible: runs.length ? 'expanded' : 'collapsed',
      ref: { kind: 'template', template: w.name },
    });
  }
  if (executions.some((e) => !OWN_GROUP.has(e.kind) && (e.workflow === null || !names.has(e.workflow)))) {
    nodes.push({
      id: 'group:other', label: 'Other executions', icon: { id: 'folder' }, contextValue: 'group', collapsible: 'expanded',
      ref: { kind: 'group', group: 'other' },
    });
  }
  return nodes;
}

/**
 * The outline of a template that has not run yet: its steps in order, numbered, with the agent and the gate, in grey
 * bullets rather than status icons, and no click command or step menu (there is no run to act on).
 */
export function templateStepNodes(template: WorkflowTemplate): TreeNode[] {
  const count = template.steps.length;
  const steps = template.steps.map((s, i): TreeNode => {
    const tooltip = [
      `Step ${i + 1} of ${count} of the ${template.name} workflow (not started), for the ${s.agent} agent`,
      s.dependencies.length ? `after ${s.dependencies.join(', ')}` : undefined,
      s.human_gate ? 'waits for a person to approve it' : undefined,
      'Start the workflow to run it.',
    ];
    return {
      id: `templateStep:${template.name}:${s.name}`,
      label: `${i + 1}. ${s.name}`,
      description: `${s.agent}${s.human_gate ? ' · approval gate' : ''}`,
      tooltip: tooltip.filter(Boolean).join('\n'),
      icon: { id: s.human_gate ? 'person' : 'circle-small', color: ICON_COLORS.muted },
      contextValue: 'templateStep',
      collapsible: 'none',
      ref: { kind: 'templateStep', template: template.name, step_name: s.name },
    };
  });
  // A spec template's steps are only its Phase 0: the phases that follow come from the tasks.md it is started on.
  if (!template.dynamic_phases) return steps;
  return [...steps, messageNode('spec-phases', 'then one phase per phase of its tasks.md', undefined, template.name)];
}


/** "N runs", or "N+ runs" when the listing stopped at its limit (older runs are not counted). */
function runCount(n: number, more: boolean): string {
  return more ? `${n}+ runs` : plural(n, 'run');
}

/** How many unfinished runs of a template (or group) open onto their steps by themselves. */
export const EXPANDED_RUNS = 5;

/** How many finished runs a template (or group) lists under its unfinished ones; the rest are one node away. */
export const FINISHED_SHOWN = 20;

/**
 * How many unfinished runs a template (or group) lists, the newest; the rest are counted in one node that opens Show
 * Execution (which offers every unfinished run), and the status bar counts them all. With thousands of runs waiting
 * at their gates, every refresh sent thousands of rows to the window, whose rendering then took more of the two cores
 * than the agents' calls.
 */
export const UNFINISHED_SHOWN = 100;

/**
 * The executions under a template node (or under "Other executions"): the newest UNFINISHED_SHOWN unfinished ones (and
 * a node counting the others), then the newest FINISHED_SHOWN finished ones, then (if there are more, or `more` older
 * runs were not listed) a node that opens Show Execution to find the others. A workflow run hundreds of times lists a
 * screenful, not hundreds of rows.
 */
export function executionNodes(executions: ExecutionSummary[], parent: NodeRef, templateNames: Set<string>, more = false): TreeNode[] {
  const mine = parent.kind === 'template'
    ? executions.filter((e) => e.workflow === parent.template && !OWN_GROUP.has(e.kind))
    : parent.kind === 'pipeline' ? executions.filter((e) => e.kind === 'pipeline' && e.workflow === parent.name)
    : executions.filter((e) => !OWN_GROUP.has(e.kind) && (e.workflow === null || !templateNames.has(e.workflow)));
  const unfinished = mine.filter((e) => !DONE.has(e.status));
  const finished = mine.filter((e) => DONE.has(e.status));
  const hidden = finished.length - FINISHED_SHOWN;
  const shown = unfinished.slice(0, UNFINISHED_SHOWN).map(executionNode);
  // The editor reads the steps of every expanded run on each refresh: with hundreds of runs under way that starved the
  // agents sharing the extension host (9,097 calls in 20 s fell to 506). The newest few open; the others on a click.
  for (const n of shown.slice(EXPANDED_RUNS)) n.collapsible = 'collapsed';
  const scope = parent.kind === 'template' ? parent.template : parent.kind === 'pipeline' ? `pipeline:${parent.name}` : 'other';
  const moreUnfinished = unfinished.length - shown.length;
  const nodes = [
    ...shown,
    ...(moreUnfinished > 0
      ? [messageNode('more-unfinished', `${plural(moreUnfinished, 'more unfinished run')}…`, 'find one with Show Execution', scope)]
      : []),
    ...finished.slice(0, FINISHED_SHOWN).map(executionNode),
  ];
  if (hidden > 0 || (more && finished.length > 0)) {
    const label = hidden > 0 ? `${hidden}${more ? '+' : ''} older finished ${hidden === 1 && !more ? 'run' : 'runs'}…` : 'Older finished runs…';
    nodes.push(messageNode('older', label, 'find one with Show Execution', scope));
  }
  return nodes;
}

function executionNode(e: ExecutionSummary): TreeNode {
  return {
    id: `execution:${e.execution_id}`,
    label: executionLabel(e),
    description: executionDescription(e),
    tooltip: `${e.task_description ? `${taskLabel(e.task_description, 500)}\n` : ''}Execution ${e.execution_id}${e.task_id ? `\nTask ${e.task_id}` : ''}` +
      `\nStarted ${e.started_at}\nUpdated ${e.updated_at}${e.cancelled ? '\nCancelled' : ''}` +
      `${e.orphaned ? '\nThe Baton process that drove it ended: open it and Resume, or run baton pipeline resume' : ''}`,
    // A run left by the process that drove it waits, as a paused one does, for a person to resume it.
    icon: statusIcon(e.orphaned ? 'paused' : e.status, e.cancelled),
    // A pipeline run is driven by Baton (`:driven`): no agent from outside takes or is handed its steps.
    contextValue: `execution:${e.status}${e.kind === 'pipeline' ? DRIVEN : ''}`,
    collapsible: DONE.has(e.status) ? 'collapsed' : 'expanded',
    ref: { kind: 'execution', execution_id: e.execution_id, workflow: e.workflow, status: e.status },
    command: { id: 'baton.showExecution', title: 'Show Execution' },
  };
}

/**
 * The steps of an execution, in the template's order; `findings` (of the execution) make a step expandable too. In a
 * run no process drives (`orphaned`: its owner ended) a step recorded running is not: it shows interrupted till Resume.
 * A pipeline step put back to pending when its run paused or stopped under it (`stopped`, the run view's, by step)
 * shows stopped with why, as the panel does, not as a step never reached. In a run that ended (cancelled, failed) a
 * step it left unfinished says so and offers no step actions: none of them can work on it any more.
 */
export function stepNodes(
  status: WorkflowStatusResource, findings: Pick<Finding, 'stepName'>[] = [], orphaned = false,
  stopped: Readonly<Record<string, { reason: string }>> = {}, driven = false,
): TreeNode[] {
  if (status.steps.length === 0) return [messageNode('no-steps', 'No steps', undefined, status.execution_id)];
  return status.steps.map((s) => {
    const interrupted = orphaned && s.status === 'running';
    const why = s.status === 'pending' && stopped[s.step_name] ? budgetReasonText(stopped[s.step_name]!.reason) : null;
    const left = leftStepText(s.status, status.status, status.cancelled, s.stopped === true);
    const shown = left ?? (interrupted ? 'interrupted' : why !== null ? `stopped (${why})` : statusText(s.status));
    return {
      id: `step:${status.execution_id}:${s.step_name}`,
      label: s.step_name,
      description: shown + (s.attempt > 1 ? ` · attempt ${s.attempt}` : ''),
      tooltip: stepTooltip(s) + (left !== null ? `\nThe run ${status.status === 'failed' && status.cancelled ? 'was cancelled' : 'failed'} before this step ended`
        : interrupted ? `\n${STEP_INTERRUPTED}` : why !== null ? `\nStopped before it ended: ${why}` : ''),
      icon: left !== null ? { id: 'circle-slash', color: ICON_COLORS.muted } : statusIcon(interrupted || why !== null ? 'paused' : s.status),
      // A driven run's steps (a pipeline's) get no agent's step actions; a review waiting for a person is decided alike.
      contextValue: left !== null ? 'step:ended' : `step:${s.status}${driven && s.status !== 'awaiting_approval' ? DRIVEN : ''}`,
      collapsible: s.artifacts.length > 0 || findings.some((f) => f.stepName === s.step_name) ? 'collapsed' : 'none',
      ref: { kind: 'step', execution_id: status.execution_id, step_name: s.step_name, status: s.status },
    } satisfies TreeNode;
  });
}

/** The context-value suffix of a run Baton drives itself (a pipeline run) and of its steps. */
const DRIVEN = ':driven';

const STEP_INTERRUPTED = 'Interrupted: the Baton process running it ended; Resume the run to go on with it';

function stepTooltip(s: StepStatusView): string {
  const lines = [`${s.step_name} (${s.agent_name}): ${statusText(s.status)}`];
  if (s.dependencies.length) lines.push(`after ${s.dependencies.join(', ')}`);
  if (s.outcome_summary) lines.push(s.outcome_summary);
  if (s.feedback) lines.push(`Feedback: ${s.feedback}`);
  return lines.join('\n');
}

/** The artifacts of a step; clicking one opens it read-only. */
export function artifactNodes(executionId: string, artifacts: ArtifactRecord[]): TreeNode[] {
  return artifacts.map((a) => ({
    id: `artifact:${a.artifact_id}`,
    label: a.title ?? a.type,
    description: a.type + (a.is_final ? ' · final' : ''),
    tooltip: a.description ?? undefined,
    icon: { id: a.type === 'diagram' ? 'type-hierarchy' : 'file-text' },
    contextValue: 'artifact',
    collapsible: 'none',
    ref: { kind: 'artifact', execution_id: executionId, artifact_id: a.artifact_id, title: a.title, type: a.type },
    command: { id: 'baton.openArtifact', title: 'Open Artifact' },
  }));
}

/** The codicon of a finding severity. */
export function severityIcon(severity: string): NodeIcon {
  if (severity === 'critical' || severity === 'high') return { id: 'error', color: ICON_COLORS.error };
  if (severity === 'medium') return { id: 'warning', color: ICON_COLORS.attention };
  return { id: 'info' };
}

/** The findings a step recorded: "[severity] title or description", location as the description. */
export function findingNodes(executionId: string, stepName: string, findings: Finding[]): TreeNode[] {
  return findings
    .filter((f) => f.stepName === stepName)
    .map((f) => {
      const location = typeof f.location === 'string' ? f.location : f.location ? JSON.stringify(f.location) : undefined;
      return {
        id: `finding:${f.id}`,
        label: `[${f.severity}] ${f.title ?? f.description}`,
        description: location ?? f.category,
        tooltip: [f.description, f.category && `Category: ${f.category}`, location && `At ${location}`].filter(Boolean).join('\n'),
        icon: severityIcon(f.severity),
        contextValue: 'finding',
        collapsible: 'none',
        ref: { kind: 'finding', execution_id: executionId, finding_id: f.id },
      };
    });
}

/** Folder groups in a multi-root workspace: Baton serves the first folder; the others say so. */
export function folderNodes(folders: string[]): TreeNode[] {
  return folders.map((name, i) => ({
    id: `folder:${name}`, label: name, icon: { id: 'root-folder' }, contextValue: 'folder',
    description: i === 0 ? undefined : 'not served', collapsible: i === 0 ? 'expanded' : 'collapsed',
    ref: { kind: 'folder', name },
  }));
}
