// Rule: the call log never stores a secret (step tokens, API keys, passwords, private keys), and ordinary text is left alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SECRET_HINT, dropCutWord, redactSecrets, redactText } from '../../src/core/safety/redact.js';
import { signToken } from '../../src/core/broker/tokens.js';
import { nodeCrypto } from '../../src/host/nodePorts.js';

const stepToken = signToken(nodeCrypto, 's', { execution_id: 'e', step_name: 'implement-fix', issued_at: 1, expires_at: 2, nonce: 'n' });
/** A compact step token, as Baton issues them (UUID ids), with a one-byte step name: the shortest there is. */
const compactToken = signToken(nodeCrypto, 's', {
  execution_id: '0b5c4b57-8a3e-4d1c-9f2e-6a7b8c9d0e1f', step_name: 'x', issued_at: 1, expires_at: 2, nonce: '01a25215-aaf9-74a5-b02a-fbf0e67c208e',
});
const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1234\nabcd==\n-----END RSA PRIVATE KEY-----';

// [input, secret substring that must be gone, expected output (when exact)]
const positives: Array<[string, string, string?]> = [
  ['Authorization: Bearer abcdef0123456789abcdef', 'abcdef0123456789abcdef'],
  ['curl -H "Bearer abcdef0123456789abcdef"', 'abcdef0123456789abcdef', 'curl -H "Bearer [REDACTED:bearer]"'],
  ['key sk-proj-AbCdEfGhIjKlMnOpQrStUvWx123', 'AbCdEfGhIjKlMnOpQrStUvWx123', 'key [REDACTED:openai_key]'],
  ['sk-abcdefghijklmnopqrstuvwxyz012345', 'abcdefghijklmnopqrstuvwxyz', '[REDACTED:openai_key]'],
  ['sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv-_xyz', 'AbCdEfGhIjKlMnOpQrStUv', '[REDACTED:anthropic_key]'],
  ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'ghp_abcdefghijkl', '[REDACTED:github_token]'],
  ['gho_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 'gho_ABCD', '[REDACTED:github_token]'],
  ['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', '11ABCDEFG0123456789', '[REDACTED:github_token]'],
  ['slack xoxb-123456789012-abcdefghijkl', 'xoxb-1234', 'slack [REDACTED:slack_token]'],
  ['AIzaSyA-abcdefghijklmnopqrstuvwxyz01234', 'AIzaSyA', '[REDACTED:google_api_key]'],
  ['stripe sk_live_abcdefghijklmnop1234', 'sk_live_abc', 'stripe [REDACTED:stripe_key]'],
  ['id AKIAIOSFODNN7EXAMPLE here', 'AKIAIOSFODNN7EXAMPLE', 'id [REDACTED:aws_access_key_id] here'],
  ['ASIAABCDEFGHIJKLMNOP', 'ASIAABCDEFGHIJKLMNOP', '[REDACTED:aws_access_key_id]'],
  ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtnFEMI', 'aws_secret_access_key = [REDACTED:aws_secret]'],
  [`jwt ${jwt} end`, 'dozjgNryP4J3', 'jwt [REDACTED:jwt] end'],
  [`token was ${stepToken}.`, stepToken, 'token was [REDACTED:step_token].'],
  [`token was ${compactToken}.`, compactToken, 'token was [REDACTED:step_token].'],
  [`{"step_token":"${compactToken}"}`, compactToken, '{"step_token":"[REDACTED:step_token]"}'],
  [`before\n${pem}\nafter`, 'MIIEowIBAAKCAQEA1234', 'before\n[REDACTED:private_key]\nafter'],
  ['-----BEGIN PRIVATE KEY-----\nMIIEvgIBADAN truncated', 'MIIEvgIBADAN', '[REDACTED:private_key]'],
  ['postgres://admin:hunter2@db.local:5432/app', 'hunter2', 'postgres://admin:[REDACTED]@db.local:5432/app'],
  ['https://bob:s3cr3t@example.com/x', 's3cr3t', 'https://bob:[REDACTED]@example.com/x'],
  ['DB_PASSWORD=hunter2', 'hunter2', 'DB_PASSWORD=[REDACTED]'],
  ['export GITHUB_TOKEN="abc123"', 'abc123', 'export GITHUB_TOKEN=[REDACTED]'],
  ['JWT_SECRET = shhh', 'shhh', 'JWT_SECRET = [REDACTED]'],
  ['OPENAI_API_KEY=xyz789\nOTHER=1', 'xyz789', 'OPENAI_API_KEY=[REDACTED]\nOTHER=1'],
  ['SSH_PRIVATE_KEY=abc', '=abc', 'SSH_PRIVATE_KEY=[REDACTED]'],
  ['password=letmein', 'letmein', 'password=[REDACTED]'],
  ['https://x.test/cb?token=abc123&page=2', 'abc123', 'https://x.test/cb?token=[REDACTED]&page=2'],
  ['{"api_key": "zzz111", "name": "n"}', 'zzz111', '{"api_key": "[REDACTED]", "name": "n"}'],
  ['Cookie: session=abc; id=1', 'session=abc'],
];

