// Instantiates a blueprint into a system: the person's inputs become the system's variables, each agent template
// an agent, and agent steps without a prompt take their template's prompt.
import { BatonError } from '../errors.js';
import type { RunnerKind } from './runner.js';
import { runnerForModel } from './systemFile.js';
import type { System, SystemBlueprint, SystemWorkflowStep } from './types.js';

/** Choices a person makes when instantiating a blueprint. */
export interface BlueprintChoices {
  /** The new system's name. */
  name: string;
  /** Values of the blueprint's requiredInputs (defaults fill the rest). */
  inputs: Record<string, string>;
  /** Run every agent with this runner (else each template's runner, else the one its first suggested model implies). */
  runner?: RunnerKind;
  /** The executable and arguments when the runner is `command`. */
  command?: string[];
}

/** The system a blueprint becomes with `choices`; throws `invalid_input` naming each missing or bad input. */
export function instantiateBlueprint(bp: SystemBlueprint, choices: BlueprintChoices): System {
  const problems: string[] = [];
  const variables: Record<string, string> = {};
  const known = new Set(bp.requiredInputs.map((i) => i.name));
  for (const k of Object.keys(choices.inputs)) {
    if (!known.has(k)) problems.push(`unknown input '${k}' (inputs: ${[...known].join(', ') || 'none'})`);
  }
  for (const input of bp.requiredInputs) {
    const v = choices.inputs[input.name] ?? input.default;
    if (v === undefined || v === '') {
      problems.push(`missing input '${input.name}': ${input.description} (${input.type}); pass it with --input ${input.name}=…`);
      continue;
    }
    if (input.type === 'boolean' && v !== 'true' && v !== 'false') problems.push(`input '${input.name}' must be true or false, got '${v}'`);
    if (input.type === 'number' && !Number.isFinite(Number(v))) problems.push(`input '${input.name}' must be a number, got '${v}'`);
    if (input.type === 'selection' && !input.options?.includes(v)) problems.push(`input '${input.name}' must be one of ${input.options?.join(', ')}, got '${v}'`);
    variables[input.name] = v;
  }
  const agents = bp.agentTemplates.map((t) => {
    const runner = choices.runner ?? t.runner ?? runnerForModel(t.suggestedModels[0]);
    if (!runner) problems.push(`agent '${t.id}': no runner; pass one (e.g. --runner claude)`);
    const command = runner === 'command' ? (choices.command ?? t.command) : undefined;
    if (runner === 'command' && !command?.length) problems.push(`agent '${t.id}': the command runner needs a command (--command ARG, once per argument)`);
    const model = choices.runner && choices.runner !== t.runner ? undefined : t.suggestedModels[0];
    return {
      id: t.id, role: t.role, runner: runner ?? 'command',
      ...(model && runner !== 'command' ? { modelConfig: { model } } : {}),
      // Only claude takes a list of its own tools; for another runner the system file would warn on every run.
      ...(t.suggestedTools.length && runner === 'claude' ? { allowedTools: t.suggestedTools } : {}),
      ...(command ? { command } : {}),
    };
  });
  if (problems.length) {
    throw new BatonError('invalid_input', `Blueprint ${bp.id} cannot be instantiated:\n  ${problems.join('\n  ')}`, { problems });
  }
  const prompts = new Map(bp.agentTemplates.map((t) => [t.id, t.promptTemplate]));
  const fill = (steps: SystemWorkflowStep[]): SystemWorkflowStep[] => steps.map((s) => ({
    ...s,
    ...(s.type === 'agent' && s.inputTemplate === undefined ? { inputTemplate: prompts.get(s.agentId!) } : {}),
    ...(s.children ? { children: fill(s.children) } : {}),
    ...(s.trueBranch ? { trueBranch: fill(s.trueBranch) } : {}),
    ...(s.falseBranch ? { falseBranch: fill(s.falseBranch) } : {}),
  }));
  return { name: choices.name, description: `${bp.description} (from blueprint ${bp.id})`, agents, workflow: fill(bp.workflowTemplate), variables };
}
