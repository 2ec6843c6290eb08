// Rule: the core measures and cuts UTF-8 exactly as TextEncoder encodes, without encoding, and never
// splits a character (surrogate pairs included).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { truncateUtf8, utf8Length } from '../../src/core/utf8.js';

const SAMPLES = ['', 'plain ascii', 'café', '— em dash', '日本語テキスト', 'emoji 🎉 and 👩‍💻', 'lone \ud800 high', 'lone \udc00 low', 'end high \ud83d', '\u007f\u0080\u07ff\u0800\uffff'];
const bytes = (s: string) => new TextEncoder().encode(s).length;

test('utf8Length equals the TextEncoder byte count, lone surrogates included', () => {
  for (const s of SAMPLES) assert.equal(utf8Length(s), bytes(s), JSON.stringify(s));
});

test('utf8Length of a long text (counted by the host where it can) equals the TextEncoder byte count too', () => {
  for (const s of SAMPLES) {
    const long = s.repeat(Math.ceil(80 / Math.max(1, s.length)));
    assert.equal(utf8Length(long), bytes(long), JSON.stringify(s));
  }
  assert.equal(utf8Length(`${'x'.repeat(50)}\ud800`), 53, 'a lone surrogate at the end of a long text is U+FFFD');
});

test('truncateUtf8 keeps the longest prefix that fits, on a character boundary', () => {
  for (const s of SAMPLES) {
    for (let budget = 0; budget <= bytes(s) + 2; budget++) {
      const cut = truncateUtf8(s, budget);
      assert.ok(s.startsWith(cut), `${JSON.stringify(s)} @${budget}: a prefix`);
      assert.ok(bytes(cut) <= budget, `${JSON.stringify(s)} @${budget}: fits (${bytes(cut)} bytes)`);
      const next = cut.length < s.length ? (s.codePointAt(cut.length)! > 0xffff ? 2 : 1) : 0;
      if (next) assert.ok(bytes(s.slice(0, cut.length + next)) > budget, `${JSON.stringify(s)} @${budget}: the next character would not fit`);
      const last = cut.charCodeAt(cut.length - 1);
      const following = s.charCodeAt(cut.length);
      const splitsPair = last >= 0xd800 && last <= 0xdbff && following >= 0xdc00 && following <= 0xdfff;
      assert.ok(!splitsPair, `${JSON.stringify(s)} @${budget}: split a surrogate pair`);
    }
  }
});

test('truncateUtf8 returns the string itself when it fits', () => {
  const s = 'x'.repeat(100);
  assert.equal(truncateUtf8(s, 100), s);
  assert.equal(truncateUtf8('🎉', 3), '');
  assert.equal(truncateUtf8('🎉', 4), '🎉');
});
