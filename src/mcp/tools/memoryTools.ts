// The `memory` group: memory_store, memory_retrieve, memory_search, memory_list (specs/multi-agent-pipelines.md),
// thin over baton.memory. A session started for a pipeline run carries its RunScope (run and agent, from its
// bearer token): its tools act on that run only. Other sessions name a run with run_id or use the global scope.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { BatonApi } from '../../core/api.js';
import { BatonError } from '../../core/errors.js';
import { MEMORY_CATEGORIES, MEMORY_LIMITS, type MemoryEntry, type MemoryReach, type MemoryScope } from '../../core/pipelines/memory.js';
import type { RunScope } from '../../core/pipelines/runner.js';
import { pipelineHost } from '../../core/pipelines/host.js';
import type { Log } from '../../core/ports.js';
import type { ToolSpec } from '../toolSpec.js';
import { registerToolDefs, tool, type ToolDef } from './lifecycleTools.js';
import { listText, type ListTextItem } from './listText.js';

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const category = z.enum(MEMORY_CATEGORIES);
const reach = z.enum(['run', 'global', 'all']);
const runId = z.string().min(1).optional().describe('The pipeline run (execution id); only for sessions not started by a run, whose run is fixed.');

const entry = z.object({
  id: z.string(), executionId: z.string().nullable(), scope: z.enum(['run', 'global']), agent: z.string().nullable(), key: z.string(),
  value: z.string(), category, metadata: z.record(z.string(), z.unknown()), sizeBytes: z.number(), createdAt: z.string(), updatedAt: z.string(),
  score: z.number().optional(),
});
const listing = z.object({ entries: z.array(entry), total: z.number() });

const INPUTS = {
  memory_store: z.strictObject({
    key: z.string().min(1).max(MEMORY_LIMITS.keyChars).describe('Unique key for this entry (in its scope); storing the same key again replaces it.'),
    value: z.string().describe(`Content to store (at most ${MEMORY_LIMITS.valueBytes / 1024} KB).`),
    category: category.optional().describe('Category: findings, plans, code, notes or custom (default notes).'),
    metadata: z.record(z.string(), z.unknown()).optional().describe('Additional metadata (JSON object).'),
    global: z.boolean().optional().describe('Store in the global scope every run reads, instead of this run.'),
    run_id: runId,
  }),
  memory_retrieve: z.strictObject({
    key: z.string().min(1).describe('Key to retrieve.'),
    scope: reach.optional().describe('run, global, or all (default: the run first, then global).'),
    run_id: runId,
  }),
  memory_search: z.strictObject({
    query: z.string().optional().describe('Full-text query: terms (all must match), OR, NOT, "phrases", prefix*. Omit to list the newest.'),
    category: category.optional().describe('Filter by category.'),
    limit: z.number().int().min(1).max(MEMORY_LIMITS.maxResults).optional().describe('Max results (default 10).'),
    scope: reach.optional().describe('run, global, or all (default all).'),
    run_id: runId,
  }),
  memory_list: z.strictObject({
    category: category.optional().describe('Only this category.'),
    scope: reach.optional().describe('run, global, or all (default all).'),
    run_id: runId,
  }),
};

/** An entry as an item of a list's text: `## key [category, global, agent]` and its value. */
function item(e: MemoryEntry): ListTextItem {
  return { head: `## ${e.key} [${e.category}${e.scope === 'global' ? ', global' : ''}${e.agent ? `, from ${e.agent}` : ''}]`, value: e.value, whole: `memory_retrieve "${e.key}"` };
}

const HINTS: Record<string, string> = {
  key: `a non-empty string of at most ${MEMORY_LIMITS.keyChars} characters`,
  value: 'a string',
  category: `one of ${MEMORY_CATEGORIES.join(', ')}`,
  scope: 'one of run, global, all',
  limit: `a whole number from 1 to ${MEMORY_LIMITS.maxResults}`,
  query: 'a string of search terms, such as `auth token` or `"exact phrase"`',
  metadata: 'an object (free-form data kept with the entry)',
  global: 'true or false',
  run_id: 'a pipeline run id string (see `baton pipeline list`)',
};

