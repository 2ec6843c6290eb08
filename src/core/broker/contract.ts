// The step contract and the markdown instructions an agent reads for its step.
import type { StepContract } from '../types.js';

/** The contract for `step`, with the (already prioritised) forbidden actions. */
export function buildContract(
  step: { name: string; allowed_actions: string[]; required_output_format: string; human_gate: boolean },
  forbidden: string[],
): StepContract {
  return {
    step_name: step.name,
    allowed_actions: [...step.allowed_actions],
    forbidden_actions: [...forbidden],
    required_output_format: step.required_output_format,
    human_gate_required: step.human_gate,
  };
}

/** Everything the step instructions mention. */
export interface HumanMessageInput {
  template_name: string;
  agent_name: string;
  task_description: string;
  contract: StepContract;
  execution_id: string;
  attempt: number;
  feedback?: string | null;
  required_actions?: string[];
  parallel_opportunities?: string[];
}

const SUBMIT_CALL =
  'workflow_next_step({ step_token, model_output_so_far: { summary, artifacts: [...], references, confidence } })';

function bullets(items: string[], whenEmpty: string): string {
  return items.length > 0 ? items.map((item) => `- ${item}`).join('\n') : `- ${whenEmpty}`;
}

function feedbackSection(feedback: string, attempt: number): string {
  const quoted = feedback.trim().split(/\r?\n/).map((line) => (line ? `> ${line}` : '>')).join('\n');
  return `## Feedback From Review\n\nThis step was sent back by a reviewer; this is attempt ${attempt}. `
    + `Address this feedback in your new output:\n\n${quoted}`;
}

function submitSection(): string {
  return [
    '## Submitting Your Work',
    '',
    'Call `workflow_next_step` with your model_output_so_far and the step_token provided:',
    '',
    '```',
    SUBMIT_CALL,
    '```',
    '',
    '- `summary`: what you did and found, in a few sentences',
    '- `artifacts`: `{ type, title, content }` items (type such as `design_doc`, `implementation_plan`, `code_review`, `markdown`)',
    '- `references`: files and documents you used',
    '- `confidence`: a number from 0 to 1',
  ].join('\n');
}

/** The spec's "Usage in Instructions" markdown, plus review feedback, the human gate, required actions and parallel work. */
export function renderHumanMessage(input: HumanMessageInput): string {
  const { contract } = input;
  const sections: string[] = [
    `# Workflow Step: ${contract.step_name}\n\n**Template**: ${input.template_name}\n**Agent Role**: ${input.agent_name}`,
  ];
  if (input.feedback && input.feedback.trim() !== '') sections.push(feedbackSection(input.feedback, input.attempt));
  sections.push(`## Your Task\n\n${input.task_description.trim() || `Complete the '${contract.step_name}' step.`}`);
  sections.push(`## What You CAN Do\n${bullets(contract.allowed_actions, 'Whatever the task needs, within the rules below')}`);
  sections.push(`## What You CANNOT Do\n${bullets(contract.forbidden_actions, 'Anything the active guardrails forbid (guardrails://active)')}`);
  if (input.required_actions && input.required_actions.length > 0) {
    sections.push(`## Always\n${bullets(input.required_actions, '')}`);
  }
  sections.push(`## Required Output Format\n\n${contract.required_output_format.trim() || 'A summary of your work, any artifacts, references and a confidence score.'}`);
  sections.push(submitSection());
  if (contract.human_gate_required) {
    sections.push('## Human Review\n\nAfter you submit, this step waits for a person\'s approval. '
      + 'Call `workflow_next_step` again with the returned step_token to wait for the decision; '
      + 'if the step is sent back you will get the reviewer\'s feedback and a new attempt.');
  }
  const others = input.parallel_opportunities ?? [];
  if (others.length > 0) {
    sections.push(`## Parallel Work\n\nOther steps are ready too: ${others.map((s) => `\`${s}\``).join(', ')}. `
      + `Another agent can claim one with \`workflow_next_step({ task_id: "${input.execution_id}" })\`.`);
  }
  return `${sections.join('\n\n')}\n`;
}
