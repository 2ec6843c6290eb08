// Rule: only a step token this server signed, unaltered and unexpired, is accepted; every rejection names its reason and how to recover.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { decodeTokenUnverified, signToken, verifyToken, type TokenPayload } from '../../src/core/broker/tokens.js';
import { BatonError, type ErrorReason } from '../../src/core/errors.js';
import { nodeCrypto } from '../../src/host/nodePorts.js';

const SECRET = 'test-secret';
const payload: TokenPayload = {
  execution_id: 'exec-1',
  step_name: 'implement-fix',
  issued_at: 1_000,
  expires_at: 601_000,
  nonce: 'nonce-1',
};

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const sign = (body: string, secret = SECRET) => createHmac('sha256', secret).update(body).digest('base64url');
/** A correctly signed token over an arbitrary body. */
const signedBody = (json: string) => `${b64(json)}.${sign(b64(json))}`;

function throwsReason(fn: () => unknown, reason: ErrorReason, messagePart?: RegExp): BatonError {
  let caught: unknown;
  try {
    fn();
  } catch (ex) {
    caught = ex;
  }
  assert.ok(BatonError.is(caught, reason), `expected BatonError(${reason}), got ${String(caught)}`);
  if (messagePart) assert.match(caught.message, messagePart);
  return caught;
}

test('round trip returns the signed payload', () => {
  const token = signToken(nodeCrypto, SECRET, payload);
  assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  assert.deepEqual(verifyToken(nodeCrypto, SECRET, token, 1_000), payload);
  assert.deepEqual(verifyToken(nodeCrypto, SECRET, token, 600_999), payload);
});