for (const [input, secret, expected] of positives) {
  test(`redacts: ${input.slice(0, 50).replace(/\n/g, '\\n')}`, () => {
    const out = redactText(input);
    assert.ok(!out.includes(secret), out);
    assert.match(out, /\[REDACTED/);
    if (expected !== undefined) assert.equal(out, expected);
  });
}

test('every secret sample passes the quick pre-check, so no rule is skipped for it', () => {
  for (const [input] of positives) assert.ok(SECRET_HINT.test(input), input);
  // Each sample with its surroundings cut to the bare secret, as the rules match it.
  for (const bare of [stepToken, compactToken, jwt, pem, 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv', 'rk_test_abcdefghijklmnop1234', 'ghs_abcdefghijklmnopqrstuvwxyz0123456789',
    'xoxp-1234567890', 'Set-Cookie: a', 'proxy-authorization: x', 'x-api-key: k', '"token" : "v"', 'A=1', 'ftp://u:p@h']) {
    assert.ok(SECRET_HINT.test(bare), bare);
  }
});

test('ordinary prose skips the rules after the pre-check and comes back unchanged', () => {
  const plain = '# Workflow Step: s1\n\n**Agent Role**: implementer\n\n- NEVER commit secrets, API keys, or credentials';
  assert.ok(!SECRET_HINT.test(plain));
  assert.equal(redactText(plain), plain);
});

const negatives = [
  'The token bucket refills at 0.5 tokens per second.',
  'Key points: tokens, keys and passwords are discussed below.',
  'commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it',
  'execution a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d is running',
  'max_tokens=4096 and MAX_TOKENS=10',
  'A bearer of bad news.',
  'risk-assessment-for-the-whole-project-and-more',
  'see https://example.com/docs?page=2 and http://localhost:8080/x',
  'ask the user: what is the password policy?',
  '{"token_expires_at": "2026-01-01T00:00:00.000Z", "max_tokens": "5"}',
  'if (a == b) { x = null }',
  'base64 aGVsbG8gd29ybGQ= and design_doc artifacts',
];

for (const text of negatives) {
  test(`leaves alone: ${text.slice(0, 50)}`, () => {
    assert.equal(redactText(text), text);
  });
}

test('secret-named keys are redacted wholesale; others recursed', () => {
  const input = {
    step_token: 'anything at all',
    new_step_token: stepToken,
    token_expires_at: '2026-01-01T00:00:00.000Z',
    headers: { Authorization: 'Basic dXNlcjpwYXNz', Cookie: 'a=b', 'X-Api-Key': 'k1', accept: 'json' },
    config: { password: 'p', clientSecret: 's', apikey: 'k', api_key: 'k2', privateKey: 'pk', token: 't', max_tokens: 100 },
    nested: [{ summary: 'uses sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv', confidence: 0.9 }],
    flags: [true, null, 3],
  };
  assert.deepEqual(redactSecrets(input), {
    step_token: '[REDACTED]',
    new_step_token: '[REDACTED]',
    token_expires_at: '2026-01-01T00:00:00.000Z',
    headers: { Authorization: '[REDACTED]', Cookie: '[REDACTED]', 'X-Api-Key': '[REDACTED]', accept: 'json' },
    config: { password: '[REDACTED]', clientSecret: '[REDACTED]', apikey: '[REDACTED]', api_key: '[REDACTED]', privateKey: '[REDACTED]', token: '[REDACTED]', max_tokens: 100 },
    nested: [{ summary: 'uses [REDACTED:anthropic_key]', confidence: 0.9 }],
    flags: [true, null, 3],
  });
});

test('returns a deep copy and leaves the input untouched', () => {
  const input = { a: { password: 'p' }, list: ['ghp_abcdefghijklmnopqrstuvwxyz0123456789'] };
  const out = redactSecrets(input) as typeof input;
  assert.equal(input.a.password, 'p');
  assert.equal(input.list[0], 'ghp_abcdefghijklmnopqrstuvwxyz0123456789');
  assert.notEqual(out.a, input.a);
  assert.deepEqual(out, { a: { password: '[REDACTED]' }, list: ['[REDACTED:github_token]'] });
});

test('cycles become [Circular]; shared non-cyclic references are copied', () => {
  const shared = { v: 1 };
  const obj: Record<string, unknown> = { name: 'root', left: shared, right: shared };
  obj.self = obj;
  const arr: unknown[] = [1];
  arr.push(arr);
  assert.deepEqual(redactSecrets(obj), { name: 'root', left: { v: 1 }, right: { v: 1 }, self: '[Circular]' });
  assert.deepEqual(redactSecrets(arr), [1, '[Circular]']);
});

test('primitives pass through; strings are redacted', () => {
  assert.equal(redactSecrets(42), 42);
  assert.equal(redactSecrets(null), null);
  assert.equal(redactSecrets(undefined), undefined);
  assert.equal(redactSecrets('password=x'), 'password=[REDACTED]');
  assert.deepEqual(redactSecrets(new Error('bad sk-abcdefghijklmnopqrstuvwxyz012345')), { name: 'Error', message: 'bad [REDACTED:openai_key]' });
});

test('dropCutWord drops the word a cut text ends in (up to 256 characters of a token alphabet), as /[A-Za-z0-9_\\-+/=.]{1,256}$/ did', () => {
  const regex = (s: string) => s.replace(/[A-Za-z0-9_\-+/=.]{1,256}$/, '');
  const cases = ['', 'plain words', 'ends in a space ', 'key sk-abc123/+=.', 'x'.repeat(300), `a ${'y'.repeat(256)}`, `a ${'y'.repeat(257)}`, 'é tail', 'emoji 😀', 'line\nbreak_ok'];
  // And random texts over an alphabet of word and non-word characters (a fixed seed: the same texts every run).
  const alphabet = 'aZ09_-+/=. \n,:;é😀"{}';
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
  for (let i = 0; i < 500; i++) {
    const chars = Array.from({ length: rand(400) }, () => (rand(4) === 0 ? alphabet[rand(alphabet.length)] : 'abc'[rand(3)]));
    cases.push(chars.join(''));
  }
  for (const s of cases) assert.equal(dropCutWord(s), regex(s), JSON.stringify(s.slice(-40)));
  assert.equal(dropCutWord('the key is sk-live-abc'), 'the key is ');
  assert.equal(dropCutWord('ends with a dot.'), 'ends with a ');
});
