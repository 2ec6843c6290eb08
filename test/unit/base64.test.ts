// Rule: the core's base64 and base64url agree with Node's Buffer on every byte string (the core cannot use Buffer: it
// bundles for a neutral platform), and base64url text that is not valid base64url, or not UTF-8, decodes to null.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { decodeBase64, decodeBase64Url, encodeBase64, encodeBase64Url, normalizeBase64 } from '../../src/core/base64.js';

test('bytes of every length up to 300 round-trip as base64 and as base64url, the same text as Buffer writes', () => {
  for (let n = 0; n <= 300; n++) {
    const bytes = randomBytes(n);
    const b64 = bytes.toString('base64');
    assert.equal(encodeBase64(bytes), b64, `base64 of ${n} bytes`);
    assert.equal(normalizeBase64(b64), b64);
    assert.deepEqual(Buffer.from(decodeBase64(b64)), bytes, `base64 back to ${n} bytes`);
    // base64url carries UTF-8 text: take the bytes as Latin-1 characters, plus characters of two, three and four bytes.
    const text = `${bytes.toString('latin1')}é€🙂`;
    const url = Buffer.from(text, 'utf8').toString('base64url');
    assert.equal(encodeBase64Url(text), url, `base64url of ${n + 9} bytes`);
    assert.equal(decodeBase64Url(url), text);
  }
});

test('a text longer than the kept buffer (64 KB of UTF-8) is encoded whole, and a short one after it too', () => {
  const long = 'é🙂'.repeat(20_000);
  assert.equal(encodeBase64Url(long), Buffer.from(long, 'utf8').toString('base64url'));
  assert.equal(decodeBase64Url(encodeBase64Url(long)), long);
  assert.equal(encodeBase64Url('short'), Buffer.from('short').toString('base64url'));
});

test('a lone surrogate is encoded as U+FFFD, as TextEncoder and Buffer do', () => {
  assert.equal(encodeBase64Url('a\ud800b'), Buffer.from('a\ufffdb', 'utf8').toString('base64url'));
});

test('decodeBase64Url refuses what is not unpadded base64url, or not UTF-8', () => {
  const url = encodeBase64Url('{"step_name":"analyze"}');
  for (const bad of ['', `${url}=`, `${url.slice(0, 5)}+${url.slice(6)}`, `${url.slice(0, 5)}/${url.slice(6)}`, `${url} `, `${url}*`, 'abcde']) {
    assert.equal(decodeBase64Url(bad), null, JSON.stringify(bad));
  }
  assert.equal(decodeBase64Url(Buffer.from([0xff, 0xfe, 0x41]).toString('base64url')), null, 'not UTF-8');
  assert.equal(decodeBase64Url(Buffer.from([0xed, 0xa0, 0x80]).toString('base64url')), null, 'an encoded surrogate is not UTF-8');
  // Lengths 2 and 3 past a multiple of 4 are whole: one and two bytes.
  assert.equal(decodeBase64Url('QQ'), 'A');
  assert.equal(decodeBase64Url('QUI'), 'AB');
});
