// The synthesis written when a workflow closes: a readable narrative plus structured output.
import type { ModelOutput } from '../types.js';
import type { ArtifactLabel, ExecutionRow, StepRow } from './executionRepo.js';

/** What the synthesis artifact and the `task_closed` response carry. */
export interface Synthesis {
  outcome_summary: string;
  model_output: {
    workflow: string | null;
    steps: Array<{ step_name: string; agent_name: string; status: string; summary: string | null; confidence: number | null; attempts: number }>;
    artifacts: Array<{ artifact_id: string; step_name: string | null; type: string; title: string | null }>;
    findings: NonNullable<ModelOutput['findings']>;
    decisions: NonNullable<ModelOutput['decisions']>;
    blockers: string[];
    next_steps: string[];
  };
}

/** Builds the synthesis of a finished execution from its steps' outputs and artifacts. */
export function buildSynthesis(exec: ExecutionRow, taskDescription: string, steps: StepRow[], artifacts: ArtifactLabel[]): Synthesis {
  const outputs = steps.map((s) => (s.output ?? null) as ModelOutput | null);
  const findings = outputs.flatMap((o) => o?.findings ?? []);
  const decisions = outputs.flatMap((o) => o?.decisions ?? []);
  const blockers = outputs.flatMap((o) => o?.blockers ?? []);
  const nextSteps = outputs.flatMap((o) => o?.next_steps ?? []);
  const lines: string[] = [
    `# Workflow Synthesis: ${exec.template_name ?? exec.execution_id}`,
    '',
    `**Task**: ${taskDescription}`,
    `**Execution**: ${exec.execution_id}`,
    '',
    '## Steps',
  ];
  for (const [i, s] of steps.entries()) {
    const o = outputs[i];
    lines.push('', `### ${s.step_name} (${s.agent_name}) — ${s.status}${s.attempt > 1 ? `, ${s.attempt} attempts` : ''}`);
    if (o?.summary) lines.push('', o.summary);
    if (typeof o?.confidence === 'number') lines.push('', `Confidence: ${o.confidence}`);
    const own = artifacts.filter((a) => a.step_name === s.step_name);
    if (own.length) lines.push('', ...own.map((a) => `- Artifact \`${a.type}\`: ${a.title ?? a.artifact_id} (${a.artifact_id})`));
  }
  if (findings.length) {
    lines.push('', '## Findings', '', ...findings.map((f) => `- **${f.severity}** [${f.category}] ${f.description}${f.location ? ` (${f.location})` : ''} — ${f.recommendation}`));
  }
  if (decisions.length) lines.push('', '## Decisions', '', ...decisions.map((d) => `- ${d.decision} — ${d.rationale}`));
  if (blockers.length) lines.push('', '## Open Blockers', '', ...blockers.map((b) => `- ${b}`));
  if (nextSteps.length) lines.push('', '## Next Steps', '', ...nextSteps.map((n) => `- ${n}`));
  return {
    outcome_summary: lines.join('\n') + '\n',
    model_output: {
      workflow: exec.template_name,
      steps: steps.map((s, i) => ({
        step_name: s.step_name, agent_name: s.agent_name, status: s.status, summary: outputs[i]?.summary ?? null,
        confidence: outputs[i]?.confidence ?? null, attempts: s.attempt,
      })),
      artifacts: artifacts.map((a) => ({ artifact_id: a.artifact_id, step_name: a.step_name, type: a.type, title: a.title })),
      findings, decisions, blockers, next_steps: nextSteps,
    },
  };
}
