// Builds the inline context an agent gets with its step, within a byte budget; the rest stays reachable by URI.
import type { AgentDefinition, InlineArtifact, StepContext } from '../types.js';
import { truncateUtf8, utf8Length } from '../utf8.js';
import type { ArtifactHead } from './executionRepo.js';

/** Inputs of `buildStepContext`. */
export interface StepContextInput {
  agentName: string;
  agent: AgentDefinition | undefined;
  forbidden: string[];
  required: string[];
  dependencyArtifacts: ArtifactHead[];
  executionId: string;
  budgetBytes: number;
}

const PERSONA_BYTES = 700;
const MIN_ARTIFACT_BYTES = 160;

/** Persona summaries by agent definition: the content cache keeps one object per agent until content changes. */
const summaries = new WeakMap<AgentDefinition, string>();

/** A short persona: the description, then the body's opening lines. */
export function personaSummary(agentName: string, agent: AgentDefinition | undefined): string {
  if (!agent) return `Agent "${agentName}" (no persona file found; read persona://${agentName} after adding one).`;
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
  return `${lastLine > PERSONA_BYTES / 2 ? cut.slice(0, lastLine) : cut} …`;
}

const size = (v: unknown): number => utf8Length(JSON.stringify(v));

/** The context for one step: persona summary, top guardrails and dependency artifacts, fitted to the budget. */
export function buildStepContext(input: StepContextInput): StepContext {
  const artifactsUri = `workflow-artifacts://${input.executionId}`;
  const context: StepContext = {
    persona_summary: personaSummary(input.agentName, input.agent),
    persona_uri: `persona://${input.agentName}`,
    guardrails: [...input.forbidden, ...input.required.slice(0, 5)],
    guardrails_uri: 'guardrails://active',
    dependency_artifacts: [],
    more: [],
  };
  const uriOf = (a: ArtifactHead) => `workflow-artifacts://${input.executionId}#${a.artifact_id}`;
  // Newest first: the most recent dependency usually matters most.
  let candidates = [...input.dependencyArtifacts].reverse();
  while (candidates.length > 0) {
    const shells: InlineArtifact[] = candidates.map((a) => ({
      artifact_id: a.artifact_id, step_name: a.step_name, type: a.type, title: a.title, content: '', truncated: false, uri: uriOf(a),
    }));
    const free = input.budgetBytes - size({ ...context, dependency_artifacts: shells, more: [artifactsUri] });
    const share = Math.floor(free / candidates.length) - 16;
    if (share >= MIN_ARTIFACT_BYTES || candidates.length === 1) {
      context.dependency_artifacts = candidates.map((a, i) => {
        const content = share > 0 ? truncateUtf8(a.content, share) : '';
        // `a.content` may arrive cut already (artifactHeads); its full size is content_size_bytes.
        return { ...shells[i]!, content, truncated: utf8Length(content) < a.content_size_bytes };
      });
      break;
    }
    candidates = candidates.slice(0, -1);
  }
  const omitted = input.dependencyArtifacts.length - context.dependency_artifacts.length;
  if (omitted > 0 || context.dependency_artifacts.some((a) => a.truncated)) context.more.push(artifactsUri);
  // A pathological persona or guardrail list can still overflow: trim the list fields last.
  let total = size(context);
  while (total > input.budgetBytes && context.guardrails.length > 0) {
    context.guardrails.pop();
    total = size(context);
  }
  if (total > input.budgetBytes) {
    context.persona_summary = truncateUtf8(context.persona_summary, Math.max(0, context.persona_summary.length - (total - input.budgetBytes)));
  }
  return context;
}
