// Request keys (schema v10): a start that carries one records key → execution in the transaction that creates the
// execution, so the same start sent again (its answer lost with the process that owned the database, say) starts no
// second run but is answered with the first one.
import type { Store } from './ports.js';

/**
 * Records `key` as the start of `executionId`, inside the transaction that creates it and before it defers its writes
 * (the changed-row count is read): undefined then. When a start with `key` was recorded already, nothing is written
 * and the execution that start created is returned instead.
 */
export function earlierStart(store: Store, key: string, executionId: string, now: string): string | undefined {
  const recorded = store.run(
    'INSERT INTO request_keys (request_key, execution_id, created_at) VALUES (?, ?, ?) ON CONFLICT (request_key) DO NOTHING',
    [key, executionId, now],
  ) > 0;
  return recorded ? undefined : startedWith(store, key);
}

/** The execution a start with `key` created, if one was recorded (for a look before any work of the start is done). */
export function startedWith(store: Store, key: string): string | undefined {
  return store.get<{ execution_id: string }>('SELECT execution_id FROM request_keys WHERE request_key = ?', [key])?.execution_id;
}

/**
 * What the tokens a keyed start hands out follow (step_tokens.follows, otherwise the nonce of the token whose use
 * handed them out): its answer is then found again as a replayed token's is.
 */
export function requestKeyMark(key: string): string {
  return `request-key:${key}`;
}

/**
 * How the answer to a start sent again with its request key opens. True both for an agent that sent the key twice and
 * for one whose single call `baton mcp` sent again to the next owner (so no "your earlier call").
 */
export function keyStartedText(key: string): string {
  return `This start's request key (${key}) had already started this workflow`;
}
