// The `content` group: the content provider tools of specs/lifecycle-tools.md, thin over baton.catalog.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { BatonApi } from '../../core/api.js';
import type { Log } from '../../core/ports.js';
import { plural } from '../../shared/labels.js';
import type { ToolSpec } from '../toolSpec.js';
import { CONTENT_HINTS, CONTENT_INPUTS, CONTENT_OUTPUTS } from './contentSchema.js';
import { registerToolDefs, tool, type ToolDef } from './lifecycleTools.js';

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const I = CONTENT_INPUTS;
const O = CONTENT_OUTPUTS;

const OPTIONS_HELP = 'detailLevel name | summary | full; fields keeps only the named fields; contentMode (with full) normalized | raw | synthesized | mixed; fileHash (the file SHA-256; contentHash is an alias) is the ETag: send it back as ifNoneMatch to get {notModified: true} when unchanged; redactPolicy none | pii | secrets | pii+secrets.';

/** Registers the content provider tools; returns their specs for input pre-validation. */
export function registerContentTools(server: McpServer, baton: BatonApi, log: Log): ToolSpec[] {
  const c = baton.catalog;
  const defs: ToolDef[] = [
    tool({
      name: 'search_workflows', title: 'Content: search workflows', input: I.search_workflows, output: O.search_workflows, annotations: READ,
      description: 'Find workflow templates by tags (any), keywords (all) and complexity, a page at a time. Then read one with get_workflow or run it with start_execution / workflow_next_step.',
      run: async (a) => {
        const r = c.searchWorkflows(a);
        return { structured: r, text: `${r.workflows.length} of ${plural(r.total, 'workflow')}: ${r.workflows.map((w) => w.name).join(', ') || '(none)'}.` };
      },
    }),
    tool({
      name: 'list_projects', title: 'Content: list projects', input: I.list_projects, output: O.list_projects, annotations: READ,
      description: 'List known projects (workspace folders and paths passed to get_project_context or start_execution), most recently used first, a page at a time.',
      run: async (a) => {
        const r = c.listProjects(a.page, a.limit);
        return { structured: r, text: `${r.projects.length} of ${plural(r.total, 'project')}.` };
      },
    }),
    tool({
      name: 'get_workflow', title: 'Content: get workflow', input: I.get_workflow, output: O.get_workflow, annotations: READ,
      description: `One workflow template. ${OPTIONS_HELP}`,
      run: async ({ workflowName, ...o }) => {
        const r = await c.getWorkflow(workflowName, o);
        return { structured: r, text: 'notModified' in r ? `Workflow ${workflowName} is unchanged.` : `Workflow ${workflowName}.` };
      },
    }),
    tool({
      name: 'get_agent_persona', title: 'Content: get agent persona', input: I.get_agent_persona, output: O.get_agent_persona, annotations: READ,
      description: `One agent persona (full detail carries its markdown). ${OPTIONS_HELP}`,
      run: async ({ agentName, ...o }) => {
        const r = await c.getAgentPersona(agentName, o);
        return { structured: r, text: 'notModified' in r ? `Agent ${agentName} is unchanged.` : `Agent ${agentName}.` };
      },
    }),
    tool({
      name: 'get_relevant_rules', title: 'Content: get relevant rules', input: I.get_relevant_rules, output: O.get_relevant_rules, annotations: READ,
      description: `Rules by tags (any), fileTypes (matched against each rule's globs) and alwaysApply, a page at a time; listHash is the ETag of the whole answer. ${OPTIONS_HELP}`,
      run: async (a) => {
        const r = await c.getRelevantRules(a);
        return { structured: r, text: 'notModified' in r ? 'The matching rules are unchanged.' : `${r.rules.length} of ${plural(r.total, 'rule')}: ${r.rules.map((x) => x.name).join(', ') || '(none)'}.` };
      },
    }),
    tool({
      name: 'get_project_context', title: 'Content: get project context', input: I.get_project_context, output: O.get_project_context, annotations: { ...READ, readOnlyHint: false },
      description: 'The project at projectPath (registered on first use, with git detection up the folder tree), or the workspace project when omitted.',
      run: async (a) => {
        const p = await c.projectContext(a.projectPath);
        return { structured: p, text: `Project ${p.id} "${p.name}" at ${p.path}${p.isGitRepo ? ' (git)' : ''}.` };
      },
    }),
  ];
  return registerToolDefs(server, log, defs, CONTENT_HINTS);
}
