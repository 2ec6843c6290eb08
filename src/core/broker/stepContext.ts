// The inline context an agent gets with its step (task, persona, guardrails); dependency artifacts are fitted later.
import type { AgentDefinition, StepContext } from '../types.js';
import { truncateUtf8, utf8Length } from '../utf8.js';
import { fittingPrefix, jsonLength } from './jsonText.js';

/** Inputs of `buildStepContext`. */
export interface StepContextInput {
  workflow: string;
  agentName: string;
  agent: AgentDefinition | undefined;
  taskDescription: string;
  stepDescription: string;
  feedback?: string | null;
  attempt: number;
  /** Where a text cut here is whole: the execution's id (workflow-status:// and current-step:// carry them). */
  executionId: string;
  /** Actions the rules require (forbidden ones go in the contract). */
  required: string[];
}

/** Bytes of the persona summary: the description and the opening of the body; the rest is at persona://. */
const PERSONA_BYTES = 320;
/** Required actions carried inline; the full list is at guardrails://active. */
const REQUIRED_INLINE = 5;
/**
 * Bytes of the task description and of a reviewer's feedback carried inline at most. Both are whatever a person or an
 * agent typed (a pasted issue, a stack trace), repeated in both forms of every step result: uncut, a long one alone
 * passed the 4 KB those forms keep to. The rest is in workflow-status:// and current-step:// (read once). When a
 * step's contract leaves less room, `cutFreeText` cuts them further, to FREE_TEXT_MIN_BYTES each at least.
 */
export const FREE_TEXT_INLINE_BYTES = 1024;
const FREE_TEXT_MIN_BYTES = 200;

/** Where the kept part of a cut text ends and the pointer to the whole begins; the pointer's usual size. */
const CUT_MARKER = ' ... [cut at ';
const POINTER_BYTES = 120;

/** What the free texts of a context were before they were cut, and where each is whole. */
const uncut = new WeakMap<StepContext, { task: string; feedback: string; executionId: string }>();

/**
 * `text` cut to `bytes` on a character boundary, saying where it is whole; as it is if it fits. Bytes are counted as
 * the JSON form writes them (a control character takes 6, as \u0000), never fewer than the text form's UTF-8 ones.
 */
function cut(text: string, bytes: number, whole: string): string {
  if (text.length <= bytes / 6 || jsonLength(text) <= bytes) return text;
  const kept = text.slice(0, fittingPrefix(text, bytes)[0]);
  return `${kept}${CUT_MARKER}${utf8Length(kept)} of ${utf8Length(text)} bytes; the whole text: ${whole}]`;
}

/** Whether the free texts of `ctx` are long enough that the step result may pass its budget for them. */
export function freeTextIsLong(ctx: StepContext): boolean {
  return ctx.task_description.length + (ctx.feedback?.length ?? 0) > FREE_TEXT_MIN_BYTES;
}

/**
 * Cuts the task description, then the feedback, of a context built here by about `overBytes` more (down to
 * FREE_TEXT_MIN_BYTES each); false when there is nothing left to cut.
 */
export function cutFreeText(ctx: StepContext, overBytes: number): boolean {
  const src = uncut.get(ctx);
  if (!src) return false;
  let over = overBytes;
  let changed = false;
  for (const field of ['task_description', 'feedback'] as const) {
    const now = ctx[field];
    if (!now || over <= 0) continue;
    const size = jsonLength(now);
    const original = field === 'task_description' ? src.task : src.feedback;
    // What is kept of the text: all of it, or (cut already) what comes before the pointer, which stays about as long.
    const marker = now === original ? -1 : now.lastIndexOf(CUT_MARKER);
    const kept = marker >= 0 ? jsonLength(now.slice(0, marker)) : size;
    if (kept <= FREE_TEXT_MIN_BYTES) continue;
    // A first cut adds the pointer (~120 bytes): it is taken from the text too.
    const target = Math.max(FREE_TEXT_MIN_BYTES, kept - over - (marker >= 0 ? 0 : POINTER_BYTES));
    const next = field === 'task_description'
      ? cut(src.task, target, `task_description in workflow-status://${src.executionId}`)
      : cut(src.feedback, target, `feedback in current-step://${src.executionId}`);
    if (next === now) continue;
    over -= size - jsonLength(next);
    ctx[field] = next;
    changed = true;
  }
  return changed;
}

/** Persona summaries by agent definition: the content cache keeps one object per agent until content changes. */
const summaries = new WeakMap<AgentDefinition, string>();

/** A short persona: the description, then the body's opening lines. */
export function personaSummary(agentName: string, agent: AgentDefinition | undefined): string {
  if (!agent) return `Agent "${agentName}" (no persona loaded: its file is missing or left out for a problem; read persona://${agentName} to see which).`;
  let summary = summaries.get(agent);
  if (summary === undefined) summaries.set(agent, (summary = summarize(agent)));
  return summary;
}

function summarize(agent: AgentDefinition): string {
  const body = agent.content.replace(/^#[^\n]*\n+/, '').trim();
  const text = agent.description ? `${agent.description}\n\n${body}` : body;
  if (utf8Length(text) <= PERSONA_BYTES) return text;
  const cut = truncateUtf8(text, PERSONA_BYTES - 4);
  const lastLine = cut.lastIndexOf('\n');
  return `${lastLine > PERSONA_BYTES / 2 ? cut.slice(0, lastLine) : cut} ...`;
}

/** The context for one step, with no dependency artifacts yet (`fitStepResult` adds them within the budget). */
export function buildStepContext(input: StepContextInput): StepContext {
  const feedback = input.feedback?.trim();
  const task = input.taskDescription.trim();
  const ctx: StepContext = {
    workflow: input.workflow,
    agent_name: input.agentName,
    task_description: cut(task, FREE_TEXT_INLINE_BYTES, `task_description in workflow-status://${input.executionId}`),
    step_description: input.stepDescription.trim(),
    ...(feedback ? { feedback: cut(feedback, FREE_TEXT_INLINE_BYTES, `feedback in current-step://${input.executionId}`) } : {}),
    ...(input.attempt > 1 ? { attempt: input.attempt } : {}),
    persona_summary: personaSummary(input.agentName, input.agent),
    persona_uri: `persona://${input.agentName}`,
    guardrails: input.required.slice(0, REQUIRED_INLINE),
    guardrails_uri: 'guardrails://active',
    dependency_artifacts: [],
    more: [],
  };
  if (freeTextIsLong(ctx)) uncut.set(ctx, { task, feedback: feedback ?? '', executionId: input.executionId });
  return ctx;
}