/** Registers the memory tools; `scope` is the session's RunScope when it was started for a pipeline run. */
export function registerMemoryTools(server: McpServer, baton: BatonApi, log: Log, scope?: RunScope): ToolSpec[] {
  const host = pipelineHost(baton);
  if (!host) return [];
  const { memory, pipelines } = host;
  /** The run and agent a call acts for, and how far its reads reach. */
  const who = (a: { run_id?: string }, wanted: MemoryReach | undefined, writesGlobal = false): { s: MemoryScope; reach: MemoryReach } => {
    if (scope) {
      if (a.run_id !== undefined && a.run_id !== scope.runId) {
        throw new BatonError('invalid_input', `This session belongs to run ${scope.runId} (agent ${scope.agent}); it cannot use run ${a.run_id}. Leave run_id out.`);
      }
      return { s: { runId: scope.runId, agent: scope.agent }, reach: wanted ?? 'all' };
    }
    if (a.run_id !== undefined) {
      pipelines.run(a.run_id);
      return { s: { runId: a.run_id, agent: null }, reach: wanted ?? 'all' };
    }
    if (writesGlobal || wanted === 'global') return { s: { runId: '', agent: null }, reach: 'global' };
    if (wanted === undefined) return { s: { runId: '', agent: null }, reach: 'global' };
    throw new BatonError('invalid_input', 'This session is not part of a pipeline run: pass run_id (see `baton pipeline list`) or use the global scope (global: true / scope: "global").');
  };
  const text = (found: { entries: MemoryEntry[]; total: number }, empty: string, narrow: string) => listText(found.entries.map(item), found.total, { noun: ['entry', 'entries'], empty, narrow });
  const defs: ToolDef[] = [
    tool({
      name: 'memory_store', title: 'Memory: store', input: INPUTS.memory_store, output: entry, annotations: WRITE,
      description: `Store information for later retrieval by you or the agents after you in this pipeline run. Keys are unique per run (storing one again replaces it); categories: ${MEMORY_CATEGORIES.join(', ')}. Values up to ${MEMORY_LIMITS.valueBytes / 1024} KB.`,
      run: async (a) => {
        if (!scope && a.run_id === undefined && !a.global) {
          throw new BatonError('invalid_input', 'This session is not part of a pipeline run: pass run_id (see `baton pipeline list`) or global: true.');
        }
        const { s } = who(a, a.global ? 'global' : 'run', a.global);
        const e = await memory.store(s, { key: a.key, value: a.value, category: a.category, metadata: a.metadata, global: a.global });
        return { structured: e, text: `Stored "${e.key}" (${e.category}, ${e.sizeBytes} bytes${e.scope === 'global' ? ', global' : ''}).` };
      },
    }),
    tool({
      name: 'memory_retrieve', title: 'Memory: retrieve', input: INPUTS.memory_retrieve, output: entry, annotations: READ,
      description: 'Retrieve a stored entry by its key: this run\'s first, then the global scope. Use memory_search when you do not know the key.',
      run: async (a) => {
        const { s, reach: r } = who(a, a.scope);
        const e = memory.retrieve(s, a.key, r);
        return { structured: e, text: e.value };
      },
    }),
    tool({
      name: 'memory_search', title: 'Memory: search', input: INPUTS.memory_search, output: listing, annotations: READ,
      description: 'Search memory by full-text query (ranked by relevance) and/or category. Query syntax: terms (all must match), OR, NOT, "exact phrases", prefix*.',
      run: async (a) => {
        const { s, reach: r } = who(a, a.scope);
        const found = memory.search(s, { query: a.query, category: a.category, limit: a.limit, scope: r });
        return { structured: found, text: text(found, 'Nothing matches.', 'more specific terms, a category or a scope') };
      },
    }),
    tool({
      name: 'memory_list', title: 'Memory: list', input: INPUTS.memory_list, output: listing, annotations: READ,
      description: `List entries (newest first, at most ${MEMORY_LIMITS.maxResults}), optionally of one category.`,
      run: async (a) => {
        const { s, reach: r } = who(a, a.scope);
        const found = memory.list(s, a.category, r);
        return { structured: found, text: text(found, 'Memory is empty.', 'memory_search with a query, or a category or scope') };
      },
    }),
  ];
  return registerToolDefs(server, log, defs, HINTS);
}
