// Rule: a user's FTS5-style query becomes a valid FTS4 expression (or a refusal that says why), BM25 prefers rarer
// terms and more hits in shorter, title-weighted text, and base64 round-trips every byte value.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import { base64Size, decodeBase64, encodeBase64, normalizeBase64 } from '../../src/core/base64.js';
import { bm25, toFtsQuery } from '../../src/core/lifecycle/ftsQuery.js';

const TRANSLATIONS: Array<[string, string]> = [
  ['sql injection', 'sql injection'],
  ['xss OR csrf', 'xss OR csrf'],
  ['injection NOT test', 'injection NOT test'],
  ['injection AND NOT test', 'injection NOT test'],
  ['injection -test', 'injection NOT test'],
  ['"input not sanitized"', '"input not sanitized"'],
  ['"auth flow"*', '"auth flow*"'],
  ['auth*', 'auth*'],
  ['(a OR b) AND c', '( a OR b ) AND c'],
  ['title:injection', 'title:injection'],
  ['x-frame-options', '"x frame options"'],
  ["user's input!", '"user s" input'],
  ['or and not', 'or and not'],
];

describe('toFtsQuery', () => {
  for (const [input, expected] of TRANSLATIONS) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => assert.equal(toFtsQuery(input), expected));
  }
  for (const bad of ['"open', 'NOT x', 'x OR', 'a OR OR b', '(a', 'a)', '   ', '!!!']) {
    it(`refuses ${JSON.stringify(bad)}`, () => assert.throws(() => toFtsQuery(bad), (ex: unknown) => BatonError.is(ex, 'invalid_input') && /prefix\*/.test(ex.message)));
  }
});

/** A matchinfo('pcnalx') blob for one phrase over the four columns. */
function blob(n: number, avg: number[], len: number[], hits: Array<[number, number, number]>): Uint8Array {
  const ints = [1, 4, n, ...avg, ...len, ...hits.flat()];
  const buf = new Uint8Array(ints.length * 4);
  const view = new DataView(buf.buffer);
  ints.forEach((v, i) => view.setUint32(i * 4, v, true));
  return buf;
}

describe('bm25', () => {
  const none: [number, number, number] = [0, 0, 0];
  it('scores a row with no hit 0 and a row with a hit above 0', () => {
    assert.equal(bm25(blob(100, [5, 20, 3, 1], [5, 20, 3, 1], [none, none, none, none])), 0);
    assert.ok(bm25(blob(100, [5, 20, 3, 1], [5, 20, 3, 1], [none, [1, 10, 10], none, none])) > 0);
  });
  it('prefers a rare term, more hits, a shorter text and a title hit', () => {
    const at = (hits: Array<[number, number, number]>, len = [5, 20, 3, 1]) => bm25(blob(100, [5, 20, 3, 1], len, hits));
    assert.ok(at([none, [1, 2, 2], none, none]) > at([none, [1, 90, 90], none, none]), 'rare beats common');
    assert.ok(at([none, [3, 10, 5], none, none]) > at([none, [1, 10, 5], none, none]), 'more hits');
    assert.ok(at([none, [1, 10, 5], none, none], [5, 10, 3, 1]) > at([none, [1, 10, 5], none, none], [5, 40, 3, 1]), 'shorter text');
    assert.ok(at([[1, 10, 5], none, none, none]) > at([none, [1, 10, 5], none, none]), 'title weighs more');
  });
});

describe('base64', () => {
  it('round-trips every byte value and reports the decoded size', () => {
    for (const length of [0, 1, 2, 3, 4, 255, 256, 1000]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 131 + 7) % 256);
      const b64 = encodeBase64(bytes);
      assert.equal(b64, Buffer.from(bytes).toString('base64'));
      assert.equal(base64Size(b64), length);
      assert.deepEqual(decodeBase64(b64), bytes);
    }
  });
  it('accepts padded standard base64 with line breaks and refuses anything else', () => {
    assert.equal(normalizeBase64('AAEC\n/w=='), 'AAEC/w==');
    for (const bad of ['abc', 'a===', '-_8=', 'not base64!']) assert.equal(normalizeBase64(bad), undefined, bad);
  });
});
