// How runs are named to a person in the editor's own UI (tree, pickers, notifications, status bar, tab titles) and in
// the panel: human status text, plurals, the typed task clipped to one line, and agent text made safe for bidi. No
// 'vscode' import: the webview uses it too.

/** Bidi controls (LRM/RLM/ALM, embeddings, overrides, isolates): agent text can use them to show "evil" as "live". */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** Agent or person text with its bidi control characters made visible (`[U+202E]`), so they reorder nothing. */
export function bidiSafe(text: string): string {
  return text.replace(BIDI_CONTROLS, (c) => `[U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}]`);
}

/** "awaiting_approval" → "awaiting approval"; a cancelled execution (stored as `failed`) → "cancelled". */
export function statusText(status: string, cancelled = false): string {
  return cancelled && status === 'failed' ? 'cancelled' : status.replace(/_/g, ' ');
}

/** How a reason's next step opens ("… not found on PATH. Install …"): a verb that tells what to do. */
const NEXT_STEP = /^(?:Install|Run|Set|Pass|Check|Use|Add|Start|Restart|Put|Give|Remove|Make|Try|Open|Stop|Edit|Fix|Create|Rename|Update|Upgrade)\b/;

/**
 * A reason as one short line for a listing's status column: its first line, up to its first sentence's end, at most
 * `max` characters, and then the next sentence when it says what to do ("Install …"), without its asides in brackets
 * and at most `step` characters. The full text (--json, the editor's panel) keeps the rest.
 */
