// Channel rules both providers share: strictly increasing timestamps and the window a read returns.
import { BatonError } from '../errors.js';
import { CONTEXT_LIMITS } from './contextLimits.js';
import { normalizeTimestamp } from './mentions.js';
import type { ChannelEntry } from './types.js';

/** The timestamp of a new entry: the clock's time, or 1 ms after the newest entry when the clock has not moved past it. */
export function nextTimestamp(nowMs: number, newest: string | undefined): string {
  const last = newest === undefined ? Number.NEGATIVE_INFINITY : Date.parse(newest);
  return new Date(Math.max(nowMs, last + 1)).toISOString();
}

/** The entries after `since` (exclusive), the newest `limit` of them, as the spec's readChannel. */
export function channelWindow(entries: readonly ChannelEntry[], since?: string, limit?: number): ChannelEntry[] {
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > CONTEXT_LIMITS.readEntries)) {
    throw new BatonError('invalid_input', `limit must be a whole number from 1 to ${CONTEXT_LIMITS.readEntries}, got ${limit}`);
  }
  const after = since === undefined ? undefined : normalizeTimestamp(since, 'since');
  const picked = after === undefined ? entries : entries.filter((e) => e.timestamp > after);
  return picked.slice(-(limit ?? CONTEXT_LIMITS.readEntries));
}
