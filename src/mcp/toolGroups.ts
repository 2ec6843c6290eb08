// Tool groups a user switches on or off, because clients cap the number of tools and each costs context.
import { BatonError } from '../core/errors.js';

/** Every tool group of DESIGN.md's table. */
export const TOOL_GROUPS = ['broker', 'specs', 'lifecycle', 'content', 'memory', 'context'] as const;
/** One tool group. */
export type ToolGroup = (typeof TOOL_GROUPS)[number];
/** Groups on when the user names none. */
export const DEFAULT_TOOL_GROUPS: readonly ToolGroup[] = ['broker'];

/** The tools of each group (the registrars' names; a test holds the two together). */
export const GROUP_TOOLS: Readonly<Record<ToolGroup, readonly string[]>> = {
  broker: ['workflow_next_step'],
  specs: ['start_workflow', 'get_current_phase', 'get_task', 'complete_phase'],
  lifecycle: [
    'start_execution', 'transition_workflow_state', 'start_step', 'complete_step', 'check_execution_timeout', 'resume_execution',
    'complete_execution', 'get_incomplete_executions', 'log_execution', 'store_artifact', 'store_finding', 'query_findings',
    'get_execution_history', 'get_execution_details',
  ],
  content: ['search_workflows', 'list_projects', 'get_workflow', 'get_agent_persona', 'get_relevant_rules', 'get_project_context'],
  memory: ['memory_store', 'memory_retrieve', 'memory_search', 'memory_list'],
  context: [
    'channel_send', 'channel_read', 'channel_peek', 'inbox_check', 'channel_mentions', 'inbox_peek', 'inbox_ack', 'document_read',
    'document_write', 'document_append', 'document_list', 'document_create', 'document_delete',
  ],
};

/** The group whose tool `name` is, if any. */
export function groupOfTool(name: string): ToolGroup | undefined {
  return TOOL_GROUPS.find((g) => GROUP_TOOLS[g].includes(name));
}

/** Whether `name` is a tool group. */
export function isToolGroup(name: string): name is ToolGroup {
  return (TOOL_GROUPS as readonly string[]).includes(name);
}

/** Parses `--tools` values such as `broker`, `broker,lifecycle` or `all`; throws a BatonError naming the valid groups. */
export function parseToolGroups(value: string | undefined): ToolGroup[] {
  if (value === undefined || value.trim() === '') return [...DEFAULT_TOOL_GROUPS];
  const names = value.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (names.length === 0) throw new BatonError('invalid_input', `no tool group in "${value}"; valid groups: ${TOOL_GROUPS.join(', ')} (or "all")`);
  if (names.includes('all')) {
    assertToolGroups(names.filter((n) => n !== 'all')); // "all,bogus" is a typo too
    return [...TOOL_GROUPS];
  }
  return assertToolGroups(names);
}

/** Checks a list of group names; throws a BatonError naming the unknown ones and the valid ones. */
export function assertToolGroups(names: readonly string[]): ToolGroup[] {
  const unknown = names.filter((n) => !isToolGroup(n));
  if (unknown.length > 0) {
    throw new BatonError(
      'invalid_input',
      `unknown tool group${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; ` +
        `valid groups: ${TOOL_GROUPS.join(', ')} (or "all")`,
    );
  }
  return [...new Set(names as ToolGroup[])];
}
