// Fits an `ok` step result to the byte budget: each form a client may forward to its model (the structured JSON and
// the text) stays within it, and the dependency artifacts get what the contract, context and token leave.
import type { InlineArtifact, NextStepResponse } from '../types.js';
import { rememberJsonSize } from '../jsonSize.js';
import { utf8Length } from '../utf8.js';
import type { ArtifactHead } from './executionRepo.js';
import { artifactsSection, okTextFrame, rememberText } from './stepText.js';
import { fittingPrefix, jsonLength } from './jsonText.js';
import { cutFreeText, freeTextIsLong } from './stepContext.js';

export { fittingPrefix, jsonLength };

/** Below this share an artifact is left out (the oldest first) rather than cut to a useless stub. */
const MIN_ARTIFACT_BYTES = 160;

/**
 * Puts the dependency artifacts (`heads`, oldest first) into `res.context` so that both forms fit `budgetBytes`,
 * newest first, each cut to its share (short ones leave theirs to the others); builds the text form once and
 * records it for `resultText`. Returns the text.
 */
export function fitStepResult(res: NextStepResponse, heads: ArtifactHead[], budgetBytes: number): string {
  const ctx = res.context!;
  const all = `workflow-artifacts://${res.execution_id}`;
  // Sized with the `more` pointer in place and the longer variant of every field: the final forms can only be smaller.
  ctx.more = heads.length ? [all] : [];
  ctx.dependency_artifacts = [];
  let frame = okTextFrame(res);
  // A long task description or feedback is cut so that both forms keep to the budget, with room for an artifact's shell.
  let measured: number | undefined;
  if (freeTextIsLong(ctx)) ({ frame, json: measured } = fitFreeText(res, budgetBytes - (heads.length ? SHELL_ROOM : 0), frame));
  if (heads.length === 0) return remember(res, frame.head + artifactsSection(ctx) + frame.tail);
  const jsonBase = measured ?? utf8Length(JSON.stringify(res));
  const textBase = utf8Length(frame.head) + utf8Length(frame.tail);
  // Newest first: the most recent dependency usually matters most.
  const newest = [...heads].reverse();
  // What each artifact needs inside the JSON; more than the budget cannot fit anyway (artifactHeads cut each to the
  // budget's length in characters, so the native count stays short).
  const need = newest.map((a) => {
    const used = jsonLength(a.content);
    return used <= budgetBytes ? used : budgetBytes + 1;
  });
  const shells: InlineArtifact[] = newest.map((a) => ({
    artifact_id: a.artifact_id, step_name: a.step_name, type: a.type, title: a.title, content: '', truncated: false, uri: `${all}#${a.artifact_id}`,
  }));
  const jsonShell = shells.map((s) => utf8Length(JSON.stringify(s)) + 1);
  let kept = shells.length;
  let free = 0;
  for (;;) {
    const jsonUsed = jsonBase + sum(jsonShell, kept);
    const textUsed = textBase + utf8Length(artifactsSection({ ...ctx, dependency_artifacts: shells.slice(0, kept).map((s) => ({ ...s, truncated: true })) }));
    free = budgetBytes - Math.max(jsonUsed, textUsed);
    // One artifact stays, however little of it fits, unless even its shell does not: then none does (`more` has all).
    if (kept === 0 || (kept === 1 && free >= 0) || sum(need, kept) <= free || free / kept >= MIN_ARTIFACT_BYTES) break;
    kept--;
  }
  // Water-filling: the shortest take what they need, the rest share what is left.
  const alloc = new Array<number>(kept).fill(0);
  let left = Math.max(0, free);
  [...alloc.keys()].sort((a, b) => need[a]! - need[b]!).forEach((i, k) => {
    alloc[i] = Math.min(need[i]!, Math.floor(left / (kept - k)));
    left -= alloc[i]!;
  });
  // The JSON's final size, from jsonBase: each artifact is its shell (with a comma) and its content's bytes, one byte
  // less when `truncated` is true, not false; one comma less in all (none without artifacts); and the `more` pointer's
  // bytes if it goes.
  let jsonSize = jsonBase - (kept > 0 ? 1 : 0);
  ctx.dependency_artifacts = shells.slice(0, kept).map((s, i) => {
    const head = newest[i]!;
    const [length, used] = alloc[i]! >= need[i]! ? [head.content.length, need[i]!] : fittingPrefix(head.content, alloc[i]!);
    const content = head.content.slice(0, length);
    // `head.content` may arrive cut already (artifactHeads); its full size is content_size_bytes.
    const truncated = utf8Length(content) < head.content_size_bytes;
    jsonSize += jsonShell[i]! + used - (truncated ? 1 : 0);
    return { ...s, content, truncated };
  });
  if (kept === heads.length && !ctx.dependency_artifacts.some((a) => a.truncated)) {
    ctx.more = [];
    jsonSize -= utf8Length(JSON.stringify(all));
  }
  rememberJsonSize(res, jsonSize);
  return remember(res, frame.head + artifactsSection(ctx) + frame.tail);
}

/** Room kept for one inline artifact's shell (its ids, type, title and URI) when the free texts are cut to fit. */
const SHELL_ROOM = 400;

/**
 * Cuts the context's free texts (cutFreeText) until both forms, without artifacts, fit `budgetBytes`; the new frame,
 * and the JSON's size as it now stands when it was measured last (the fitting of artifacts starts from it).
 */
function fitFreeText(res: NextStepResponse, budgetBytes: number, frame: { head: string; tail: string }): { frame: { head: string; tail: string }; json?: number } {
  for (let i = 0; i < 4; i++) {
    const json = utf8Length(JSON.stringify(res));
    const over = Math.max(json, utf8Length(frame.head) + utf8Length(artifactsSection(res.context!)) + utf8Length(frame.tail)) - budgetBytes;
    if (over <= 0 || !cutFreeText(res.context!, over)) return { frame, json };
    frame = okTextFrame(res);
  }
  return { frame };
}

function sum(values: number[], count: number): number {
  let n = 0;
  for (let i = 0; i < count; i++) n += values[i]!;
  return n;
}

function remember(res: NextStepResponse, text: string): string {
  rememberText(res, text);
  return text;
}
