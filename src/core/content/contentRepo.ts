// Synchronous reads of synced content (agents, rules, workflow templates) for the broker and resources.
import { BatonError } from '../errors.js';
import type { Store } from '../ports.js';
import type { AgentDefinition, ContentSource, RuleDefinition, WorkflowTemplate } from '../types.js';

/** Where a stored item came from. */
export interface StoredOrigin {
  source: ContentSource;
  path: string;
  hash: string;
  updated_at: string;
}

/** A stored agent persona. */
export type StoredAgent = AgentDefinition & StoredOrigin;
/** A stored rule. */
export type StoredRule = RuleDefinition & StoredOrigin;
/** A stored workflow template with its row id. */
export type StoredTemplate = WorkflowTemplate & StoredOrigin & { id: number; active: boolean };

interface AgentRow { name: string; description: string; content: string; source: string; path: string; hash: string; updated_at: string }
interface RuleRow extends AgentRow { tags: string; always_apply: number; globs: string }
interface TemplateRow { id: number; name: string; definition: string; source: string; path: string; hash: string; active: number; updated_at: string }

/** An agent persona by name. */
export function getAgent(store: Store, name: string): StoredAgent | undefined {
  const row = store.get<AgentRow>('SELECT * FROM agents WHERE name = ?', [name]);
  return row && toAgent(row);
}

/** All agent personas, by name. */
export function listAgents(store: Store): StoredAgent[] {
  return store.all<AgentRow>('SELECT * FROM agents ORDER BY name').map(toAgent);
}

/** All rules: those with `always_apply` first, then by name. */
export function listRules(store: Store): StoredRule[] {
  return store.all<RuleRow>('SELECT * FROM rules ORDER BY always_apply DESC, name').map((r) => ({
    ...toAgent(r),
    tags: parseJson<string[]>(r.tags, 'rules', r.name),
    always_apply: r.always_apply === 1,
    globs: parseJson<string[]>(r.globs, 'rules', r.name),
  }));
}

/** An active workflow template by name. */
export function getTemplate(store: Store, name: string): StoredTemplate | undefined {
  const row = store.get<TemplateRow>('SELECT * FROM workflow_templates WHERE name = ? AND active = 1', [name]);
  return row && toTemplate(row);
}

/** A workflow template by id, active or not (executions keep the template they started with). */
export function getTemplateById(store: Store, id: number): StoredTemplate | undefined {
  const row = store.get<TemplateRow>('SELECT * FROM workflow_templates WHERE id = ?', [id]);
  return row && toTemplate(row);
}

/** Active workflow templates, by name. */
export function listTemplates(store: Store): StoredTemplate[] {
  return store.all<TemplateRow>('SELECT * FROM workflow_templates WHERE active = 1 ORDER BY name').map(toTemplate);
}

function toAgent(r: AgentRow): StoredAgent {
  return {
    name: r.name, description: r.description, content: r.content,
    source: r.source as ContentSource, path: r.path, hash: r.hash, updated_at: r.updated_at,
  };
}

function toTemplate(r: TemplateRow): StoredTemplate {
  const def = parseJson<WorkflowTemplate>(r.definition, 'workflow_templates', r.name);
  return {
    ...def, id: r.id, name: r.name, active: r.active === 1,
    source: r.source as ContentSource, path: r.path, hash: r.hash, updated_at: r.updated_at,
  };
}

function parseJson<T>(text: string, table: string, name: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new BatonError('store_corrupt', `The ${table} row '${name}' holds invalid JSON; reload Baton so content is synced again from its file.`, { table, name });
  }
}
