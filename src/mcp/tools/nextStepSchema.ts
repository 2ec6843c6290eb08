// Zod schemas of `workflow_next_step` (spec names) and the plain-words hints the error formatter uses.
import * as z from 'zod';
import { ARTIFACT_TYPES, SEVERITIES } from '../../core/types.js';

const artifactSchema = z.object({
  type: z.enum(ARTIFACT_TYPES).describe(`Artifact type: one of ${ARTIFACT_TYPES.join(', ')}`),
  title: z.string().min(1).describe('Short title of the artifact'),
  content: z.string().describe('The artifact itself (markdown, YAML, JSON…)'),
  description: z.string().optional().describe('What the artifact is for'),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

const decisionSchema = z.object({
  decision: z.string(),
  rationale: z.string(),
  alternatives_rejected: z.array(z.string()),
  trade_offs: z.string(),
  context: z.string().optional(),
});

const findingSchema = z.object({
  severity: z.enum(SEVERITIES),
  category: z.string(),
  description: z.string(),
  location: z.string().optional(),
  recommendation: z.string(),
  impact: z.string().optional(),
});

/** Anything is taken as a gate item's evidence (what is not text is kept as its JSON); its schema asks for text. */
const evidenceEntry = z.unknown().meta({ type: 'string' });

/**
 * A spec phase's evidence: an object keyed by gate item (number or text), or a list in gate order. Its entries say
 * `type: "string"`: Gemini takes no list of untyped items (TYPE_UNSPECIFIED, after the AI SDK's conversion).
 */
export const evidenceInput = z.union([z.record(z.string(), evidenceEntry), z.array(evidenceEntry)]);

/** `model_output_so_far`: what the agent submits for the step it holds a token for. */
export const modelOutputSchema = z.object({
  summary: z.string().min(1).describe('Executive summary of what you did in this step'),
  artifacts: z.array(artifactSchema).describe('Documents this step produced ([] if none)'),
  references: z.array(z.string()).describe('Files or documents you referenced ([] if none)'),
  confidence: z.number().min(0).max(1).describe('Your confidence in the result, 0 to 1'),
  decisions: z.array(decisionSchema).optional(),
  findings: z.array(findingSchema).optional(),
  next_steps: z.array(z.string()).optional(),
  blockers: z.array(z.string()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** The input of `workflow_next_step`. Unknown top-level fields are refused so a typo is not silently ignored. */
export const nextStepInputSchema = z.strictObject({
  template_name: z.string().min(1).optional().describe('Start a new workflow from this template (see available-workflows://all)'),
  task_description: z.string().optional().describe('When starting: what the workflow is for'),
  step_token: z.string().min(1).nullable().optional().describe('The new_step_token of your previous call; submit it with model_output_so_far'),
  request: z.enum(['continue', 'refresh_token', 'get_task', 'reclaim']).optional().describe('"continue" (default), "refresh_token" (fresh token, same step), "get_task" (a task of your spec phase, with task_number) or "reclaim" (with task_id: the step handed to this connection, again, when you lost its token)'),
  model_output_so_far: modelOutputSchema.optional().describe('Your output for the step the token names'),
  requested_step_name: z.string().min(1).optional().describe('Ask for a specific ready step'),
  intent_tags: z.array(z.string()).optional().describe('Tags for routing (e.g. "security")'),
  referenced_paths: z.array(z.string()).optional().describe('Files you are working on (steers step selection)'),
  rationale: z.string().optional().describe('Why this step or approach'),
  task_id: z.string().min(1).optional().describe('Join an execution (task id or execution id) and claim a ready parallel step'),
  source: z.string().min(1).optional().describe('spec_execution_v1: the tasks.md, relative to the workspace'),
  evidence: evidenceInput.optional().describe('Spec phase: gate item number → what shows it, one per item'),
  task_number: z.number().int().optional().describe('With request get_task: the task (1-based)'),
});

const contractSchema = z.object({
  step_name: z.string(),
  allowed_actions: z.array(z.string()),
  forbidden_actions: z.array(z.string()),
  required_output_format: z.string(),
  human_gate_required: z.boolean(),
});

const inlineArtifactSchema = z.looseObject({
  artifact_id: z.string(),
  step_name: z.string().nullable(),
  type: z.string(),
  title: z.string().nullable(),
  content: z.string(),
  truncated: z.boolean(),
  uri: z.string(),
});

/** The output of `workflow_next_step` (returned as `structuredContent`). */
export const nextStepOutputSchema = z.looseObject({
  status: z.enum(['ok', 'no_op', 'task_closed', 'error', 'awaiting_approval']),
  execution_id: z.string().optional(),
  task_id: z.string().optional(),
  next_step_contract: contractSchema.optional(),
  new_step_token: z.string().optional(),
  token_expires_at: z.string().optional(),
  human_message: z.string().optional(),
  context: z
    .looseObject({
      workflow: z.string(),
      agent_name: z.string(),
      task_description: z.string(),
      step_description: z.string(),
      feedback: z.string().optional(),
      attempt: z.number().optional(),
      persona_summary: z.string(),
      persona_uri: z.string(),
      guardrails: z.array(z.string()),
      guardrails_uri: z.string(),
      dependency_artifacts: z.array(inlineArtifactSchema),
      more: z.array(z.string()),
    })
    .optional(),
  selection: z.looseObject({}).optional(),
  progress: z.number().optional(),
  synthesis: z.looseObject({}).optional(),
  error: z
    .looseObject({
      code: z.string(),
      message: z.string(),
      recovery: z.string(),
      retry_after_ms: z.number().optional(),
      current_step: z.string().optional(),
      next_call: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
});

/**
 * What each field must be, in words an agent can act on; keys are paths with `[]` for array items.
 * The formatter says "<path> must be <hint> (got …)".
 */
export const NEXT_STEP_FIELD_HINTS: Record<string, string> = {
  template_name: 'a non-empty string naming a workflow template (read available-workflows://all)',
  task_description: 'a string describing the task',
  step_token: 'the new_step_token string from your previous workflow_next_step result',
  request: 'one of "continue", "refresh_token", "get_task"',
  source: 'the tasks.md path relative to the workspace, such as "specs/auth/tasks.md"',
  evidence: 'an object {"1": "what shows gate item 1", …} or a list in gate order',
  task_number: 'a whole number: the task of your phase, 1-based',
  model_output_so_far: 'an object {summary, artifacts, references, confidence}',
  'model_output_so_far.summary': 'a non-empty string summarising what you did',
  'model_output_so_far.artifacts': 'an array of {type, title, content} objects ([] if none)',
  'model_output_so_far.artifacts[]': 'an object {type, title, content}',
  'model_output_so_far.artifacts[].type': `one of ${ARTIFACT_TYPES.join(', ')}`,
  'model_output_so_far.artifacts[].title': 'a non-empty string',
  'model_output_so_far.artifacts[].content': 'a string (the artifact text)',
  'model_output_so_far.artifacts[].description': 'a string',
  'model_output_so_far.artifacts[].metadata': 'an object',
  'model_output_so_far.references': 'an array of strings (files or docs you referenced; [] if none)',
  'model_output_so_far.references[]': 'a string',
  'model_output_so_far.confidence': 'a number between 0 and 1',
  'model_output_so_far.decisions': 'an array of {decision, rationale, alternatives_rejected, trade_offs} objects',
  'model_output_so_far.decisions[]': 'an object {decision, rationale, alternatives_rejected, trade_offs}',
  'model_output_so_far.decisions[].decision': 'a string',
  'model_output_so_far.decisions[].rationale': 'a string',
  'model_output_so_far.decisions[].alternatives_rejected': 'an array of strings ([] if none)',
  'model_output_so_far.decisions[].alternatives_rejected[]': 'a string',
  'model_output_so_far.decisions[].trade_offs': 'a string',
  'model_output_so_far.decisions[].context': 'a string',
  'model_output_so_far.findings': 'an array of {severity, category, description, recommendation} objects',
  'model_output_so_far.findings[]': 'an object {severity, category, description, recommendation}',
  'model_output_so_far.findings[].severity': `one of ${SEVERITIES.join(', ')}`,
  'model_output_so_far.findings[].category': 'a string',
  'model_output_so_far.findings[].description': 'a string',
  'model_output_so_far.findings[].location': 'a string',
  'model_output_so_far.findings[].recommendation': 'a string',
  'model_output_so_far.findings[].impact': 'a string',
  'model_output_so_far.next_steps': 'an array of strings',
  'model_output_so_far.next_steps[]': 'a string',
  'model_output_so_far.blockers': 'an array of strings',
  'model_output_so_far.blockers[]': 'a string',
  'model_output_so_far.metadata': 'an object',
  requested_step_name: 'a non-empty string naming a step of the workflow',
  intent_tags: 'an array of strings',
  'intent_tags[]': 'a string',
  referenced_paths: 'an array of file paths (strings)',
  'referenced_paths[]': 'a string',
  rationale: 'a string',
  task_id: 'a non-empty string (a task id or execution id)',
};
