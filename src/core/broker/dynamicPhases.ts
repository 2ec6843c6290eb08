// What the broker asks of templates with `dynamic_phases` (spec workflows), implemented in src/core/specs/ and
// injected by the facade, so the broker stays unaware of tasks.md and the specs folder can build on the broker.
import type { NextStepRequest, NextStepResponse, StepDefinition, WorkflowTemplate } from '../types.js';
import type { ExecutionRow, StepRow } from './executionRepo.js';

/** A dynamic template's source, read and parsed before the transaction that creates the execution. */
export interface PreparedSource {
  readonly kind: 'prepared_source';
}

/** The hooks the broker calls for executions of kind `spec`. */
export interface DynamicPhases {
  /** Reads, checks and parses the source a request names (outside any transaction); throws the spec's errors. */
  prepare(template: WorkflowTemplate, req: NextStepRequest): Promise<PreparedSource>;
  /** In the create transaction: snapshots the source; returns the phase steps that follow the template's own. */
  create(executionId: string, template: WorkflowTemplate, prepared: PreparedSource, iso: string): StepDefinition[];
  /** Fills an `ok` result's step description and `context.spec` for a phase, within the byte budget. */
  decorate(exec: ExecutionRow, step: StepRow, res: NextStepResponse, budgetBytes: number): void;
  /** Checks a submission's evidence against the phase's gate (throws `evidence_incomplete`); returns it aligned with the gate. */
  checkEvidence(exec: ExecutionRow, step: StepRow, evidence: NextStepRequest['evidence']): Promise<string[] | undefined>;
  /** The answer to request `get_task` for the phase a token holds. */
  task(exec: ExecutionRow, step: StepRow, taskNumber: number | undefined): NonNullable<NextStepResponse['spec_task']>;
}
