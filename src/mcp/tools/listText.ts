// The text content of the tools that return lists (memory_search, memory_list, query_findings). Some agent CLIs
// (gemini, opencode) hand the model only a tool's text content, never its structuredContent, so the text carries the
// values themselves: one block per item, each value cut at a per-item limit, the whole bounded, and a tail saying how
// many more there are and how to narrow the query.
import type { Finding } from '../../core/lifecycleTypes.js';
import { plural } from '../../shared/labels.js';

/** Size limits of a list's text content. */
export const LIST_TEXT_LIMITS = Object.freeze({
  /** Characters of one item's value before it is cut. */
  itemChars: 2_000,
  /** Characters of the whole text before the remaining items are left out. */
  totalChars: 12_000,
});

/** One item of a list: its heading line and its value (which may be cut). */
export interface ListTextItem {
  head: string;
  value: string;
  /** What to call to read a cut value whole (e.g. `memory_retrieve "key"`). */
  whole?: string;
}

/**
 * `shown` items of `total` as text: a count line, each item's head and value (values over the per-item limit cut
 * with how to read them whole), within the total limit; a tail "… N more, narrow the query (hint)" when items were
 * left out, here or by the query's limit. `empty` when there are none. `noun`: the item's name, one and many.
 */
export function listText(
  items: readonly ListTextItem[], total: number, o: { noun: readonly [string, string]; empty: string; narrow: string; offset?: number }, limits = LIST_TEXT_LIMITS,
): string {
  const offset = o.offset ?? 0;
  const ofTotal = plural(total, ...o.noun);
  if (items.length === 0) return total > 0 ? `0 of ${ofTotal} from ${offset + 1}; narrow the query (${o.narrow}).` : o.empty;
  const blocks: string[] = [];
  let used = 0;
  for (const item of items) {
    const cut = item.value.length > limits.itemChars;
    const value = cut ? `${item.value.slice(0, limits.itemChars)}… (cut at ${limits.itemChars} of ${item.value.length} characters${item.whole ? `; ${item.whole} for all` : ''})` : item.value;
    const block = `${item.head}\n${value}`;
    if (blocks.length > 0 && used + block.length > limits.totalChars) break;
    blocks.push(block);
    used += block.length + 2;
  }
  const more = total - offset - blocks.length;
  const tail = more > 0 ? `\n\n… ${more} more, narrow the query (${o.narrow}).` : '';
  return `${blocks.length} of ${ofTotal}${offset ? ` from ${offset + 1}` : ''}:\n\n${blocks.join('\n\n')}${tail}`;
}

/** query_findings' text: each finding's severity, category, title, id and description. */
export function findingsText(page: { findings: readonly Finding[]; total: number; offset: number }): string {
  const items = page.findings.map((f): ListTextItem => ({
    head: `## [${f.severity}] ${f.category}${f.title ? `: ${f.title}` : ''} (${f.id}${f.isGlobal ? ', global' : ''})`, value: f.description,
  }));
  const next = page.offset + items.length;
  return listText(items, page.total, { noun: ['finding', 'findings'], empty: 'No findings.', narrow: `searchText, severity, category or tags; or offset ${next} for the next page`, offset: page.offset });
}
