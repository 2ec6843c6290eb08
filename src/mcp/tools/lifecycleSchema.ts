// Zod schemas of the lifecycle, logging and query tools (specs/lifecycle-tools.md camelCase names) and the
// plain-words hints the input error formatter uses.
import * as z from 'zod';
import { DETAILS_LIST_LIMIT, DETAILS_LIST_MAX } from '../../core/lifecycle/detailsPages.js';
import { DETAILS_LISTS, FINDING_SEVERITIES, LOG_LAYERS, LOG_LEVELS, CONTENT_TYPES } from '../../core/lifecycleTypes.js';
import { EXECUTION_STATES } from '../../core/stateMachine.js';

const id = z.string().min(1);
/** A name or text people read in the tree, the panel and the history: more than spaces (a blank one shows nothing). */
const text = z.string().regex(/\S/);
const stepId = z.string().regex(/^\d+$/);
const record = z.record(z.string(), z.unknown());
const limit = z.number().int().min(1).max(500);
const offset = z.number().int().min(0);
/** States a caller may ask for; `awaiting_approval` is reached only through a gated step. */
const TRANSITION_TARGETS = ['pending', 'running', 'completed', 'failed', 'timeout', 'escalated', 'paused'] as const;

/** get_execution_details' `<list>Limit` and `<list>Offset` of each list. */
function detailsPaging() {
  const fields: Record<string, z.ZodOptional<z.ZodNumber>> = {};
  for (const list of DETAILS_LISTS) {
    fields[`${list}Limit`] = z.number().int().min(1).max(DETAILS_LIST_MAX).optional()
      .describe(`Most ${list} to list (default ${DETAILS_LIST_LIMIT}, max ${DETAILS_LIST_MAX}), newest first; fewer if they fill the answer`);
    fields[`${list}Offset`] = offset.optional().describe(`Newest ${list} to skip (default 0); pages.${list}.nextOffset pages on`);
  }
  return fields as Record<`${(typeof DETAILS_LISTS)[number]}${'Limit' | 'Offset'}`, z.ZodOptional<z.ZodNumber>>;
}