export function shortReason(reason: string, max = 80, step = 120): string {
  const line = reason.trim().split('\n')[0]!.trim();
  const first = /^(.+?)\.\s+(?=[A-Z`(])/.exec(line);
  const sentence = clip(first?.[1] ?? line.replace(/\.$/, ''), max);
  const rest = first ? line.slice(first[0].length) : '';
  if (!NEXT_STEP.test(rest)) return sentence;
  // Up to its end or its first aside: "Install X from npm: `npm i -g x` (package x), or …" keeps the command.
  const next = /^(.+?)(?:\s+\(|\.\s|\.?$)/.exec(rest)![1]!.replace(/[,;:]$/, '');
  return `${sentence}. ${clip(next, step)}`;
}

/** `text` cut to `max` characters, an ellipsis marking the cut. */
function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}\u2026` : text;
}

/** shortReason(reason, max), and whether it left some of `reason` out (a listing then says where it is whole). */
export function cutReason(reason: string, max = 80): { text: string; cut: boolean } {
  const text = shortReason(reason, max);
  return { text, cut: text !== reason.trim().replace(/\.$/, '') };
}

/** Step statuses a run can leave behind when it ends early: none of them will move again. */
const UNFINISHED_STEP = new Set(['pending', 'ready', 'running', 'awaiting_approval']);

/**
 * What became of a step a run left unfinished when it ended (cancelled, failed): "not run (run cancelled)" for one
 * never started, "stopped (run failed)" for one it cut short; null for a finished step or a run not ended.
 * `stopped`: the core's mark of a step its run's cancel stopped (the cancel fails the steps under way, so such a failed
 * step was not failed by its agent).
 */
export function leftStepText(step: string, runStatus: string, cancelled = false, stopped = false): string | null {
  if (step === 'failed' && runStatus === 'failed' && cancelled && stopped) return 'stopped (run cancelled)';
  if ((runStatus !== 'completed' && runStatus !== 'failed') || !UNFINISHED_STEP.has(step)) return null;
  return `${step === 'pending' || step === 'ready' ? 'not run' : 'stopped'} (run ${statusText(runStatus, cancelled)})`;
}

/** A progress percentage as shown: whole, 0–100, below 100 until the run has completed (rounding says 100 early). */
export function shownProgress(progress: number, status: string): number {
  const whole = Math.max(0, Math.min(100, Math.round(progress)));
  return status === 'completed' ? whole : Math.min(99, whole);
}

/** Dollars as the panel shows spend: "$0.0123"; empty for none. */
export function money(usd: number | null): string {
  return usd === null ? '' : `$${usd.toFixed(4)}`;
}

/** A token count with its thousands grouped: "1,234". */
export function tokenCount(tokens: number): string {
  return tokens.toLocaleString('en-US');
}

/** Spend as the panel shows it: "1,234 tokens · $0.0100", either part left out when nothing (all of it: empty). */
export function spendText(tokens: number, usd: number | null): string {
  return [tokens ? `${tokenCount(tokens)} tokens` : '', usd ? money(usd) : ''].filter(Boolean).join(' · ');
}

/**
 * Why a run paused at its budget, as the panel shows spend ("2,468 tokens used, budget 2,000 tokens"); a reason in
 * another form as it is. The run keeps the stored reason ("budget_exceeded: 2468 tokens used, budget 2000").
 */
export function budgetReasonText(reason: string): string {
  const over = budgetOverrun(reason);
  if (over?.limit === 'tokens') return `${tokenCount(over.used)} tokens used, budget ${tokenCount(over.budget)} tokens`;
  if (over) return `${money(over.used)} spent, budget ${money(over.budget)}`;
  return reason;
}

/** The limit a stored pause reason says a run passed, with the figures; null for a reason in another form. */
export function budgetOverrun(reason: string): { limit: 'tokens' | 'usd'; used: number; budget: number } | null {
  const tokens = /^budget_exceeded: (\d+) tokens used, budget (\d+)$/.exec(reason);
  if (tokens) return { limit: 'tokens', used: Number(tokens[1]), budget: Number(tokens[2]) };
  const usd = /^budget_exceeded: \$(\d+(?:\.\d+)?) spent, budget \$(\d+(?:\.\d+)?)$/.exec(reason);
  if (usd) return { limit: 'usd', used: Number(usd[1]), budget: Number(usd[2]) };
  return null;
}

/**
 * An event's name on the panel's timeline: its type in words, a step put back when its run paused or stopped under it
 * "step stopped" (as the panel marks it), and a pipeline run's end "pipeline completed" / "failed" / "cancelled", as
 * its start reads "pipeline started" (the engine records those as every run's `workflow_*`).
 */
export function timelineEventName(type: string, pipeline = false): string {
  if (type === 'step_interrupted') return 'step stopped';
  const name = pipeline && type.startsWith('workflow_') ? `pipeline_${type.slice('workflow_'.length)}` : type;
  return name.replace(/_/g, ' ');
}

/**
 * A spec phase's name as shown after its place in the workflow ("Phase 1: …"), with how the file numbers it when
 * that differs: "Setup (Phase 3.1 in the file)", so a heading `## Phase 3.1: Setup` can still be found.
 */
export function phaseNameShown(name: string, sourceLabel: string | null | undefined): string {
  return sourceLabel ? `${name} (${sourceLabel} in the file)` : name;
}

/** "1 step", "2 steps" (`many` for an irregular plural). */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * The finished runs a prune leaves (or, `dryRun`, would leave): "1 finished run kept", "12 finished runs would be
 * kept", "no finished run is left" (never "0 kept").
 */
export function keptText(kept: number, dryRun = false): string {
  if (kept === 0) return `no finished run ${dryRun ? 'would be' : 'is'} left`;
  return `${plural(kept, 'finished run')} ${dryRun ? 'would be kept' : 'kept'}`;
}

/** How many characters of a task description the editor's one-line labels show. */
export const TASK_LABEL_CHARS = 50;

/**
 * A task description as a one-line label: whitespace collapsed, bidi controls shown, cut to `max` characters with "…";
 * null when there is none.
 */
export function taskLabel(description: string | null | undefined, max = TASK_LABEL_CHARS): string | null {
  const line = bidiSafe(description ?? '').replace(/\s+/g, ' ').trim();
  if (!line) return null;
  const chars = [...line];
  return chars.length <= max ? line : `${chars.slice(0, max - 1).join('').trimEnd()}…`;
}

/** "bug-fix “Fix the cart total…”": the workflow with the task it runs on, so two runs can be told apart. */
export function runName(workflow: string, taskDescription: string | null | undefined, max = TASK_LABEL_CHARS): string {
  const task = taskLabel(taskDescription, max);
  return task ? `${workflow} “${task}”` : workflow;
}

/**
 * The notification of a gate: the step, the run (workflow and task) and the execution's short id, so two gates of
 * the same workflow never read alike (the editor merges notifications whose text is the same).
 */
export function gateMessage(stepName: string, workflow: string | null, taskDescription: string | null | undefined, executionId: string): string {
  return `Baton: ${stepName} of ${runName(workflow ?? 'the workflow', taskDescription)} awaits your approval (run ${executionId.slice(0, 8)})`;
}

/** What a release did, in a line: the step, who held it since when, and that it goes to the next agent that asks. */
export function releasedText(r: { execution_id: string; step_name: string; held_by: string | null; held_since: string | null }): string {
  const held = r.held_by ? ` from ${r.held_by}` : '';
  const since = r.held_since ? ` (held since ${r.held_since})` : '';
  return `Released ${r.step_name} of ${r.execution_id}${held}${since}: it is ready, and the next agent that asks for work gets it.`;
}