test('token format is base64url(JSON) + "." + HMAC-SHA256 of the first part', () => {
  const token = signToken(nodeCrypto, SECRET, payload);
  const [body, sig] = token.split('.') as [string, string];
  assert.deepEqual(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')), payload);
  assert.equal(sig, sign(body));
});

test('non-ASCII fields survive the round trip (UTF-8 base64url without Buffer)', () => {
  const p = { ...payload, step_name: 'überprüfen-✓-步骤', nonce: 'n🙂' };
  const token = signToken(nodeCrypto, SECRET, p);
  assert.equal(token.split('.')[0], b64(JSON.stringify(p)));
  assert.deepEqual(verifyToken(nodeCrypto, SECRET, token, 0), p);
});

test('expired exactly at expires_at, with a refresh_token hint and details', () => {
  const token = signToken(nodeCrypto, SECRET, payload);
  const err = throwsReason(() => verifyToken(nodeCrypto, SECRET, token, 601_000), 'token_expired', /workflow_next_step with \{"request": "refresh_token", "step_token": <this token>\}/);
  assert.equal(err.details.execution_id, 'exec-1');
  assert.equal(err.details.step_name, 'implement-fix');
  throwsReason(() => verifyToken(nodeCrypto, SECRET, token, 9_999_999), 'token_expired');
});

test('a wait token carries its signed wait mark; adding the mark to another token breaks the signature', () => {
  const wait = signToken(nodeCrypto, SECRET, { ...payload, wait: true });
  assert.deepEqual(verifyToken(nodeCrypto, SECRET, wait, 1_000), { ...payload, wait: true });
  assert.equal(decodeTokenUnverified(wait)?.wait, true);
  assert.equal('wait' in verifyToken(nodeCrypto, SECRET, signToken(nodeCrypto, SECRET, payload), 1_000), false);
  const [, sig] = signToken(nodeCrypto, SECRET, payload).split('.');
  throwsReason(() => verifyToken(nodeCrypto, SECRET, `${b64(JSON.stringify({ ...payload, wait: true }))}.${sig}`, 1_000), 'token_forged');
});

test('allowExpired accepts an expired but genuine token', () => {
  const token = signToken(nodeCrypto, SECRET, payload);
  assert.deepEqual(verifyToken(nodeCrypto, SECRET, token, 9_999_999, { allowExpired: true }), payload);
});

test('allowExpired does not excuse a forged token', () => {
  const token = signToken(nodeCrypto, 'other-secret', payload);
  throwsReason(() => verifyToken(nodeCrypto, SECRET, token, 9_999_999, { allowExpired: true }), 'token_forged');
});

test('wrong secret is forged, with current-step recovery naming the execution', () => {
  const token = signToken(nodeCrypto, 'other-secret', payload);
  const err = throwsReason(() => verifyToken(nodeCrypto, SECRET, token, 1_000), 'token_forged', /current-step:\/\/exec-1/);
  assert.match(err.message, /new_step_token/);
  assert.equal(err.details.step_name, 'implement-fix');
});

test('tampered payload (signature kept) is forged', () => {
  const token = signToken(nodeCrypto, SECRET, payload);
  const sig = token.split('.')[1];
  const body = b64(JSON.stringify({ ...payload, step_name: 'deploy-production' }));
  throwsReason(() => verifyToken(nodeCrypto, SECRET, `${body}.${sig}`, 1_000), 'token_forged');
  const later = b64(JSON.stringify({ ...payload, expires_at: 99_999_999 }));
  throwsReason(() => verifyToken(nodeCrypto, SECRET, `${later}.${sig}`, 1_000), 'token_forged');
});

test('tampered signature is forged', () => {
  const token = signToken(nodeCrypto, SECRET, payload);
  const [body, sig] = token.split('.') as [string, string];
  const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
  throwsReason(() => verifyToken(nodeCrypto, SECRET, `${body}.${flipped}`, 1_000), 'token_forged');
  throwsReason(() => verifyToken(nodeCrypto, SECRET, `${body}.${sig.slice(0, -1)}`, 1_000), 'token_forged');
});

const malformedCases: Array<[string, unknown]> = [
  ['empty string', ''],
  ['not a string', 42],
  ['null', null],
  ['one part', b64(JSON.stringify(payload))],
  ['three parts', `${b64(JSON.stringify(payload))}.abc.def`],
  ['empty signature', `${b64(JSON.stringify(payload))}.`],
  ['non-base64url characters', `${b64(JSON.stringify(payload))}+/.abc`],
  ['padding characters', `${b64(JSON.stringify(payload))}==.abc`],
  ['base64url but not JSON', signedBody('not json')],
  ['JSON array', signedBody('[1,2]')],
  ['JSON null', signedBody('null')],
  ['missing nonce', signedBody(JSON.stringify({ ...payload, nonce: undefined }))],
  ['missing expires_at', signedBody(JSON.stringify({ ...payload, expires_at: undefined }))],
  ['issued_at as string', signedBody(JSON.stringify({ ...payload, issued_at: '1000' }))],
  ['expires_at as string', signedBody(JSON.stringify({ ...payload, expires_at: '601000' }))],
  ['execution_id as number', signedBody(JSON.stringify({ ...payload, execution_id: 7 }))],
  ['empty step_name', signedBody(JSON.stringify({ ...payload, step_name: '' }))],
  ['invalid UTF-8', `${Buffer.from([0xff, 0xfe, 0xfd]).toString('base64url')}.abc`],
];

for (const [name, token] of malformedCases) {
  test(`malformed: ${name}`, () => {
    throwsReason(() => verifyToken(nodeCrypto, SECRET, token as string, 1_000), 'token_malformed', /new_step_token.*current-step:\/\//);
  });
}

test('malformed with known ids carries them in details', () => {
  const token = signedBody(JSON.stringify({ execution_id: 'exec-9', step_name: 's' }));
  const err = throwsReason(() => verifyToken(nodeCrypto, SECRET, token, 1_000), 'token_malformed');
  assert.deepEqual(err.details, { execution_id: 'exec-9', step_name: 's' });
});

test('decodeTokenUnverified reads fields without checking the signature', () => {
  const forged = signToken(nodeCrypto, 'other-secret', payload);
  assert.deepEqual(decodeTokenUnverified(forged), payload);
  assert.deepEqual(decodeTokenUnverified(signedBody(JSON.stringify({ execution_id: 'e', issued_at: 'x' }))), { execution_id: 'e' });
  assert.equal(decodeTokenUnverified('garbage'), null);
  assert.equal(decodeTokenUnverified(signedBody('"str"')), null);
  assert.equal(decodeTokenUnverified(signedBody('{bad')), null);
});

test('the ledger skips the HMAC only for its own tokens, unaltered; expiry still applies to them', async () => {
  const { TokenLedger } = await import('../../src/core/broker/tokenLedger.js');
  let hmacs = 0;
  let now = 1_000;
  const crypto = { ...nodeCrypto, hmacSha256: (key: string, data: string) => (hmacs++, nodeCrypto.hmacSha256(key, data)) };
  const ledger = new TokenLedger({
    repo: { insertToken: () => undefined, execution: () => ({}) } as never, // its executions are all here: a bad signature is tampering
    ports: { crypto, clock: { now: () => now }, ids: { uuid: () => 'nonce-x', orderedUuid: () => 'nonce-x' } } as never,
    secret: () => SECRET,
    ttlMs: 60_000,
  });
  const { token } = ledger.issue('exec-1', 'implement-fix');
  assert.equal(hmacs, 1);
  assert.equal(ledger.verify(token, now).step_name, 'implement-fix');
  assert.equal(hmacs, 1, 'its own token: no second HMAC');
  // A copy with one character changed is checked in full, and refused.
  const tampered = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
  throwsReason(() => ledger.verify(tampered, now), 'token_forged');
  assert.equal(hmacs, 2);
  now += 60_000;
  throwsReason(() => ledger.verify(token, now), 'token_expired', /refresh_token/);
  assert.equal(ledger.verify(token, now, { allowExpired: true }).nonce, 'nonce-x');
});

test('the HMAC that signs tokens is createHmac\'s, for any key and message (tokens signed before still verify)', () => {
  const keys = ['', 'k', SECRET, 'a'.repeat(63), 'b'.repeat(64), 'c'.repeat(65), 'd'.repeat(200), 'clé ünïcødé 🔑', '\uD800 lone'];
  const messages = ['', 'abc.def', b64(JSON.stringify(payload)), 'é'.repeat(1400), 'x'.repeat(1300), 'y'.repeat(5000), '🎉'.repeat(700), '\uDC00 lone \uD83D'];
  // Keys alternate so that the kept key changes between calls, and each message comes twice under one key (kept).
  for (const message of messages) {
    for (const key of keys) {
      const expected = createHmac('sha256', key).update(message).digest('base64url');
      assert.equal(nodeCrypto.hmacSha256(key, message), expected, `key ${JSON.stringify(key)}, message of ${message.length}`);
      assert.equal(nodeCrypto.hmacSha256(key, message), expected);
    }
  }
  // A short message after a long one under the same key reads none of the longer one's bytes.
  assert.equal(nodeCrypto.hmacSha256(SECRET, 'z'.repeat(1000)), sign('z'.repeat(1000)));
  assert.equal(nodeCrypto.hmacSha256(SECRET, 'z'), sign('z'));
});

// The compact form: every token Baton issues (its execution ids and nonces are UUIDs, its times whole milliseconds).
const uuidPayload: TokenPayload = {
  execution_id: 'd31fef47-3b95-46b4-aabc-885542ebde10',
  step_name: 'implement-fix',
  issued_at: 1_796_673_481_466,
  expires_at: 1_796_674_081_466,
  nonce: '01a25215-aaf9-74a5-b02a-fbf0e67c208e',
};
/** A body signed with SECRET as it is (no encoding). */
const signedRaw = (body: string) => `${body}.${sign(body)}`;
/** `btk1` and the base64url of `bytes`, signed. */
const signedCompact = (bytes: Buffer) => signedRaw(`btk1${bytes.toString('base64url')}`);
/** The compact payload's bytes for `p`, laid out by hand. */
function compactBytes(p: TokenPayload, flags = p.wait ? 1 : 0): Buffer {
  const time = (ms: number) => Buffer.from(ms.toString(16).padStart(12, '0'), 'hex');
  const uuid = (id: string) => Buffer.from(id.replace(/-/g, ''), 'hex');
  return Buffer.concat([Buffer.from([flags]), uuid(p.execution_id), uuid(p.nonce), time(p.issued_at), time(p.expires_at), Buffer.from(p.step_name, 'utf8')]);
}

test('a payload of UUIDs and whole milliseconds signs compact: btk1, its bytes in base64url, the HMAC of that text', () => {
  const token = signToken(nodeCrypto, SECRET, uuidPayload);
  const [body, sig] = token.split('.') as [string, string];
  assert.equal(body, `btk1${compactBytes(uuidPayload).toString('base64url')}`);
  assert.equal(sig, sign(body));
  assert.equal(token.length, 126, 'a bug-fix step token: 126 characters, where its JSON form has 268');
  assert.equal(signToken(nodeCrypto, SECRET, uuidPayload), token, 'the same payload gives the same token');
  assert.deepEqual(verifyToken(nodeCrypto, SECRET, token, uuidPayload.issued_at), uuidPayload);
  assert.deepEqual(decodeTokenUnverified(token), uuidPayload);
});

test('compact tokens carry the wait mark, any step name in UTF-8 and the whole range of times', () => {
  for (const p of [
    { ...uuidPayload, wait: true as const },
    { ...uuidPayload, step_name: 'überprüfen-✓-步骤 🙂' },
    { ...uuidPayload, step_name: 'x' },
    { ...uuidPayload, step_name: 's'.repeat(500) },
    { ...uuidPayload, issued_at: 0, expires_at: 2 ** 48 - 1 },
    { ...uuidPayload, issued_at: 2 ** 32 - 1, expires_at: 2 ** 32 },
  ]) {
    const token = signToken(nodeCrypto, SECRET, p);
    assert.ok(token.startsWith('btk1'), token);
    assert.equal(token.split('.')[0], `btk1${compactBytes(p).toString('base64url')}`);
    assert.deepEqual(verifyToken(nodeCrypto, SECRET, token, 0, { allowExpired: true }), p);
  }
});

test('a payload with no compact form signs as JSON, and verifies', () => {
  for (const p of [
    payload,
    { ...uuidPayload, execution_id: uuidPayload.execution_id.toUpperCase() }, // would come back in lowercase
    { ...uuidPayload, nonce: `${uuidPayload.nonce}0` },
    { ...uuidPayload, execution_id: uuidPayload.execution_id.replace(/-/g, '') },
    { ...uuidPayload, issued_at: 1.5 },
    { ...uuidPayload, issued_at: -1 },
    { ...uuidPayload, expires_at: 2 ** 48 },
    { ...uuidPayload, step_name: 'lone \uD800 surrogate' }, // no UTF-8 form to come back from
  ]) {
    const token = signToken(nodeCrypto, SECRET, p);
    const [body] = token.split('.') as [string, string];
    assert.equal(body, b64(JSON.stringify(p)), JSON.stringify(p));
    assert.deepEqual(verifyToken(nodeCrypto, SECRET, token, 0, { allowExpired: true }), p);
  }
});

test('a JSON token of a compact-able payload (signed before compact tokens) still verifies, to the same payload', () => {
  const old = signedBody(JSON.stringify(uuidPayload));
  assert.deepEqual(verifyToken(nodeCrypto, SECRET, old, uuidPayload.issued_at), uuidPayload);
  assert.notEqual(old, signToken(nodeCrypto, SECRET, uuidPayload));
});

test('a compact token altered anywhere is forged', () => {
  const token = signToken(nodeCrypto, SECRET, uuidPayload);
  const [, sig] = token.split('.') as [string, string];
  const altered = (p: TokenPayload, flags?: number) => `btk1${compactBytes(p, flags).toString('base64url')}.${sig}`;
  throwsReason(() => verifyToken(nodeCrypto, SECRET, altered({ ...uuidPayload, wait: true }), 1), 'token_forged');
  throwsReason(() => verifyToken(nodeCrypto, SECRET, altered({ ...uuidPayload, step_name: 'deploy-production' }), 1), 'token_forged');
  throwsReason(() => verifyToken(nodeCrypto, SECRET, altered({ ...uuidPayload, expires_at: uuidPayload.expires_at + 1 }), 1), 'token_forged');
  const other = { ...uuidPayload, nonce: '01a25215-aaf9-74a5-b02a-fbf0e67c208f' };
  throwsReason(() => verifyToken(nodeCrypto, SECRET, altered(other), 1), 'token_forged', /current-step:\/\/d31fef47-3b95-46b4-aabc-885542ebde10/);
  throwsReason(() => verifyToken(nodeCrypto, 'other-secret', token, 1), 'token_forged');
  // The same bytes in another base64url spelling (a bit the last character does not use, set) is another text: forged.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const body = token.split('.')[0]!;
  const respelled = body.slice(0, -1) + alphabet[alphabet.indexOf(body.at(-1)!) ^ 1];
  assert.deepEqual(Buffer.from(respelled.slice(4), 'base64url'), Buffer.from(body.slice(4), 'base64url'));
  throwsReason(() => verifyToken(nodeCrypto, SECRET, `${respelled}.${sig}`, 1), 'token_forged');
});

const compactMalformed: Array<[string, string]> = [
  ['the prefix alone', signedRaw('btk1')],
  ['no step name', signedCompact(compactBytes(uuidPayload).subarray(0, 45))],
  ['cut inside the times', signedCompact(compactBytes(uuidPayload).subarray(0, 40))],
  ['an unknown flag', signedCompact(compactBytes(uuidPayload, 2))],
  ['a step name that is not UTF-8', signedCompact(Buffer.concat([compactBytes(uuidPayload).subarray(0, 45), Buffer.from([0xc3, 0x28])]))],
  ['a length no base64url has', signedRaw(`btk1${compactBytes(uuidPayload).toString('base64url')}A`.slice(0, 4 + 4 * 16 + 1))],
];

for (const [name, token] of compactMalformed) {
  test(`malformed compact token: ${name}`, () => {
    throwsReason(() => verifyToken(nodeCrypto, SECRET, token, 1), 'token_malformed', /new_step_token.*current-step:\/\//);
    assert.equal(decodeTokenUnverified(token), null);
  });
}
