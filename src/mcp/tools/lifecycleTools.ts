// The `lifecycle` group: the lifecycle, logging and query tools of specs/lifecycle-tools.md, thin over baton.lifecycle.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';
import type { BatonApi } from '../../core/api.js';
import { BatonError } from '../../core/errors.js';
import { DETAILS_LIST_LIMIT, DETAILS_LIST_MAX } from '../../core/lifecycle/detailsPages.js';
import { DETAILS_ARTIFACTS_BUDGET_BYTES } from '../../core/lifecycle/records.js';
import { DETAILS_LISTS, type ExecutionDetails } from '../../core/lifecycleTypes.js';
import type { ExecutionStatus } from '../../core/types.js';
import type { Log } from '../../core/ports.js';
import { plural } from '../../shared/labels.js';
import { tooDeepResult } from '../inputErrors.js';
import { requestKeyOf } from '../requestKey.js';
import type { ToolCallExtra, ToolSpec } from '../toolSpec.js';
import { LIFECYCLE_HINTS, LIFECYCLE_INPUTS, LIFECYCLE_OUTPUTS } from './lifecycleSchema.js';
import { findingsText } from './listText.js';

/** One tool: its listing and its single core call, returning the structured result and a short text. */
export interface ToolDef<I extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: z.ZodObject;
  annotations: ToolAnnotations;
  /** `extra`: what the SDK hands a tool with the call (its `_meta`, say). */
  run: (args: z.infer<I>, extra?: ToolCallExtra) => Promise<{ structured: unknown; text: string }>;
}

const QUERY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

/** Registers tool definitions; domain errors become `isError` results carrying the BatonError message and reason. */
export function registerToolDefs(server: McpServer, log: Log, defs: ReadonlyArray<ToolDef>, hints: Record<string, string>): ToolSpec[] {
  return defs.map((def) => {
    const call = async (args: unknown, extra?: ToolCallExtra): Promise<CallToolResult> => {
      try {
        const { structured, text } = await def.run(args as z.infer<typeof def.input>, extra);
        return { structuredContent: structured as Record<string, unknown>, content: [{ type: 'text', text }] };
      } catch (ex) {
        if (BatonError.is(ex)) return { isError: true, content: [{ type: 'text', text: ex.message }], _meta: { errorCode: ex.reason, ...(Object.keys(ex.details).length ? { errorDetails: ex.details } : {}) } };
        const tooDeep = tooDeepResult(def.name, ex);
        if (tooDeep) return tooDeep;
        log.error(`${def.name} failed`, ex);
        return { isError: true, content: [{ type: 'text', text: "internal error; see Baton's log" }] };
      }
    };
    server.registerTool(
      def.name,
      { title: def.title, description: def.description, inputSchema: def.input, outputSchema: def.output, annotations: def.annotations },
      call,
    );
    return { name: def.name, aliases: [], inputSchema: def.input, hints, call };
  });
}

/** A tool definition with its input type checked against its schema. */
export function tool<I extends z.ZodObject>(def: ToolDef<I>): ToolDef {
  return def as unknown as ToolDef;
}

const I = LIFECYCLE_INPUTS;
const O = LIFECYCLE_OUTPUTS;

