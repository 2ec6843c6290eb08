// Argument completion (MCP completion/complete) for the resource templates: the values a client can offer while
// someone types a template variable, such as the running tasks for current-step://{task_id}. The spec prompt's
// `source` (prompts.ts) is matched the same way.
import type { CompleteResourceTemplateCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { BatonApi } from '../core/api.js';
import { STORED_ARTIFACT_TYPES } from '../core/lifecycleTypes.js';

/**
 * The candidates that start with what was typed, then those that contain it (case-insensitive, each once, in the
 * order given within each group). All of them: the SDK sends the first 100 and says how many there are.
 */
export function matching(candidates: Iterable<string>, typed: string): string[] {
  const needle = typed.toLowerCase();
  const starts: string[] = [];
  const contains: string[] = [];
  const seen = new Set<string>();
  for (const value of candidates) {
    if (seen.has(value)) continue;
    seen.add(value);
    const at = value.toLowerCase().indexOf(needle);
    if (at === 0) starts.push(value);
    else if (at > 0) contains.push(value);
  }
  return [...starts, ...contains];
}

/** A completer over candidates computed when a client asks. */
function completer(candidates: (typed: string) => Iterable<string>): CompleteResourceTemplateCallback {
  return (typed) => matching(candidates(typed ?? ''), typed ?? '');
}

/** The ids an execution resource takes: `active`, task ids, and (once something is typed) execution ids too. */
function executionIds(baton: BatonApi, activeOnly: boolean): (typed: string) => string[] {
  return (typed) => {
    const executions = baton.listExecutions({ active_only: activeOnly, limit: 50 });
    const ids = ['active', ...executions.map((e) => e.task_id ?? e.execution_id)];
    if (typed) ids.push(...executions.map((e) => e.execution_id));
    return ids;
  };
}

/** The completers of each resource template's variables, by template name. */
export function resourceCompleters(baton: BatonApi): Record<string, Record<string, CompleteResourceTemplateCallback>> {
  return {
    persona: { agent: completer(() => ['default', ...baton.agentNames()]) },
    'current-step': { task_id: completer(executionIds(baton, true)) },
    'workflow-status': { task_id: completer(executionIds(baton, false)) },
    'project-context': { project_id: completer(() => ['current']) },
    'workflow-artifacts': {
      query: completer((typed) => {
        const forms = ['recent?limit=50', 'final', 'type/'];
        if (!typed) return forms;
        const ids = baton.listExecutions({ limit: 50 }).map((e) => e.execution_id);
        const types = STORED_ARTIFACT_TYPES.map((t) => `type/${t}`);
        return [...forms, ...types, ...ids.map((id) => `final/${id}`), ...ids, ...ids.map((id) => `${id}?final=true`)];
      }),
    },
  };
}
