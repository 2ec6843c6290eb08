// Expected failures carry a typed reason and a message that tells the caller how to recover.

/** Reasons for expected failures; each maps to a recovery an agent or person can act on. */
export type ErrorReason =
  | 'invalid_input'
  | 'not_found'
  | 'template_not_found'
  | 'execution_not_found'
  | 'step_not_found'
  | 'token_malformed'
  | 'token_forged'
  | 'token_expired'
  | 'token_replayed'
  | 'token_wrong_execution'
  | 'token_out_of_order'
  | 'invalid_state'
  | 'rate_limited'
  | 'content_invalid'
  | 'store_locked'
  | 'store_missing'
  | 'store_read_only'
  | 'store_newer_version'
  | 'store_corrupt'
  | 'store_failed'
  | 'unauthorized'
  | 'owner_unreachable'
  | 'runner_unavailable'
  | 'budget_exceeded'
  | 'source_not_found'
  | 'source_outside_workspace'
  | 'source_parse_failed'
  | 'phase_out_of_range'
  | 'task_out_of_range'
  | 'phase_locked'
  | 'evidence_incomplete';

// The `baton` CLI is two bundles that each hold a copy of this module: `instanceof` recognises both copies' errors.
const BRAND = Symbol.for('baton.BatonError');

/** An expected failure with a typed reason. */
export class BatonError extends Error {
  override readonly name = 'BatonError';
  constructor(
    readonly reason: ErrorReason,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** Whether `value` is a BatonError made by any copy of this class. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  /** Whether `ex` is a BatonError (with the given reason, if one is given). */
  static is(ex: unknown, reason?: ErrorReason): ex is BatonError {
    return ex instanceof BatonError && (reason === undefined || ex.reason === reason);
  }
}

/**
 * A value a client gave (an id, a name, a path), quoted for an error message. One longer than `max` characters is cut,
 * with its length said: an error answer goes back to the client's model, and a 50 KB id would go with it.
 */
export function echo(value: unknown, max = 120): string {
  const s = String(value);
  return s.length > max ? `"${s.slice(0, max)}\u2026" (${s.length} characters)` : `"${s}"`;
}

/** The message of a thrown value: an Error's message, anything else as text. */
export function errorMessage(ex: unknown): string {
  return ex instanceof Error ? ex.message : String(ex);
}
