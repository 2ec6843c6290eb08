// The read-only resources of the broker spec, with DESIGN.md's hyphenated schemes.
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ArtifactQuery, ArtifactsResource, BatonApi } from '../core/api.js';
import { parseArtifactsUri } from '../core/broker/artifactQuery.js';
import { BatonError } from '../core/errors.js';
import { STORED_ARTIFACT_TYPES } from '../core/lifecycleTypes.js';
import { resourceCompleters } from './completions.js';
import { quoted } from './inputErrors.js';

const MD = 'text/markdown';
const JSON_MIME = 'application/json';

/** A markdown resource body. */
function markdown(uri: URL, text: string): ReadResourceResult {
  return { contents: [{ uri: uri.href, mimeType: MD, text }] };
}

/** A JSON resource body. */
function json(uri: URL, value: unknown): ReadResourceResult {
  return { contents: [{ uri: uri.href, mimeType: JSON_MIME, text: JSON.stringify(value) }] };
}

/** The one variable of a template match, decoded. */
function variable(vars: Record<string, string | string[]>, name: string): string {
  const v = vars[name];
  const raw = Array.isArray(v) ? v.join(',') : v ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new BatonError('invalid_input', `${name} ${quoted(raw)} is not valid percent-encoding (a % must be followed by two hex digits of UTF-8); write it as resources/list names it`);
  }
}

/** `active` plus one entry per unfinished execution, for the list callbacks of the per-task resources. */
function executionEntries(baton: BatonApi, scheme: string, label: string) {
  const list = [{ uri: `${scheme}://active`, name: `${label}: active task`, mimeType: JSON_MIME }];
  for (const e of baton.listExecutions({ active_only: true, limit: 50 })) {
    const id = e.task_id ?? e.execution_id;
    list.push({ uri: `${scheme}://${encodeURIComponent(id)}`, name: `${label}: ${e.workflow ?? e.kind} ${id}`, mimeType: JSON_MIME });
  }
  return list;
}

/**
 * Runs an artifact query. An empty answer that comes from a typo rather than from no artifacts (a type no artifact can
 * have, an id that names no execution, a task id or `active` where an execution id is due) is an error naming what
 * to read.
 */
function artifactsOf(baton: BatonApi, q: ArtifactQuery): ArtifactsResource {
  const found = baton.artifacts(q);
  if (found.total > 0) return found;
  if (q.type === 'by_type' && !STORED_ARTIFACT_TYPES.includes(q.artifact_type)) {
    throw new BatonError('invalid_input', `No artifact type ${quoted(q.artifact_type)}; the types are ${STORED_ARTIFACT_TYPES.join(', ')} (workflow-artifacts://type/{type}).`);
  }
  if (q.type !== 'execution' || q.artifact_id !== undefined) return found;
  let executionId: string;
  try {
    executionId = baton.workflowStatus(q.execution_id, { artifacts: false }).execution_id;
  } catch (ex) {
    if (!BatonError.is(ex, 'execution_not_found')) throw ex;
    throw new BatonError('execution_not_found', `No execution ${quoted(q.execution_id)}; workflow-artifacts://{execution_id} takes an execution id, as workflow-status://active names it (execution_id), or read workflow-artifacts://recent?limit=50.`);
  }
  if (executionId !== q.execution_id) {
    const final = q.is_final ? '?final=true' : '';
    throw new BatonError('invalid_input', `${quoted(q.execution_id)} is not an execution id; the artifacts of the execution it names are at workflow-artifacts://${encodeURIComponent(executionId)}${final}.`);
  }
  return found;
}

/** Registers every resource; errors thrown here are BatonErrors that the read wrapper turns into MCP errors. */
export function registerResources(server: McpServer, baton: BatonApi): void {
  const complete = resourceCompleters(baton);
  server.registerResource(
    'persona',
    new ResourceTemplate('persona://{agent}', {
      complete: complete.persona,
      list: () => ({
        resources: ['default', ...baton.agentNames()].map((a) => ({ uri: `persona://${encodeURIComponent(a)}`, name: `persona: ${a}`, mimeType: MD })),
      }),
    }),
    { title: 'Agent persona', description: 'The full persona of an agent (markdown); persona://default is the supervisor.', mimeType: MD },
    (uri, vars) => markdown(uri, baton.persona(variable(vars, 'agent'))),
  );
  server.registerResource(
    'guardrails',
    'guardrails://active',
    { title: 'Active guardrails', description: 'Rules in force and forbidden actions (markdown).', mimeType: MD },
    (uri) => markdown(uri, baton.guardrails()),
  );
  server.registerResource(
    'current-step',
    new ResourceTemplate('current-step://{task_id}', { complete: complete['current-step'], list: () => ({ resources: executionEntries(baton, 'current-step', 'current step') }) }),
    { title: 'Current step', description: 'The step in progress of a task (task id, execution id or "active"), its contract and artifacts.', mimeType: JSON_MIME },
    (uri, vars) => json(uri, baton.currentStep(variable(vars, 'task_id'))),
  );
  server.registerResource(
    'workflow-status',
    new ResourceTemplate('workflow-status://{task_id}', { complete: complete['workflow-status'], list: () => ({ resources: executionEntries(baton, 'workflow-status', 'workflow status') }) }),
    { title: 'Workflow status', description: 'Full history of an execution: every step with its artifacts.', mimeType: JSON_MIME },
    (uri, vars) => json(uri, baton.workflowStatus(variable(vars, 'task_id'))),
  );
  server.registerResource(
    'project-context',
    new ResourceTemplate('project-context://{project_id}', {
      complete: complete['project-context'],
      list: () => ({ resources: [{ uri: 'project-context://current', name: 'project context: workspace project', mimeType: JSON_MIME }] }),
    }),
    { title: 'Project context', description: 'The project and its active task ("current" = the workspace project).', mimeType: JSON_MIME },
    async (uri, vars) => json(uri, await baton.projectContext(variable(vars, 'project_id'))),
  );
  server.registerResource(
    'available-workflows',
    'available-workflows://all',
    { title: 'Available workflows', description: 'Every workflow template with its metadata.', mimeType: JSON_MIME },
    (uri) => json(uri, baton.availableWorkflows()),
  );
  server.registerResource(
    'workflow-artifacts',
    // `{+query}` matches every form: recent?limit=N, type/T?limit=N, final, final/ID, ID, ID?final=true.
    new ResourceTemplate('workflow-artifacts://{+query}', {
      complete: complete['workflow-artifacts'],
      list: () => ({
        resources: [
          { uri: 'workflow-artifacts://recent?limit=50', name: 'artifacts: recent', mimeType: JSON_MIME },
          { uri: 'workflow-artifacts://final', name: 'artifacts: final', mimeType: JSON_MIME },
        ],
      }),
    }),
    {
      title: 'Workflow artifacts',
      description:
        'Artifacts by query: recent?limit=N, type/{type}?limit=N, final, final/{execution_id}, {execution_id}, {execution_id}?final=true.',
      mimeType: JSON_MIME,
    },
    (uri) => json(uri, artifactsOf(baton, parseArtifactsUri(uri.href))),
  );
}
