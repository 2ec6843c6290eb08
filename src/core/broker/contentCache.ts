// In-memory view of synced content: templates, personas and parsed guardrails, rebuilt after each sync.
import { getAgent, getTemplate, getTemplateById, listAgents, listRules, listTemplates } from '../content/contentRepo.js';
import type { Store } from '../ports.js';
import type { AgentDefinition, RuleDefinition, WorkflowTemplate } from '../types.js';
import { deepFreeze } from './executionRepo.js';
import { getTopForbiddenActions, parseGuardrails, renderGuardrailsMarkdown, type ParsedGuardrails } from './guardrails.js';

/** Cached reads of content; call `invalidate()` after a sync. */
export class ContentCache {
  private rules?: RuleDefinition[];
  private parsed?: ParsedGuardrails;
  private topForbidden?: string[];
  private markdown?: string;
  private readonly agents = new Map<string, AgentDefinition | null>();
  private readonly templatesById = new Map<number, (WorkflowTemplate & { id: number }) | null>();
  /** Active templates read by name; only those found (a name a client made up is not kept). */
  private readonly templatesByName = new Map<string, WorkflowTemplate & { id: number }>();

  /**
   * Why content of this kind and name is missing when a file meant to define it was left out for its problems
   * (`; PATH defines it but is left out until it is fixed (line N: …)`), else ''. Set by whoever loads the content.
   */
  leftOutNote: (kind: 'agents' | 'rules' | 'workflows', name: string) => string = () => '';

  constructor(private readonly store: Store) {}

  /** Drops every cached value. */
  invalidate(): void {
    this.rules = this.parsed = this.topForbidden = this.markdown = undefined;
    this.agents.clear();
    this.templatesById.clear();
    this.templatesByName.clear();
  }

  /** An active template by name. */
  template(name: string): (WorkflowTemplate & { id: number }) | undefined {
    let template = this.templatesByName.get(name);
    if (!template) {
      template = getTemplate(this.store, name);
      if (template) this.templatesByName.set(name, withFrozenSteps(template));
    }
    return template;
  }

  /** A template by id, active or not (executions keep theirs). */
  templateById(id: number): (WorkflowTemplate & { id: number }) | undefined {
    if (!this.templatesById.has(id)) {
      const template = getTemplateById(this.store, id);
      this.templatesById.set(id, template ? withFrozenSteps(template) : null);
    }
    return this.templatesById.get(id) ?? undefined;
  }

  /** Active templates by name. */
  templates(): Array<WorkflowTemplate & { id: number }> {
    return listTemplates(this.store);
  }

  /** An agent persona. */
  agent(name: string): AgentDefinition | undefined {
    if (!this.agents.has(name)) this.agents.set(name, getAgent(this.store, name) ?? null);
    return this.agents.get(name) ?? undefined;
  }

  /** Names of all agents. */
  agentNames(): string[] {
    return listAgents(this.store).map((a) => a.name);
  }

  /** Rules, universal ones first. */
  allRules(): RuleDefinition[] {
    return (this.rules ??= listRules(this.store));
  }

  /** Guardrails parsed from every rule. */
  guardrails(): ParsedGuardrails {
    return (this.parsed ??= parseGuardrails(this.allRules()));
  }

  /** The five most critical forbidden actions. */
  topForbiddenActions(): string[] {
    return (this.topForbidden ??= getTopForbiddenActions(this.guardrails(), 5));
  }

  /** `guardrails://active` markdown. */
  guardrailsMarkdown(): string {
    return (this.markdown ??= renderGuardrailsMarkdown(this.allRules()));
  }
}

/**
 * `template` with its step definitions frozen: every create of the template stores them by reference (StepTexts.ref),
 * which keeps a frozen value's JSON text and hash with it instead of serializing the definition again for each step of
 * each run. Nothing changes a cached template's steps.
 */
function withFrozenSteps<T extends WorkflowTemplate>(template: T): T {
  for (const step of template.steps) deepFreeze(step);
  return template;
}
