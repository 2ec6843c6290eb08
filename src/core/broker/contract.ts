// The step contract, and the one-line `human_message` of a step result (the text form carries the instructions).
import type { StepContract } from '../types.js';
import { NEXT_STEP_TOOL } from './stepText.js';

/** The contract for `step`, with the (already prioritised) forbidden actions. */
export function buildContract(
  step: { name: string; allowed_actions: string[]; required_output_format: string; human_gate: boolean },
  forbidden: string[],
): StepContract {
  return {
    step_name: step.name,
    allowed_actions: [...step.allowed_actions],
    forbidden_actions: [...forbidden],
    required_output_format: step.required_output_format,
    human_gate_required: step.human_gate,
  };
}

/** The contracts built for each step definition, with the guardrails' forbidden actions they were built with. */
const built = new WeakMap<object, { forbidden: readonly string[]; contract: StepContract }>();

/**
 * `buildContract`, once per definition object and forbidden-actions list (the content cache keeps both until content
 * changes): the contract is frozen, shared by every claim of the step, and stored once by the repository.
 */
export function contractFor(
  step: { name: string; allowed_actions: string[]; required_output_format: string; human_gate: boolean },
  forbidden: string[],
): StepContract {
  const hit = built.get(step);
  if (hit && hit.forbidden === forbidden) return hit.contract;
  const contract = buildContract(step, forbidden);
  Object.freeze(contract.allowed_actions);
  Object.freeze(contract.forbidden_actions);
  built.set(step, { forbidden, contract: Object.freeze(contract) });
  return contract;
}

/** The `human_message` of an `ok` result: one line that points at the structured fields instead of repeating them. */
export function stepHumanMessage(contract: StepContract, workflow: string): string {
  return `Do step ${contract.step_name} of ${workflow} within next_step_contract and context, then submit it: ${NEXT_STEP_TOOL} `
    + 'with step_token (the new_step_token) and your model_output_so_far.'
    + (contract.human_gate_required ? ' A person approves the step after you submit.' : '');
}
