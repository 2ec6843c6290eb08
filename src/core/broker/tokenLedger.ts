// The token ledger: issuing signed step tokens and checking a presented one against what was issued.
import { BatonError } from '../errors.js';
import { isoTime } from '../isoTime.js';
import type { CorePorts } from '../ports.js';
import type { NextStepResponse } from '../types.js';
import type { ExecutionRepo, ExecutionRow, TokenRow } from './executionRepo.js';
import { checkExpiry, signToken, verifyToken, type TokenPayload } from './tokens.js';

/** How many recently signed tokens skip the HMAC when presented (oldest forgotten first). */
const SIGNED_KEPT = 1024;

/** Recovery hint for a step that cannot take this token. */
export const readCurrent = (executionId: string) =>
  `read current-step://${executionId} to see the current state, or call workflow_next_step({ task_id: "${executionId}" }) to claim the next ready step`;

/**
 * A token's payload, its fields always in this order: a token is the signature of its JSON, so `reissue` gives the
 * same text as `issue` did only when both build the payload here.
 */
function tokenPayload(executionId: string, stepName: string, issuedMs: number, expiresMs: number, nonce: string, wait: boolean): TokenPayload {
  return { execution_id: executionId, step_name: stepName, issued_at: issuedMs, expires_at: expiresMs, nonce, ...(wait ? { wait: true as const } : {}) };
}

/** Issues tokens into the ledger and tells issued-and-active tokens from replayed, superseded or foreign ones. */
export class TokenLedger {
  /**
   * Tokens this process signed, by their exact text: one presented again needs no second HMAC (its signature is
   * ours by construction). Only the signature check is skipped; expiry and the ledger are checked as for any token.
   */
  private readonly signed = new Map<string, TokenPayload>();
  /** The token whose use is handing out the tokens issued now (see `following`). */
  private follows: string | null = null;

  constructor(private readonly deps: { repo: ExecutionRepo; ports: CorePorts; secret: () => string; ttlMs: number }) {}

  /** The payload of a token this process signed (and still remembers), as `verify` would give it; else undefined. */
  signedPayload(token: string): TokenPayload | undefined {
    return this.signed.get(token);
  }

  /** Checks shape, signature and expiry of a presented token (see `verifyToken`). */
  verify(token: string, now: number, options: { allowExpired?: boolean } = {}): TokenPayload {
    const known = this.signed.get(token);
    if (!known) {
      try {
        return verifyToken(this.deps.ports.crypto, this.deps.secret(), token, now, options);
      } catch (ex) {
        throw this.foreign(ex);
      }
    }
    checkExpiry(known, now, options);
    return known;
  }

  /**
   * A token whose signature does not match and whose execution is not in this database most likely came from another
   * Baton database (the client talks to another --db or server than the one that issued it): say so, rather than
   * point at an execution that is not here.
   */
  private foreign(ex: unknown): unknown {
    const id = BatonError.is(ex, 'token_forged') ? ex.details.execution_id : undefined;
    if (typeof id !== 'string' || this.deps.repo.execution(id)) return ex;
    return new BatonError(
      'token_forged',
      `This step_token is not from this Baton database: its execution ${id} is not here. It came from another database or server (check which --db or server this client uses), or it was altered. Start a workflow here with template_name, or read project-context://current for the active task.`,
      { foreign_execution_id: id },
    );
  }

  /** A new signed token for a step, recorded as active (inside the caller's transaction); `wait` marks one for waiting on a gate. */
  issue(executionId: string, stepName: string, wait = false, holderPid: number | null = null): { token: string; nonce: string; expiresAt: string } {
    const ms = this.deps.ports.clock.now();
    const nonce = this.deps.ports.ids.orderedUuid();
    const expires = ms + this.deps.ttlMs;
    const payload = tokenPayload(executionId, stepName, ms, expires, nonce, wait);
    const token = signToken(this.deps.ports.crypto, this.deps.secret(), payload);
    if (this.signed.size >= SIGNED_KEPT) this.signed.delete(this.signed.keys().next().value!);
    this.signed.set(token, payload);
    const expiresAt = isoTime(expires);
    this.deps.repo.insertToken({ nonce, execution_id: executionId, step_name: stepName, issued_at: isoTime(ms), expires_at: expiresAt, follows: this.follows, holder_pid: holderPid });
    return { token, nonce, expiresAt };
  }

