// A person's release of a running step whose agent went away holding it (its session ended, its process died): the
// step is ready again for the next agent that asks, at once, where it would otherwise wait until its token expired
// and the stall threshold passed. The token it held stops working; its agent, if it comes back, is told why.
import type { StepRelease } from '../api.js';
import { BatonError, echo } from '../errors.js';
import { isMoving } from '../stateMachine.js';
import type { BatonEvent } from '../types.js';
import { statusText } from '../../shared/labels.js';
import type { Broker } from './broker.js';
import type { ExecutionRepo, ExecutionRow, StepRow } from './executionRepo.js';
import { executionFacts } from './submittedOutput.js';

/**
 * Releases a running step of execution (or task) `id` inside a transaction; adds the events to `events`. `teamRun`
 * is the refusal of a team run's release, which says what to do instead (the team's instance is the core's to know).
 */
export function releaseInTx(
  deps: { repo: ExecutionRepo; broker: Broker; iso: string; teamRun: (exec: ExecutionRow) => BatonError },
  id: string, stepName: string | undefined, by: string | null, events: BatonEvent[],
): StepRelease {
  const { repo, broker, iso } = deps;
  const exec = broker.resolve(id);
  if (!exec) throw new BatonError('execution_not_found', `No execution or task ${echo(id)}; list them with \`baton status\`.`);
  if (exec.kind === 'worker') throw deps.teamRun(exec);
  if (exec.kind === 'pipeline') {
    throw new BatonError('invalid_state', `${exec.execution_id} is a pipeline run: its steps are held by the agents the run started, so there is no step to release.`);
  }
  // The lifecycle tools' steps hold no token: a released one would sit `ready`, which start_step and complete_step
  // do not hand out, and no agent "asks for work" on such a run.
  if (exec.kind === 'template' && !exec.task_id) {
    throw new BatonError('invalid_state',
      `Execution ${exec.execution_id} is driven by the lifecycle tools (start_step, complete_step): its steps hold no `
      + 'step token, so there is nothing to release. Another agent takes a running step over with start_step (the same '
      + "executionId and stepName: it answers with the step's id), then complete_step; to end the run, "
      + `\`baton cancel ${exec.execution_id}\`.`);
  }
  if (!isMoving(exec.status)) {
    const status = statusText(exec.status, executionFacts(exec).cancelled);
    throw new BatonError('invalid_state', `Execution ${exec.execution_id} is ${status}; only a running execution's steps can be released.`);
  }
  const step = heldStep(exec.execution_id, repo.stepsWithStatus(exec.execution_id, ['running']), stepName, repo);
  if (step.token_nonce) repo.closeToken(step.token_nonce, 'released', iso);
  repo.updateStep(exec.execution_id, step.step_name, { status: 'ready', claimed_by: null, token_nonce: null });
  broker.event(exec.execution_id, 'step_released', { step_name: step.step_name, from: step.claimed_by, by });
  events.push({ type: 'step', execution_id: exec.execution_id, step_name: step.step_name, status: 'ready' });
  const { status } = broker.syncExecution(exec);
  events.push({ type: 'execution', execution_id: exec.execution_id, task_id: exec.task_id, status });
  return { execution_id: exec.execution_id, step_name: step.step_name, held_by: step.claimed_by, held_since: step.started_at, execution_status: status };
}

/** The running step to release: the one named, or the only one; a refusal that says what to name otherwise. */
function heldStep(executionId: string, running: StepRow[], stepName: string | undefined, repo: ExecutionRepo): StepRow {
  const names = running.map((s) => s.step_name).join(', ');
  if (stepName !== undefined) {
    const step = running.find((s) => s.step_name === stepName);
    if (step) return step;
    const row = repo.step(executionId, stepName);
    if (!row) throw new BatonError('step_not_found', `Execution ${executionId} has no step ${echo(stepName)}${running.length ? `; running: ${names}` : ''}.`);
    const why = row.status === 'awaiting_approval' ? ' (it waits for a person: approve or reject it)' : '';
    throw new BatonError('invalid_state', `Step "${stepName}" of execution ${executionId} is ${statusText(row.status)}${why}; only a running step can be released${running.length ? `: ${names}` : ''}.`);
  }
  if (running.length === 1) return running[0]!;
  if (!running.length) throw new BatonError('invalid_state', `No step of execution ${executionId} is running, so none is held by an agent.`);
  throw new BatonError('invalid_input', `Several steps of execution ${executionId} are running (${names}); name the one to release (baton release --step NAME).`, { steps: running.map((s) => s.step_name) });
}
