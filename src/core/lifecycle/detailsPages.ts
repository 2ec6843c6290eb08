// The bounds of get_execution_details' lists (steps, logs, artifacts, findings) and their paging. A long run has
// thousands of each: listed whole, 5,000 artifacts and 5,000 logs made a 3.6 MB answer that an agent's client cuts or
// its model cannot hold. Each list carries one page: at most `<list>Limit` items and at most a budget of bytes.
//
// Which page: the newest. An agent that picks up a long run needs what happened last (the latest logs, the newest
// artifacts, which a revision supersedes, the steps in flight), so `<list>Offset` counts back from the newest item,
// as offset 0 is the newest in get_execution_history and query_findings. Within a page the items keep the order
// stored (the spec's order): a run that fits one page gets the answer it always got.
import { utf8Length } from '../utf8.js';
import { BatonError } from '../errors.js';
import { DETAILS_LISTS, type DetailsList, type DetailsPage, type ExecutionDetailsInput } from '../lifecycleTypes.js';

/** Items of each list an answer carries when the call gives no `<list>Limit`. */
export const DETAILS_LIST_LIMIT = 100;

/** The largest `<list>Limit`, as for the other paged tools' `limit`. */
export const DETAILS_LIST_MAX = 500;

/**
 * Bytes of JSON the steps, the logs and the findings of one answer each take at most. A step's output, a log's
 * context and a finding's description are free-form, so a count alone does not bound them; 128 KB holds a page of
 * 100 usual items (a few hundred bytes each) many times over. The artifacts have their own budget, metadata and
 * content together (DETAILS_ARTIFACTS_BUDGET_BYTES in records.ts).
 *
 * So a whole answer is at most the execution itself, three of these, the artifacts' budget and under 10 KB more
 * (readyStepIds, pages): about 650 KB. Past that only by an item bigger than its list's budget on its own: it is
 * still listed, alone, so that paging always moves on (an item is at most one MCP message, 10 MiB).
 */
export const DETAILS_LIST_BUDGET_BYTES = 128 * 1024;

/** A list's page as asked: its limit and offset, defaults filled in. */
export interface PageAsk {
  limit: number;
  offset: number;
}

/**
 * The page asked for each included list. Paging a list that is not included is refused (the call would silently
 * get nothing of it); so is a bad number, for a caller past the MCP schema.
 */
export function pageAsks(q: ExecutionDetailsInput, included: Record<DetailsList, boolean>): Record<DetailsList, PageAsk> {
  const asks = {} as Record<DetailsList, PageAsk>;
  for (const list of DETAILS_LISTS) {
    const limit = q[`${list}Limit`];
    const offset = q[`${list}Offset`];
    const flag = `include${list[0]!.toUpperCase()}${list.slice(1)}`;
    for (const [field, value] of [[`${list}Limit`, limit], [`${list}Offset`, offset]] as const) {
      if (value === undefined) continue;
      if (!included[list]) {
        throw new BatonError('invalid_input', `${field} pages the ${list}, which this call leaves out; add ${flag}: true, or drop ${field}.`);
      }
      const min = field.endsWith('Limit') ? 1 : 0;
      const max = field.endsWith('Limit') ? DETAILS_LIST_MAX : Number.MAX_SAFE_INTEGER;
      if (!Number.isSafeInteger(value) || value < min || value > max) {
        const range = max === DETAILS_LIST_MAX ? ` from ${min} to ${max}` : `, ${min} or more`;
        throw new BatonError('invalid_input', `${field} must be a whole number${range} (got ${String(value)}).`);
      }
    }
    asks[list] = { limit: limit ?? DETAILS_LIST_LIMIT, offset: offset ?? 0 };
  }
  return asks;
}

/**
 * How many of `newestFirst` (a page's candidates, newest first) fit `budgetBytes` as a JSON array, `size` giving an
 * item's JSON bytes: at least one, so that paging moves on; and the bytes of that array (brackets and commas too).
 */
export function fitting<T>(newestFirst: readonly T[], budgetBytes: number, size: (item: T) => number): { count: number; bytes: number } {
  let used = 2; // the brackets
  let n = 0;
  for (const item of newestFirst) {
    const bytes = size(item) + (n ? 1 : 0); // a comma before every item but the first
    if (n > 0 && used + bytes > budgetBytes) break;
    used += bytes;
    n++;
  }
  return { count: n, bytes: used };
}

/** Bytes of `value` as JSON. */
export const jsonBytes = (value: unknown): number => utf8Length(JSON.stringify(value));

/** The page record of a list of `total` items of which `shown` were listed from `ask.offset`. */
export function pageOf(total: number, ask: PageAsk, shown: number): DetailsPage {
  const page: DetailsPage = { total, limit: ask.limit, offset: ask.offset };
  if (ask.offset + shown < total) page.nextOffset = ask.offset + shown;
  return page;
}

/**
 * The page of an in-memory list (`all`, oldest first): the newest `ask.limit` items after `ask.offset`, as many as
 * fit `budgetBytes`, oldest first.
 */
export function newestPage<T>(all: readonly T[], ask: PageAsk, budgetBytes: number): { items: T[]; page: DetailsPage } {
  const end = Math.max(0, all.length - ask.offset);
  const candidates = all.slice(Math.max(0, end - ask.limit), end).reverse();
  const n = fitting(candidates, budgetBytes, jsonBytes).count;
  return { items: candidates.slice(0, n).reverse(), page: pageOf(all.length, ask, n) };
}
