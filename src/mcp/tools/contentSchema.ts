// Zod schemas of the content provider tools (specs/lifecycle-tools.md camelCase names) and their field hints.
import * as z from 'zod';
import { REDACT_POLICIES } from '../../core/safety/redact.js';

const DETAIL = ['name', 'summary', 'full'] as const;
const MODES = ['normalized', 'raw', 'synthesized', 'mixed'] as const;
/**
 * Every top-level field a workflow, agent or rule answer may have (at some detail level and content mode): a name
 * that is none of them (a misspelt "descripton") was dropped without a word, and the agent got kind and name alone.
 */
export const CONTENT_FIELDS = [
  'kind', 'name', 'description', 'type', 'tags', 'complexity', 'stepsCount', 'estimatedDurationMinutes', 'alwaysApply', 'globs',
  'source', 'updatedAt', 'content', 'raw', 'synthesized', 'contentMode', 'fileHash', 'contentHash',
] as const;
const page = z.number().int().min(1);
const limit = z.number().int().min(1).max(500);

/** Options every single-item content tool takes. */
const itemOptions = {
  detailLevel: z.enum(DETAIL).optional().describe('name, summary (default) or full'),
  fields: z.array(z.enum(CONTENT_FIELDS)).optional().describe('Keep only these top-level fields (kind and name always stay)'),
  contentMode: z.enum(MODES).optional().describe('With full: normalized (parsed, default), raw (file text), synthesized (markdown), mixed (parsed + file text)'),
  includeHash: z.boolean().optional().describe("Include fileHash, the file's SHA-256 and the ETag (also as contentHash) (default true)"),
  ifNoneMatch: z.string().min(1).optional().describe('A fileHash you hold: answers {notModified: true} if unchanged'),
  redactPolicy: z.enum(REDACT_POLICIES).optional().describe('none (default), pii, secrets or pii+secrets'),
};

/** Inputs, by tool name. */
export const CONTENT_INPUTS = {
  search_workflows: z.strictObject({
    tags: z.array(z.string().min(1)).optional().describe('Workflows with any of these tags'),
    keywords: z.array(z.string().min(1)).optional().describe('Words that must all appear (name, description, tags, steps)'),
    complexity: z.enum(['simple', 'moderate', 'high']).optional().describe('By step count: ≤3 simple, ≤6 moderate, more high'),
    detailLevel: itemOptions.detailLevel,
    page: page.optional().describe('From 1 (default 1)'),
    limit: limit.optional().describe('Default 50'),
  }),
  list_projects: z.strictObject({ page: page.optional(), limit: limit.optional() }),
  get_workflow: z.strictObject({ workflowName: z.string().min(1).describe('Workflow name'), ...itemOptions }),
  get_agent_persona: z.strictObject({ agentName: z.string().min(1).describe('Agent name, e.g. implementer'), ...itemOptions }),
  get_relevant_rules: z.strictObject({
    tags: z.array(z.string().min(1)).optional().describe('Rules with any of these tags'),
    fileTypes: z.array(z.string().min(1)).optional().describe('File types or paths (ts, *.ts, src/a.ts) matched against rule globs'),
    alwaysApply: z.boolean().optional(),
    ...itemOptions,
    ifNoneMatch: z.string().min(1).optional().describe('A listHash you hold: answers {notModified: true} if the matching rules are unchanged'),
    page: page.optional(),
    limit: limit.optional(),
  }),
  get_project_context: z.strictObject({ projectPath: z.string().min(1).optional().describe('A folder; default: the workspace project') }),
} as const;

const item = z.looseObject({ kind: z.string(), name: z.string() });
const notModified = z.looseObject({
  notModified: z.literal(true).optional(), fileHash: z.string().optional(), contentHash: z.string().optional(), kind: z.string().optional(), name: z.string().optional(),
});
const project = z.looseObject({ id: z.number(), name: z.string(), path: z.string(), isGitRepo: z.boolean(), metadata: z.looseObject({}).nullable() });

/** Outputs (`structuredContent`), by tool name. */
export const CONTENT_OUTPUTS = {
  search_workflows: z.looseObject({ workflows: z.array(item), total: z.number(), page: z.number(), limit: z.number() }),
  list_projects: z.looseObject({ projects: z.array(project), total: z.number(), page: z.number(), limit: z.number() }),
  get_workflow: notModified,
  get_agent_persona: notModified,
  get_relevant_rules: z.looseObject({ rules: z.array(item).optional(), total: z.number().optional(), notModified: z.literal(true).optional() }),
  get_project_context: project,
} as const;

/** What each field must be, in words an agent can act on. */
export const CONTENT_HINTS: Record<string, string> = {
  tags: 'an array of non-empty strings',
  'tags[]': 'a non-empty string',
  keywords: 'an array of non-empty strings',
  'keywords[]': 'a non-empty string',
  complexity: 'one of simple, moderate, high',
  detailLevel: `one of ${DETAIL.join(', ')}`,
  page: 'a whole number from 1',
  limit: 'a whole number from 1 to 500',
  workflowName: 'a non-empty workflow name (see search_workflows)',
  agentName: 'a non-empty agent name (see persona://default)',
  fields: 'an array of field names such as ["description", "tags"]',
  'fields[]': `one of ${CONTENT_FIELDS.join(', ')}`,
  contentMode: `one of ${MODES.join(', ')}`,
  includeHash: 'true or false',
  ifNoneMatch: 'the fileHash (or, for get_relevant_rules, listHash) string from an earlier answer',
  redactPolicy: `one of ${REDACT_POLICIES.join(', ')}`,
  fileTypes: 'an array of file types or paths such as ["ts", "*.py", "src/app.ts"]',
  'fileTypes[]': 'a file type or path such as *.ts',
  alwaysApply: 'true or false',
  projectPath: 'an absolute folder path',
};