  /**
   * The exact token `row` was issued as (a token is its signed payload, and the ledger keeps every field of it), or
   * null when it has expired: an answer given again carries the same token, so it is the same answer.
   */
  reissue(row: TokenRow, wait: boolean): { token: string; expiresMs: number } | null {
    const expires = Date.parse(row.expires_at);
    if (!(expires > this.deps.ports.clock.now())) return null;
    const payload = tokenPayload(row.execution_id, row.step_name, Date.parse(row.issued_at), expires, row.nonce, wait);
    return { token: signToken(this.deps.ports.crypto, this.deps.secret(), payload), expiresMs: expires };
  }

  /** Runs `fn` (inside the caller's transaction) with every token it issues recorded as handed out by the use of `nonce`. */
  following<T>(nonce: string, fn: () => T): T {
    const before = this.follows;
    this.follows = nonce;
    try {
      return fn();
    } finally {
      this.follows = before;
    }
  }

  /** Checks the token against the ledger: issued here, still active. */
  check(p: TokenPayload): TokenRow {
    const tok = this.deps.repo.token(p.nonce);
    if (!tok || tok.execution_id !== p.execution_id || tok.step_name !== p.step_name) {
      throw new BatonError('token_forged', `This step_token was not issued by this Baton database. ${readCurrent(p.execution_id)}.`);
    }
    if (tok.state === 'consumed') {
      throw new BatonError(
        'token_replayed',
        `This step_token was already used (at ${tok.closed_at}) for step "${tok.step_name}"; tokens are single-use. Use the new_step_token from that call's response, or ${readCurrent(p.execution_id)}.`,
        { execution_id: p.execution_id, step_name: tok.step_name },
      );
    }
    if (tok.state === 'released') {
      throw new BatonError(
        'token_out_of_order',
        `A person released step "${tok.step_name}" (at ${tok.closed_at}) from this token, so that another agent could take it up: the token no longer works and this call changed nothing; ${readCurrent(p.execution_id)}.`,
        { execution_id: p.execution_id, step_name: tok.step_name, released: true },
      );
    }
    if (tok.state === 'superseded') {
      throw new BatonError(
        'token_out_of_order',
        `A newer token was issued for step "${tok.step_name}" after this one; use the latest new_step_token, or call workflow_next_step({ request: "refresh_token", step_token: <latest> }).`,
        { execution_id: p.execution_id, step_name: tok.step_name },
      );
    }
    return tok;
  }
}

/**
 * The answer to a call about a step that waits on a person. `approveCommand` is how a person approves it from a
 * terminal (the execution id is appended), or null when no terminal can reach this database.
 */
export function awaitingResponse(exec: ExecutionRow, stepName: string, token: string, expiresAt: number, approveCommand: string | null): NextStepResponse {
  const where = approveCommand ? `in the Baton panel, or with \`${approveCommand} ${exec.execution_id}\`` : 'in the Baton panel';
  return {
    status: 'awaiting_approval', execution_id: exec.execution_id, task_id: exec.task_id ?? undefined, new_step_token: token,
    token_expires_at: new Date(expiresAt).toISOString(), progress: exec.progress,
    human_message:
      `Step "${stepName}" waits for a person to approve or reject it (${where}). `
      + 'Wait for the decision: call workflow_next_step again with only this step_token, no model_output_so_far '
      + '(the call returns when the person decides, or after a while with this same answer: then call again). '
      + "Approved: you get the next step. Rejected: you get this step again with the reviewer's feedback.",
  };
}
