// Step tokens the editor itself holds: a workflow started from the palette claims its first step for the person,
// who submits it with "Advance Step…" or hands it to an agent (the token is the capability).

/** A step the editor claimed. */
export interface HeldStep {
  execution_id: string;
  step_name: string;
  token: string;
  expires_at: string | null;
}

/** The editor's claimed steps, by execution and step. */
export class HeldSteps {
  private readonly steps = new Map<string, HeldStep>();

  /** Remembers the step a broker response handed out (ignores responses without a token). */
  keep(r: { execution_id?: string; new_step_token?: string; token_expires_at?: string; next_step_contract?: { step_name: string } }): void {
    if (!r.execution_id || !r.new_step_token || !r.next_step_contract) return;
    const step = r.next_step_contract.step_name;
    this.steps.set(`${r.execution_id}\u0000${step}`, {
      execution_id: r.execution_id, step_name: step, token: r.new_step_token, expires_at: r.token_expires_at ?? null,
    });
  }

  /** The held step of an execution (the named one, or any). */
  get(executionId: string, stepName?: string): HeldStep | undefined {
    if (stepName) return this.steps.get(`${executionId}\u0000${stepName}`);
    return [...this.steps.values()].find((s) => s.execution_id === executionId);
  }

  /** Forgets a step once submitted (or no longer ours). */
  drop(executionId: string, stepName: string): void {
    this.steps.delete(`${executionId}\u0000${stepName}`);
  }

  /** Every held step (the test hook reports them). */
  all(): HeldStep[] {
    return [...this.steps.values()];
  }
}
