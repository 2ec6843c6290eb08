// Full-text search for findings on FTS4: the FTS5-style query a user types (AND / OR / NOT, "phrases", prefix*,
// -term) becomes FTS4's enhanced syntax, and matches are ranked by Okapi BM25 computed from matchinfo('pcnalx').
import { BatonError, echo } from '../errors.js';

/** Columns of `findings_fts` in order, with their BM25 weights (a title hit counts most). */
export const FTS_COLUMNS = ['title', 'description', 'tags', 'category'] as const;
const WEIGHTS = [3, 1, 2, 1.5];

const EXAMPLES = 'e.g. `sql injection`, `"input not sanitized"`, `auth*`, `xss OR csrf`, `injection NOT test`';

/**
 * Turns a user query into an FTS4 MATCH expression. Operators are upper-case words, as in FTS5: `AND` (implicit
 * between terms), `OR`, `NOT` (binary in FTS4, so `a AND NOT b` becomes `a NOT b`, and `-b` becomes `NOT b`).
 * Throws `invalid_input` for a query FTS4 cannot run, with examples, naming the query by the caller's `field`.
 */
export function toFtsQuery(text: string, field = 'searchText'): string {
  const tokens: string[] = [];
  const re = /"([^"]*)"(\*?)|(\()|(\))|([^\s()"]+)/g;
  if ((text.match(/"/g) ?? []).length % 2 === 1) throw bad(text, field, 'a quote is not closed');
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    if (m[1] !== undefined) {
      const words = m[1].split(/[^\p{L}\p{N}_]+/u).filter(Boolean);
      if (words.length) tokens.push(`"${words.join(' ')}${m[2] ? '*' : ''}"`);
    } else if (m[3]) tokens.push('(');
    else if (m[4]) tokens.push(')');
    else tokens.push(...word(m[5]!));
  }
  // `AND NOT x` → `NOT x`; a leading or doubled operator is an error FTS4 would report less clearly.
  const out: string[] = [];
  for (const t of tokens) {
    const prev = out.at(-1);
    if (t === 'NOT' && prev === 'AND') out[out.length - 1] = 'NOT';
    else out.push(t);
  }
  const ops = new Set(['AND', 'OR', 'NOT']);
  if (out.length === 0) throw bad(text, field, 'there is no search term (only words are indexed: letters and digits; emoji and symbols alone cannot be searched)');
  if (ops.has(out[0]!)) throw bad(text, field, `it starts with ${out[0]} (put a term before it, ${out[0] === 'NOT' ? 'as in `injection NOT test`' : 'as in `sql OR xss`'})`);
  if (ops.has(out.at(-1)!)) throw bad(text, field, `it ends with ${out.at(-1)}`);
  for (let i = 1; i < out.length; i++) {
    if (ops.has(out[i]!) && ops.has(out[i - 1]!)) throw bad(text, field, `${out[i - 1]} is followed by ${out[i]}`);
  }
  let depth = 0;
  for (const t of out) {
    depth += t === '(' ? 1 : t === ')' ? -1 : 0;
    if (depth < 0) throw bad(text, field, 'a ")" has no "("');
  }
  if (depth !== 0) throw bad(text, field, 'a "(" is not closed');
  return out.join(' ');
}

/** One bare word: an operator, `-term`, `term*`, `column:term`, or a plain term stripped of punctuation. */
function word(raw: string): string[] {
  if (raw === 'AND' || raw === 'OR' || raw === 'NOT') return [raw];
  if (raw.startsWith('-') && raw.length > 1) return ['NOT', ...word(raw.slice(1))];
  const col = /^([a-z]+):(.+)$/.exec(raw);
  if (col && (FTS_COLUMNS as readonly string[]).includes(col[1]!)) return word(col[2]!).map((w) => `${col[1]}:${w}`);
  const prefix = raw.endsWith('*');
  const parts = raw.replace(/\*+$/, '').split(/[^\p{L}\p{N}_]+/u).filter(Boolean);
  if (parts.length === 0) return [];
  // "foo-bar" or "a.b" tokenize to several terms: search them as a phrase.
  if (parts.length > 1) return [`"${parts.join(' ')}${prefix ? '*' : ''}"`];
  return [`${parts[0]}${prefix ? '*' : ''}`];
}

function bad(text: string, field: string, why: string): BatonError {
  return new BatonError('invalid_input', `${field} ${echo(text)} cannot be searched: ${why}. Use terms with AND / OR / NOT, "exact phrases" and prefix*, ${EXAMPLES}.`);
}

/**
 * Okapi BM25 of one row from FTS4's `matchinfo(t, 'pcnalx')` blob (32-bit little-endian integers):
 * p phrases, c columns, n rows, a[c] average tokens, l[c] tokens in this row, then x[p][c] = (hits here, hits
 * in all rows, rows with a hit). Higher is more relevant. `weights` are per column (the findings' columns unless given).
 */
export function bm25(matchinfo: Uint8Array, k1 = 1.2, b = 0.75, weights: readonly number[] = WEIGHTS): number {
  const view = new DataView(matchinfo.buffer, matchinfo.byteOffset, matchinfo.byteLength);
  const int = (i: number) => view.getUint32(i * 4, true);
  const p = int(0);
  const c = int(1);
  const n = int(2);
  const A = 3;
  const L = A + c;
  const X = L + c;
  let score = 0;
  for (let i = 0; i < p; i++) {
    for (let j = 0; j < c; j++) {
      const base = X + 3 * (i * c + j);
      const tf = int(base);
      if (tf === 0) continue;
      const docs = int(base + 2);
      const idf = Math.log(1 + (n - docs + 0.5) / (docs + 0.5));
      const avg = int(A + j) || 1;
      const len = int(L + j);
      score += (weights[j] ?? 1) * idf * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * len) / avg)));
    }
  }
  return score;
}
