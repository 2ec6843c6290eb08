// Workflow templates offered as MCP prompts, so they show up as slash commands in chat.
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import type { McpServer, RegisteredPrompt } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import type { BatonApi } from '../core/api.js';
import type { WorkflowTemplate } from '../core/types.js';
import { matching } from './completions.js';
import { NEXT_STEP_TOOL } from './tools/brokerTools.js';

/** The user message of a spec template's prompt (dynamic phases from a tasks.md). */
function specPromptText(template: WorkflowTemplate, source: string | undefined): string {
  const args = JSON.stringify({ template_name: template.name, source: source ?? '<the tasks.md, relative to the workspace>' });
  return [
    `Run Baton's "${template.name}" workflow on ${source ?? 'the spec tasks.md I name'}: one phase at a time, each closed by its validation gate.`,
    '',
    `1. Call the ${NEXT_STEP_TOOL} tool with ${args}.`,
    '2. Do only the phase its result gives you: its tasks in order (read one not listed in full with {"request": "get_task", "step_token": <token>, "task_number": N}).',
    `3. Call ${NEXT_STEP_TOOL} again with {"step_token": <new_step_token>, "model_output_so_far": {summary, artifacts, references, confidence}, "evidence": {"1": "<what shows gate item 1>", …}}: evidence for every gate item.`,
    '4. If the status is awaiting_approval, stop and ask me to sign the phase off; continue only after it is approved.',
    '5. Repeat until the status is task_closed, then report what each phase delivered.',
  ].join('\n');
}

/** The user message of a template's prompt. */
export function promptText(template: WorkflowTemplate, task: string | undefined, source?: string): string {
  if (template.dynamic_phases) return specPromptText(template, source);
  const args = JSON.stringify(task ? { template_name: template.name, task_description: task } : { template_name: template.name });
  return [
    `Run Baton's "${template.name}" workflow${task ? ` for this task: ${task}` : ''}.`,
    '',
    `1. Call the ${NEXT_STEP_TOOL} tool with ${args}.`,
    '2. Do only the step its next_step_contract names: use allowed_actions, never forbidden_actions, and produce required_output_format.',
    `3. Call ${NEXT_STEP_TOOL} again with {"step_token": <new_step_token>, "model_output_so_far": {summary, artifacts, references, confidence}}.`,
    '4. If the status is awaiting_approval, stop and ask me to approve the step; continue only after it is approved.',
    '5. Repeat until the status is task_closed, then report the synthesis.',
    '',
    `Steps: ${template.steps.map((s) => `${s.name}${s.human_gate ? ' (needs approval)' : ''}`).join(' → ')}.`,
  ].join('\n');
}

/**
 * Keeps one prompt per workflow template; `refresh()` re-reads the templates after a content change and says whether
 * the prompt list changed, so the server sends one `notifications/prompts/list_changed` for it, and none when only
 * other content changed (the SDK sends one per prompt added, updated or removed: 2 × N for a re-registration).
 */
export class WorkflowPrompts {
  /** Each prompt with what `prompts/list` shows of it (description, arguments). */
  private registered = new Map<string, { prompt: RegisteredPrompt; listed: string; args: readonly string[] }>();
  /** The current templates by name: a prompt's text is made from the template as it is when the prompt is got. */
  private templates = new Map<string, WorkflowTemplate>();

  constructor(
    private readonly server: McpServer,
    private readonly baton: BatonApi,
  ) {}

  /** Registers prompts for the current templates, removing those that no longer exist; true if the list changed. */
  refresh(): boolean {
    const templates = this.baton.templates();
    this.templates = new Map(templates.map((t) => [t.name, t]));
    let changed = false;
    const server = this.server as { sendPromptListChanged: () => void };
    server.sendPromptListChanged = () => undefined; // the caller sends one for the whole refresh
    try {
      for (const [name, { prompt }] of this.registered) {
        if (!this.templates.has(name)) {
          prompt.remove();
          this.registered.delete(name);
          changed = true;
        }
      }
      for (const template of templates) {
        const listed = JSON.stringify([template.description, Boolean(template.dynamic_phases)]);
        const known = this.registered.get(template.name);
        if (known?.listed === listed) continue;
        known?.prompt.remove();
        const args = template.dynamic_phases ? ['source'] : ['task'];
        this.registered.set(template.name, { prompt: this.register(template.name, template), listed, args });
        changed = true;
      }
    } finally {
      delete (server as Partial<typeof server>).sendPromptListChanged; // the SDK's own method again
    }
    return changed;
  }

  /** The prompts' names, as prompts/list shows them. */
  names(): string[] {
    return [...this.registered.keys()];
  }

  /** The arguments prompt `name` takes; undefined when there is no such prompt (an Object.prototype name included). */
  argumentsOf(name: string): readonly string[] | undefined {
    return this.registered.get(name)?.args;
  }

  private register(name: string, first: WorkflowTemplate): RegisteredPrompt {
    const template = () => this.templates.get(name) ?? first;
    return this.server.registerPrompt(
      name,
      {
        title: `Workflow: ${name}`,
        description: first.description,
        argsSchema: first.dynamic_phases
          ? {
            source: completable(
              z.string().optional().describe('The spec tasks.md, relative to the workspace'),
              async (typed) => matching(await this.baton.specs.sources(), typed ?? ''),
            ),
          }
          : { task: z.string().optional().describe('What to work on') },
      },
      (args: { task?: string; source?: string }) => ({
        description: template().description,
        messages: [{ role: 'user', content: { type: 'text', text: promptText(template(), args.task, args.source) } }],
      }),
    );
  }
}
