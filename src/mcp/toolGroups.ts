// Tool groups a user switches on or off, because clients cap the number of tools and each costs context.
import { BatonError } from '../core/errors.js';

/** Every tool group of DESIGN.md's table. */
export const TOOL_GROUPS = ['broker', 'specs', 'lifecycle', 'content', 'memory', 'context'] as const;
/** One tool group. */
export type ToolGroup = (typeof TOOL_GROUPS)[number];
/** Groups on when the user names none. */
export const DEFAULT_TOOL_GROUPS: readonly ToolGroup[] = ['broker'];

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
