// What a string costs inside a JSON string (escapes included), and the longest prefix of it that fits a byte count.
import { utf8Length } from '../utf8.js';

/** Bytes `s` takes inside a JSON string, quotes excluded (at least its UTF-8 length). */
export function jsonLength(s: string): number {
  return utf8Length(JSON.stringify(s)) - 2;
}

/** Bytes the character at `i` takes inside a JSON string, and how many UTF-16 units it spans. */
function charCost(s: string, i: number): [bytes: number, units: number] {
  const c = s.charCodeAt(i);
  if (c === 0x22 || c === 0x5c || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x08 || c === 0x0c) return [2, 1];
  if (c < 0x20) return [6, 1];
  if (c < 0x80) return [1, 1];
  if (c < 0x800) return [2, 1];
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) return [4, 2];
  return c >= 0xd800 && c <= 0xdfff ? [6, 1] : [3, 1]; // a lone surrogate is written as a \uXXXX escape
}

/**
 * The longest prefix of `s` (on a character boundary, so never inside a surrogate pair) that takes at most `bytes`
 * inside a JSON string, and so as UTF-8 text: its length and the bytes it takes.
 */
export function fittingPrefix(s: string, bytes: number): [length: number, used: number] {
  let used = 0;
  let i = 0;
  while (i < s.length) {
    const [size, units] = charCost(s, i);
    if (used + size > bytes) break;
    used += size;
    i += units;
  }
  return [i, used];
}