/** Inputs, by tool name. */
export const LIFECYCLE_INPUTS = {
  start_execution: z.strictObject({
    workflowName: id.describe('The workflow template to run (see search_workflows or available-workflows://all)'),
    projectPath: id.optional().describe('Folder of the project to associate (discovered if new); default: the workspace project'),
    projectId: z.number().int().positive().optional().describe('A project id from list_projects'),
    metadata: record.optional().describe('Free-form data kept with the execution'),
    timeoutMs: z.number().int().positive().optional().describe('Milliseconds the execution may run before it moves to timeout'),
  }),
  transition_workflow_state: z.strictObject({
    executionId: id.describe('The execution id'),
    newState: z.enum(TRANSITION_TARGETS).describe('Target state: running, completed, failed, timeout, escalated or paused'),
    error: z.string().optional().describe('Why (kept with the execution; use it with failed, escalated, timeout)'),
  }),
  start_step: z.strictObject({
    executionId: id.describe('The execution id (it must be running)'),
    stepName: text.describe('Step name; calling again with the same name starts a step that was kept pending'),
    phaseName: text.optional().describe('The workflow phase this step belongs to'),
    dependsOn: z.array(stepId).optional().describe('Ids of steps that must be completed first'),
    agentName: text.optional().describe('Who runs the step (default: the phase agent)'),
  }),
  complete_step: z.strictObject({
    stepId: stepId.describe('The id returned by start_step'),
    output: record.optional().describe('Step output, validated against the StepOutput contract ({summary, artifacts, findings, confidence})'),
    error: z.string().optional().describe('Give this instead of output to mark the step failed'),
  }),
  check_execution_timeout: z.strictObject({}),
  resume_execution: z.strictObject({ executionId: id.describe('A timeout, escalated or paused execution') }),
  complete_execution: z.strictObject({
    executionId: id.describe('The execution id'),
    output: record.optional().describe('Workflow output, validated against the WorkflowOutput contract'),
    error: z.string().optional().describe('Give this instead of output to mark the execution failed'),
  }),
  get_incomplete_executions: z.strictObject({ workflowName: id.optional().describe('Only this workflow') }),
  log_execution: z.strictObject({
    executionId: id.describe('The execution id'),
    layer: z.enum(LOG_LAYERS).describe('orchestrator, workflow, step or agent_task'),
    layerId: id.describe('Id within the layer (e.g. the step id); one log per (executionId, layer, layerId)'),
    logLevel: z.enum(LOG_LEVELS).describe('debug, info, warn or error'),
    message: text.describe('The log message'),
    context: record.optional(),
    contractInput: record.optional().describe('Validated against <Layer>Input.schema.json when present'),
    contractOutput: record.optional().describe('Validated against <Layer>Output.schema.json when present'),
  }),
  store_artifact: z.strictObject({
    executionId: id.describe('The execution id'),
    stepId: stepId.optional().describe('The step that produced it'),
    name: text.describe('File-like name, e.g. analysis-report.md'),
    contentType: z.enum(CONTENT_TYPES).describe('text, markdown, json or binary'),
    content: z.string().describe('The content; base64 when contentType is binary'),
    metadata: record.optional(),
  }),
  store_finding: z.strictObject({
    executionId: id.describe('The execution id'),
    stepId: stepId.optional(),
    severity: z.enum(FINDING_SEVERITIES).describe('info, low, medium, high or critical'),
    category: text.describe('e.g. security, performance'),
    title: text,
    description: text,
    tags: z.array(z.string().min(1)).optional(),
    isGlobal: z.boolean().optional().describe('true: visible to every project; default: this project only'),
    projectId: z.number().int().positive().optional().describe("Default: the execution's project"),
    location: record.optional().describe('e.g. {"file": "src/db.ts", "line": 42}'),
    metadata: record.optional(),
  }),
  query_findings: z.strictObject({
    executionId: id.optional(),
    projectId: z.number().int().positive().optional().describe("That project's findings plus global ones"),
    severity: z.union([z.enum(FINDING_SEVERITIES), z.array(z.enum(FINDING_SEVERITIES)).min(1)]).optional(),
    category: id.optional(),
    tags: z.array(z.string().min(1)).optional().describe('Findings with any of these tags'),
    isGlobal: z.boolean().optional(),
    searchText: text.optional().describe('Full-text search: terms (AND), OR, NOT, "phrases", prefix*; ranked by relevance'),
    limit: limit.optional().describe('Page size (default 50, max 500)'),
    offset: offset.optional(),
  }),
  get_execution_history: z.strictObject({
    workflowName: id.optional(),
    projectId: z.number().int().positive().optional(),
    state: z.enum(EXECUTION_STATES as [string, ...string[]]).optional(),
    limit: limit.optional(),
    offset: offset.optional(),
  }),
  get_execution_details: z.strictObject({
    executionId: id.describe('Execution id (or task id of a workflow_next_step run)'),
    includeSteps: z.boolean().optional().describe('Default true'),
    includeLogs: z.boolean().optional(),
    includeArtifacts: z.boolean().optional(),
    includeFindings: z.boolean().optional(),
    ...detailsPaging(),
  }),
} as const;

