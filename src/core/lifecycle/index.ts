// The lifecycle facade: executions, steps, logs, artifacts, findings and queries behind one object.
import type { LifecycleApi } from '../api.js';
import { Lifecycle, type LifecycleDeps } from './lifecycle.js';
import { Records } from './records.js';

export { ContractValidator } from './contracts.js';
export { ContentQueries } from './contentQueries.js';
export { Projects } from './projects.js';
export { EXECUTION_STATES, EXECUTION_TRANSITIONS, assertTransition, canTransition } from '../stateMachine.js';

/** Builds the `LifecycleApi` from its parts. */
export function createLifecycle(deps: LifecycleDeps): LifecycleApi {
  const lifecycle = new Lifecycle(deps);
  const records = new Records(deps, lifecycle);
  return {
    startExecution: (i, key) => lifecycle.startExecution(i, key),
    transition: (id, state, error) => lifecycle.transition(id, state, error),
    startStep: (i) => lifecycle.startStep(i),
    completeStep: (id, output, error) => lifecycle.completeStep(id, output, error),
    checkTimeouts: () => lifecycle.checkTimeouts(),
    resume: (id) => lifecycle.resume(id),
    completeExecution: (id, output, error) => lifecycle.completeExecution(id, output, error),
    incomplete: (name) => lifecycle.incomplete(name),
    readySteps: (id) => lifecycle.readySteps(id),
    execution: (id) => lifecycle.execution(id),
    log: (i) => records.log(i),
    storeArtifact: (i) => records.storeArtifact(i),
    artifactBytes: (id) => records.artifactBytes(id),
    storeFinding: (i) => records.storeFinding(i),
    queryFindings: (q) => records.queryFindings(q),
    history: (q) => records.history(q),
    details: (q) => records.details(q),
  };
}
