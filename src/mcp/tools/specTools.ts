// The `specs` group (off by default): the dynamic-spec-workflows spec's own tools with its names and parameters,
// thin over baton.specs. `session_id` is the execution id; the same workflow is reachable through workflow_next_step.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { BatonApi } from '../../core/api.js';
import type { Log } from '../../core/ports.js';
import type { SpecPhaseResult } from '../../core/specTypes.js';
import { requestKeyOf } from '../requestKey.js';
import type { ToolSpec } from '../toolSpec.js';
import { registerToolDefs, tool, type ToolDef } from './lifecycleTools.js';
import { evidenceInput } from './nextStepSchema.js';

const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const session = z.string().min(1).describe('The session_id start_workflow returned (the execution id)');
const phase = z.number().int().min(0).describe('Phase number (0 is the workflow\'s own first phase)');

/** Input schemas of the `specs` tools (the spec's parameter names). */
export const SPEC_INPUTS = {
  start_workflow: z.strictObject({
    workflow_type: z.string().min(1).describe('The workflow template, such as spec_execution_v1'),
    target_file: z.string().min(1).describe("The spec's tasks.md, relative to the workspace"),
    metadata: z.record(z.string(), z.unknown()).optional().describe("Kept with the workflow; the template's source key (spec_path) overrides target_file"),
  }),
  get_current_phase: z.strictObject({ session_id: session }),
  get_task: z.strictObject({ session_id: session, phase, task_number: z.number().int().describe('Task number within the phase, 1-based') }),
  complete_phase: z.strictObject({
    session_id: session, phase,
    evidence: evidenceInput.describe('One entry per validation-gate item: {"1": "what shows it", …} (or keyed by the item text, or a list in gate order)'),
  }),
};

const phaseResult = z.looseObject({
  session_id: z.string(), workflow_type: z.string(), status: z.string(), current_phase: z.number().nullable(), total_phases: z.number(),
  source: z.string(), phase_content: z.looseObject({}).nullable(), human_message: z.string(),
  already_started: z.literal(true).optional().describe('A start sent again with the request key of an earlier one: the workflow that one started'),
  warnings: z.array(z.object({ line: z.number(), message: z.string() })).optional().describe('On a start: what looks wrong in the tasks.md, which runs as parsed'),
});
const taskResult = z.looseObject({
  session_id: z.string(), phase: z.number(), task_number: z.number(), task_count: z.number(), task_id: z.string(), task_name: z.string(), task_content: z.string(),
});

/** Field hints for input errors. */
export const SPEC_HINTS: Record<string, string> = {
  workflow_type: 'a workflow template name such as "spec_execution_v1"',
  target_file: 'the tasks.md path relative to the workspace, such as "specs/auth/tasks.md"',
  session_id: 'the session_id string start_workflow returned',
  phase: 'a whole number, 0 or more',
  task_number: 'a whole number, 1 or more',
  evidence: 'an object {"1": "what shows gate item 1", …} or a list in gate order',
  metadata: 'an object (free-form data kept with the workflow)',
};

/** The text of a phase result: where the workflow stands and the phase's instructions and tasks. */
function phaseText(r: SpecPhaseResult): string {
  const lines = [`session_id: ${r.session_id} · status: ${r.status} · phase ${r.current_phase ?? '-'} of ${r.total_phases - 1} · ${r.source}`, r.human_message];
  for (const w of r.warnings ?? []) lines.push(`Warning: ${r.source} line ${w.line}: ${w.message}`);
  const c = r.phase_content;
  if (c) {
    lines.push('', c.phase_overview);
    if (c.tasks.length) lines.push('', '## Tasks', ...c.tasks.map((t) => `${t.task_number}. ${t.task_id} ${t.name}${t.acceptance_criteria.length ? `: ${t.acceptance_criteria.join('; ')}` : ''}`));
    if (c.phase === 0 && c.validation_gate.length) lines.push('', '## Validation gate', ...c.validation_gate.map((g, i) => `${i + 1}. ${g}`));
  }
  return lines.join('\n');
}

/** Registers start_workflow, get_current_phase, get_task and complete_phase. */
export function registerSpecTools(server: McpServer, baton: BatonApi, log: Log): ToolSpec[] {
  const s = baton.specs;
  const defs: ToolDef[] = [
    tool({
      name: 'start_workflow', title: 'Specs: start workflow', input: SPEC_INPUTS.start_workflow, output: phaseResult, annotations: WRITE,
      description: 'Start a spec workflow on a tasks.md: its phases become gated steps. Returns session_id and Phase 0 (read the spec, confirm scope). Then: get_task for a task, complete_phase with evidence for every gate item, get_current_phase for where you are.',
      run: async (a, extra) => {
        const ctx = { request_key: requestKeyOf(extra) };
        const r = await s.start({ source: a.target_file, template_name: a.workflow_type, claim: true, metadata: a.metadata }, ctx);
        return { structured: r, text: phaseText(r) };
      },
    }),
    tool({
      name: 'get_current_phase', title: 'Specs: get current phase', input: SPEC_INPUTS.get_current_phase, output: phaseResult, annotations: WRITE,
      description: 'The current phase of a spec workflow: its instructions, tasks and validation gate (or that it waits for a sign-off, or that the workflow is complete).',
      run: async (a) => {
        const r = await s.currentPhase(a.session_id);
        return { structured: r, text: phaseText(r) };
      },
    }),
    tool({
      name: 'get_task', title: 'Specs: get task', input: SPEC_INPUTS.get_task, output: taskResult, annotations: READ,
      description: 'One task of the current (or an earlier) phase, rendered with its acceptance criteria. A later phase is refused (phase_locked).',
      run: async (a) => {
        const r = s.getTask(a.session_id, a.phase, a.task_number);
        return { structured: r, text: r.task_content };
      },
    }),
    tool({
      name: 'complete_phase', title: 'Specs: complete phase', input: SPEC_INPUTS.complete_phase, output: phaseResult, annotations: WRITE,
      description: 'Submit the current phase with evidence for every validation-gate item; a missing item is refused by its text and the phase stays open. Returns the next phase (or awaiting_approval when a person signs the phase off).',
      run: async (a) => {
        const r = await s.completePhase(a.session_id, a.phase, a.evidence);
        return { structured: r, text: phaseText(r) };
      },
    }),
  ];
  return registerToolDefs(server, log, defs, SPEC_HINTS);
}
