// The inline context an agent gets with its step (task, persona, guardrails); dependency artifacts are fitted later.
import type { AgentDefinition, StepContext } from '../types.js';
import { truncateUtf8, utf8Length } from '../utf8.js';

/** Inputs of `buildStepContext`. */
export interface StepContextInput {
  workflow: string;
  agentName: string;
  agent: AgentDefinition | undefined;
  taskDescription: string;
  stepDescription: string;
  feedback?: string | null;
  attempt: number;
  /** Actions the rules require (forbidden ones go in the contract). */
  required: string[];
}

/** Bytes of the persona summary: the description and the opening of the body; the rest is at persona://. */
const PERSONA_BYTES = 320;
/** Required actions carried inline; the full list is at guardrails://active. */
const REQUIRED_INLINE = 5;

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
  return {
    workflow: input.workflow,
    agent_name: input.agentName,
    task_description: input.taskDescription.trim(),
    step_description: input.stepDescription.trim(),
    ...(feedback ? { feedback } : {}),
    ...(input.attempt > 1 ? { attempt: input.attempt } : {}),
    persona_summary: personaSummary(input.agentName, input.agent),
    persona_uri: `persona://${input.agentName}`,
    guardrails: input.required.slice(0, REQUIRED_INLINE),
    guardrails_uri: 'guardrails://active',
    dependency_artifacts: [],
    more: [],
  };
}