/** Registers the lifecycle, logging and query tools; returns their specs for input pre-validation. */
export function registerLifecycleTools(server: McpServer, baton: BatonApi, log: Log): ToolSpec[] {
  const lc = baton.lifecycle;
  const defs: ToolDef[] = [
    tool({
      name: 'start_execution', title: 'Lifecycle: start execution', input: I.start_execution, output: O.start_execution, annotations: WRITE,
      description: 'Create an execution of a workflow template in state "pending", with the template\'s steps as phases. Next: transition_workflow_state({executionId, newState: "running"}), then start_step / complete_step for each phase, then complete_execution. timeoutMs makes it move to "timeout" if it runs longer.',
      run: async (a, extra) => {
        const e = await lc.startExecution(a, requestKeyOf(extra));
        return { structured: e, text: `Execution ${e.id} of ${e.workflowName} is pending with ${e.phases?.length ?? 0} phases; move it to running with transition_workflow_state.` };
      },
    }),
    tool({
      name: 'transition_workflow_state', title: 'Lifecycle: change execution state', input: I.transition_workflow_state, output: O.transition_workflow_state, annotations: WRITE,
      description: 'Move an execution to another state. Allowed: pending→running|failed; running→completed|failed|timeout|escalated|paused; timeout→running|failed; escalated→running|completed|failed; paused→running|failed; completed and failed are final. An illegal move is refused with the allowed ones.',
      run: async (a) => {
        const r = await lc.transition(a.executionId, a.newState as ExecutionStatus, a.error);
        return { structured: r, text: `Execution ${r.executionId}: ${r.from} → ${r.state}.` };
      },
    }),
    tool({
      name: 'start_step', title: 'Lifecycle: start step', input: I.start_step, output: O.start_step, annotations: WRITE,
      description: 'Start a step of a running execution. dependsOn lists step ids that must be completed first; if one is not, the step is kept pending and the error names what it waits for — call start_step again with the same stepName later. Returns the step (state "running") with its id for complete_step.',
      run: async (a) => {
        const s = await lc.startStep(a);
        return { structured: s, text: `Step ${s.id} "${s.stepName}" is ${s.state}; finish it with complete_step({stepId: "${s.id}", output}).` };
      },
    }),
    tool({
      name: 'complete_step', title: 'Lifecycle: complete step', input: I.complete_step, output: O.complete_step, annotations: WRITE,
      description: 'Finish a running step: with output (checked against the StepOutput contract: {summary, artifacts?, findings?, confidence 0–1}) it becomes completed; with error it becomes failed. A contract violation names each failing field.',
      run: async (a) => {
        const s = await lc.completeStep(a.stepId, a.output, a.error);
        const note = s.contract && !s.contract.validated ? ` (${s.contract.notice})` : '';
        return { structured: s, text: `Step ${s.id} "${s.stepName}" is ${s.state}.${note}` };
      },
    }),
    tool({
      name: 'check_execution_timeout', title: 'Lifecycle: check timeouts', input: I.check_execution_timeout, output: O.check_execution_timeout, annotations: { ...WRITE, idempotentHint: true },
      description: 'Move every running execution that has run longer than its timeoutMs to "timeout" and list them. Resume one with resume_execution. Baton also sweeps on its own timer.',
      run: async () => {
        const timedOut = await lc.checkTimeouts();
        return { structured: { timedOut, count: timedOut.length }, text: timedOut.length ? `${plural(timedOut.length, 'execution')} timed out: ${timedOut.map((e) => e.id).join(', ')}.` : 'No execution has timed out.' };
      },
    }),
    tool({
      name: 'resume_execution', title: 'Lifecycle: resume execution', input: I.resume_execution, output: O.resume_execution, annotations: WRITE,
      description: 'Bring an execution in "timeout", "escalated" or "paused" back to "running" (its timeout starts again). Other states are refused.',
      run: async (a) => {
        const r = await lc.resume(a.executionId);
        return { structured: r, text: `Execution ${r.executionId} resumed (${r.from} → running).` };
      },
    }),
    tool({
      name: 'complete_execution', title: 'Lifecycle: complete execution', input: I.complete_execution, output: O.complete_execution, annotations: WRITE,
      description: 'Finish an execution: with output (checked against the WorkflowOutput contract: {summary, workflow?, steps?, artifacts?, findings?, confidence?}) it becomes completed; with error it becomes failed.',
      run: async (a) => {
        const r = await lc.completeExecution(a.executionId, a.output, a.error);
        return { structured: r, text: `Execution ${r.executionId} is ${r.state}.` };
      },
    }),
    tool({
      name: 'get_incomplete_executions', title: 'Lifecycle: incomplete executions', input: I.get_incomplete_executions, output: O.get_incomplete_executions, annotations: QUERY,
      description: 'List executions that are not finished (pending, running, paused, awaiting_approval, timeout, escalated), oldest first, to pick one up again.',
      run: async (a) => {
        const executions = lc.incomplete(a.workflowName);
        return { structured: { executions, count: executions.length }, text: `${plural(executions.length, 'incomplete execution')}.` };
      },
    }),
    tool({
      name: 'log_execution', title: 'Logging: log execution', input: I.log_execution, output: O.log_execution, annotations: { ...WRITE, idempotentHint: true },
      description: 'Record a log entry once per (executionId, layer, layerId): repeating the call returns the stored entry (duplicate: true) and writes nothing. contractInput / contractOutput are validated against <Layer>Input / <Layer>Output schemas in .baton/contracts when present.',
      run: async (a) => {
        const r = await lc.log(a);
        return { structured: { ...r.log, duplicate: r.duplicate, contracts: r.contracts }, text: r.duplicate ? `Already logged as ${r.log.id}; nothing written.` : `Logged ${r.log.id}.` };
      },
    }),
    tool({
      name: 'store_artifact', title: 'Logging: store artifact', input: I.store_artifact, output: O.store_artifact, annotations: WRITE,
      description: 'Store an immutable artifact of an execution (never updated; store a new one instead). Binary content is sent as base64 and kept so; sizeBytes is the decoded size. The result omits the content you sent; read it back with get_execution_details({includeArtifacts: true}) (within its content budget) or whole at workflow-artifacts://EXECUTION#ARTIFACT_ID.',
      run: async (a) => {
        const { content: _content, ...artifact } = await lc.storeArtifact(a);
        return { structured: artifact, text: `Stored artifact ${artifact.id} "${artifact.name}" (${artifact.sizeBytes} bytes).` };
      },
    }),
    tool({
      name: 'store_finding', title: 'Logging: store finding', input: I.store_finding, output: O.store_finding, annotations: WRITE,
      description: "Record a finding (a problem or observation) of an execution. It belongs to the execution's project unless isGlobal is true, and is searchable at once with query_findings.",
      run: async (a) => {
        const f = await lc.storeFinding(a);
        return { structured: f, text: `Stored ${f.severity} finding ${f.id} "${f.title}".` };
      },
    }),
    tool({
      name: 'query_findings', title: 'Query: findings', input: I.query_findings, output: O.query_findings, annotations: QUERY,
      description: 'Find findings by execution, project (its own plus global ones), severity (one or several), category, tags (any) and isGlobal. searchText is a full-text search ranked by relevance: words (all must match), OR, NOT, "exact phrases", prefix*. Paginate with limit and offset.',
      run: async (a) => {
        const page = lc.queryFindings(a);
        return { structured: page, text: findingsText(page) };
      },
    }),
    tool({
      name: 'get_execution_history', title: 'Query: execution history', input: I.get_execution_history, output: O.get_execution_history, annotations: QUERY,
      description: 'List executions (lifecycle and workflow_next_step runs alike), newest first, by workflowName, projectId and state; paginate with limit and offset.',
      run: async (a) => {
        const page = lc.history(a);
        return { structured: page, text: `${page.executions.length} of ${plural(page.total, 'execution')}.` };
      },
    }),
    tool({
      name: 'get_execution_details', title: 'Query: execution details', input: I.get_execution_details, output: O.get_execution_details, annotations: QUERY,
      description: `One execution with its steps (default; plus readyStepIds: pending steps whose dependencies are done) and, on request, its logs, artifacts (binary as base64) and findings. Works for executions started by start_execution or workflow_next_step. Each list holds its newest ${DETAILS_LIST_LIMIT} items in the order stored (<list>Limit: up to ${DETAILS_LIST_MAX}; fewer if they fill the answer); pages.<list> has total and, while older ones remain, nextOffset to pass as <list>Offset (stepsOffset, logsOffset, artifactsOffset, findingsOffset). Artifacts come with metadata and sizeBytes; one answer holds at most ${DETAILS_ARTIFACTS_BUDGET_BYTES / 1024} KB of artifacts, metadata and content, contents newest first: a content cut or left out has truncated: true and a uri (workflow-artifacts://EXECUTION#ARTIFACT_ID) to read with resources/read for the whole artifact.`,
      run: async (a) => {
        const d = lc.details(a);
        const cut = d.artifacts?.filter((x) => x.truncated).length ?? 0;
        const note = cut ? ` ${cut} of ${plural(d.artifacts!.length, 'listed artifact')} cut or left out to fit the ${DETAILS_ARTIFACTS_BUDGET_BYTES / 1024} KB artifacts budget; each has truncated: true and a uri that reads it whole.` : '';
        const steps = d.steps ? ` with ${plural(d.pages.steps!.total, 'step')}` : '';
        return { structured: d, text: `Execution ${d.execution.id} (${d.execution.workflowName ?? d.execution.kind}) is ${d.execution.state}${steps}.${pagesText(d)}${note}` };
      },
    }),
  ];
  return registerToolDefs(server, log, defs, LIFECYCLE_HINTS);
}

/** What get_execution_details left out of each list that holds only part of its items, and how to list the rest. */
function pagesText(d: ExecutionDetails): string {
  const parts: string[] = [];
  for (const list of DETAILS_LISTS) {
    const page = d.pages[list];
    const shown = d[list]?.length ?? 0;
    if (!page || (page.offset === 0 && shown === page.total)) continue;
    const from = page.offset ? ` after the newest ${page.offset}` : '';
    const next = page.nextOffset !== undefined ? `${list}Offset: ${page.nextOffset} lists older ones`
      : page.offset >= page.total && page.total > 0 ? `${list}Offset ${page.offset} is past the oldest; use 0 to ${page.total - 1}` : 'no older ones';
    parts.push(`${shown} of ${page.total} ${list}${from} (${next})`);
  }
  return parts.length ? ` Listed ${parts.join('; ')}.` : '';
}