const execution = z.looseObject({
  id: z.string(),
  workflowName: z.string().nullable(),
  state: z.string(),
  projectId: z.number().nullable(),
  timeoutMs: z.number().nullable(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  error: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const step = z.looseObject({ id: z.string(), executionId: z.string(), stepName: z.string(), state: z.string(), dependsOn: z.array(z.string()) });
const transition = z.looseObject({ success: z.literal(true), executionId: z.string(), from: z.string(), state: z.string(), contract: z.looseObject({}).optional() });
const log = z.looseObject({ id: z.string(), executionId: z.string(), layer: z.string(), layerId: z.string(), logLevel: z.string(), message: z.string(), timestamp: z.string() });
const artifact = z.looseObject({ id: z.string(), executionId: z.string(), name: z.string(), contentType: z.string(), encoding: z.string(), sizeBytes: z.number() });
/** An artifact in get_execution_details: its content may be cut to the answer's budget, saying so and where it is. */
const inlineArtifact = artifact.extend({
  content: z.string(),
  truncated: z.literal(true).optional().describe('The content was cut, or left out, to fit the answer; sizeBytes is its whole size'),
  uri: z.string().optional().describe('With truncated: the workflow-artifacts:// URI that reads the artifact whole'),
});
const finding = z.looseObject({ id: z.string(), severity: z.string(), category: z.string(), title: z.string().nullable(), description: z.string(), isGlobal: z.boolean(), tags: z.array(z.string()) });
const executions = z.looseObject({ executions: z.array(execution) });
/** Where a list of get_execution_details stands. */
const detailsPage = z.looseObject({
  total: z.number().describe('How many there are in all'),
  limit: z.number(),
  offset: z.number().describe('How many newer ones were skipped'),
  nextOffset: z.number().optional().describe('Present while older ones remain: the <list>Offset that lists them'),
});

/** Outputs (`structuredContent`), by tool name. */
export const LIFECYCLE_OUTPUTS = {
  start_execution: execution,
  transition_workflow_state: transition,
  start_step: step,
  complete_step: step,
  check_execution_timeout: z.looseObject({ timedOut: z.array(execution), count: z.number() }),
  resume_execution: transition,
  complete_execution: transition,
  get_incomplete_executions: executions,
  log_execution: log.extend({ duplicate: z.boolean(), contracts: z.array(z.looseObject({})) }),
  store_artifact: artifact,
  store_finding: finding,
  query_findings: z.looseObject({ findings: z.array(finding), total: z.number(), limit: z.number(), offset: z.number() }),
  get_execution_history: executions.extend({ total: z.number(), limit: z.number(), offset: z.number() }),
  get_execution_details: z.looseObject({
    execution, steps: z.array(step).optional(), logs: z.array(log).optional(), artifacts: z.array(inlineArtifact).optional(), findings: z.array(finding).optional(),
    pages: z.looseObject(Object.fromEntries(DETAILS_LISTS.map((list) => [list, detailsPage.optional()]))),
  }),
} as const;

/** What each field must be, in words an agent can act on (`[]` marks array items). */
export const LIFECYCLE_HINTS: Record<string, string> = {
  workflowName: 'a non-empty string naming a workflow (see search_workflows)',
  projectPath: 'an absolute folder path',
  projectId: 'a positive whole number (see list_projects)',
  metadata: 'an object',
  timeoutMs: 'a positive whole number of milliseconds',
  executionId: 'a non-empty execution id string (from start_execution or get_incomplete_executions)',
  newState: `one of ${TRANSITION_TARGETS.join(', ')}`,
  error: 'a string saying what went wrong',
  stepName: 'a string that is not empty or only spaces',
  phaseName: 'a string that is not empty or only spaces',
  dependsOn: 'an array of step ids (strings of digits, from start_step results)',
  'dependsOn[]': 'a step id: a string of digits such as "12"',
  agentName: 'a string that is not empty or only spaces',
  stepId: 'a step id: a string of digits such as "12" (from start_step)',
  output: 'an object such as {"summary": "...", "artifacts": [], "findings": [], "confidence": 0.9}',
  layer: `one of ${LOG_LAYERS.join(', ')}`,
  layerId: 'a non-empty string (e.g. the step id)',
  logLevel: `one of ${LOG_LEVELS.join(', ')}`,
  message: 'a string that is not empty or only spaces',
  context: 'an object',
  contractInput: 'an object',
  contractOutput: 'an object',
  name: 'a string that is not empty or only spaces, such as report.md',
  contentType: `one of ${CONTENT_TYPES.join(', ')}`,
  content: 'a string (base64 for binary)',
  severity: `one of ${FINDING_SEVERITIES.join(', ')} (query_findings also takes an array of them)`,
  category: 'a string that is not empty or only spaces, such as security',
  title: 'a string that is not empty or only spaces',
  description: 'a string that is not empty or only spaces',
  tags: 'an array of non-empty strings',
  'tags[]': 'a non-empty string',
  isGlobal: 'true or false',
  location: 'an object such as {"file": "src/a.ts", "line": 3}',
  searchText: 'a search string with at least one term (not only spaces): terms, OR, NOT, "phrases", prefix*',
  limit: 'a whole number from 1 to 500',
  offset: 'a whole number, 0 or more',
  state: `one of ${EXECUTION_STATES.join(', ')}`,
  includeSteps: 'true or false',
  includeLogs: 'true or false',
  includeArtifacts: 'true or false',
  includeFindings: 'true or false',
  ...Object.fromEntries(DETAILS_LISTS.flatMap((list) => [
    [`${list}Limit`, `a whole number from 1 to ${DETAILS_LIST_MAX}`], [`${list}Offset`, 'a whole number, 0 or more'],
  ])),
};
