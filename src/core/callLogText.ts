// What the call log stores of a request or response: redacted JSON text and the size of the whole value in UTF-8
// bytes. Every call is logged, so this runs for every call, on both sides.
import { NEXT_STEP_TOOL } from './broker/stepText.js';
import { dropCutWord, isSecretKeyName, redactSecrets, redactText, setOwn } from './safety/redact.js';
import type { NextStepResponse } from './types.js';
import { knownJsonSize } from './jsonSize.js';
import { utf8Length } from './utf8.js';

/** Characters of one request or response the call log keeps; larger ones keep a redacted head and their size. */
const CALL_LOG_MAX_CHARS = 64 * 1024;

/**
 * How much of a successful call the call log keeps: strings up to this many characters, and objects and arrays down
 * to this depth (deeper ones as their size). The database holds both sides of such a call anyway: the response is
 * Baton's own output (contract, context, step states), and a request's long texts are what it stored (the step's
 * output, its artifacts, the memory it wrote). Kept whole, the responses alone were most of the database, and so of
 * the memory it takes (sql.js holds all of it, and every checkpoint copies it); each agent's submission was kept twice.
 */
const CALL_LOG_OUTLINE_CHARS = 200;
const CALL_LOG_OUTLINE_DEPTH = 2;

const REDACTED = '[REDACTED]';

/**
 * The outline of `value`, redacted, in one walk: ids, statuses, names and the first words of texts stay; a longer
 * text keeps its head, a deeper list or object its size, and a secret-named key's text is replaced.
 */
function outline(value: unknown, depth: number): unknown {
  if (typeof value === 'string') {
    const cut = value.length <= CALL_LOG_OUTLINE_CHARS ? value : `${dropCutWord(value.slice(0, CALL_LOG_OUTLINE_CHARS))}... (${value.length} chars)`;
    return redactText(cut);
  }
  if (Array.isArray(value)) return depth < CALL_LOG_OUTLINE_DEPTH ? value.map((v) => outline(v, depth + 1)) : `[${value.length} items]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (depth >= CALL_LOG_OUTLINE_DEPTH) return `{${entries.length} fields}`;
    const out: Record<string, unknown> = {};
    for (const [key, item] of entries) {
      const secret = isSecretKeyName(key);
      // A secret-named key's text is not walked; what the outline turns into text (`credentials: '{2 fields}'`) goes too.
      const kept = secret && typeof item === 'string' ? REDACTED : outline(item, depth + 1);
      setOwn(out, key, secret && typeof kept === 'string' ? REDACTED : kept);
    }
    return out;
  }
  return value;
}

/**
 * What the call log keeps of a successful `workflow_next_step` answer before it is outlined: everything but the three
 * members Baton builds from what the database holds (the step's contract, its context, the scoring), which keep what
 * names them. They were most of every row (1.7 of 1.9 KB), and the hottest call paid to outline, store, journal and
 * snapshot them.
 */
function nextStepDigest(res: NextStepResponse): unknown {
  // Copied key by key: a rest copy and spreads adding keys take V8 11.3's slow path (src/core/withFields.ts).
  const digest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(res)) if (!DIGESTED.has(key)) digest[key] = value;
  const { next_step_contract: c, context: x, selection: s } = res;
  if (c) digest.next_step_contract = { step_name: c.step_name, human_gate_required: c.human_gate_required };
  if (x) digest.context = { workflow: x.workflow, agent_name: x.agent_name, attempt: x.attempt, dependency_artifacts: x.dependency_artifacts };
  if (s) digest.selection = { reason: s.reason };
  return digest;
}

/** The members of a `workflow_next_step` answer its digest keeps only what names them of. */
const DIGESTED: ReadonlySet<string> = new Set(['next_step_contract', 'context', 'selection']);

/** The digest a tool's successful answer is outlined from, by tool name (the whole answer for the others). */
const RESPONSE_DIGESTS: ReadonlyMap<string, (response: never) => unknown> = new Map([[NEXT_STEP_TOOL, nextStepDigest]]);

/**
 * What the call log keeps of a successful call's response to `tool`, before it is outlined: a digest for the tools
 * that have one, else the response itself. Anything but a plain object (an answer of another shape) stays whole.
 */
export function responseDigest(tool: string, response: unknown): unknown {
  const digest = RESPONSE_DIGESTS.get(tool);
  if (!digest || response === null || typeof response !== 'object' || Array.isArray(response)) return response;
  return digest(response as never);
}

/**
 * A call-log value as stored text (redacted) and its full size in UTF-8 bytes. With `outlined` (either side of a
 * successful call) it keeps the outline (of `kept`, the part of the value worth keeping, when given); otherwise (a
 * failed call) the whole value, or a redacted head of a huge one.
 */
export function callLogText(value: unknown, outlined = false, kept: unknown = value): { text: string; size: number } {
  try {
    return logText(value, outlined, kept);
  } catch (ex) {
    if (!(ex instanceof RangeError)) throw ex;
    // Nested deeper than the stack can walk (a client's arguments thousands of levels deep): the row says so.
    return { text: JSON.stringify({ unloggable: 'nested too deep to walk', error: ex.message }), size: 0 };
  }
}

function logText(value: unknown, outlined: boolean, kept: unknown): { text: string; size: number } {
  // A successful call's size is the one recorded where its answer was built, else measured here.
  if (outlined) return { text: JSON.stringify(outline(kept, 0) ?? null), size: knownJsonSize(value) ?? utf8Length(JSON.stringify(value ?? null)) };
  const raw = JSON.stringify(value ?? null);
  const size = utf8Length(raw);
  if (raw.length <= CALL_LOG_MAX_CHARS) return { text: JSON.stringify(redactSecrets(value) ?? null), size };
  return { text: JSON.stringify({ truncated: true, size, head: dropCutWord(redactText(raw.slice(0, CALL_LOG_MAX_CHARS))) }), size };
}
