// Rule: each redaction policy removes what it covers — pii: e-mail addresses, phone numbers, IP addresses; secrets:
// API keys, AWS keys, JWTs, private keys, URL passwords, .env secrets — leaves the rest, and leaves ordinary text alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REDACT_POLICIES, redactText, redactWithPolicy } from '../../src/core/safety/redact.js';

const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';

// [input, what must disappear, kind]
const PII: Array<[string, string, string]> = [
  ['mail jane.doe@example.com now', 'jane.doe@example.com', 'email'],
  ['ops+alerts@mail.example.co.uk', 'ops+alerts@mail.example.co.uk', 'email'],
  ['call +1 (555) 123-4567', '123-4567', 'phone'],
  ['call 555-123-4567.', '555-123-4567', 'phone'],
  ['ring +44 20 7946 0958', '7946 0958', 'phone'],
  ['fax 555.123.4567', '555.123.4567', 'phone'],
  ['host 192.168.1.20:8080', '192.168.1.20', 'ip'],
  ['from 8.8.8.8', '8.8.8.8', 'ip'],
  ['v6 2001:0db8:85a3:0000:0000:8a2e:0370:7334', '2001:0db8', 'ip'],
  ['link fe80::1ff:fe23:4567:890a', 'fe80::1ff', 'ip'],
];

const SECRETS: Array<[string, string, string]> = [
  ['key sk-proj-AbCdEfGhIjKlMnOpQrStUvWx123', 'AbCdEfGhIjKlMnOpQrStUvWx123', 'openai_key'],
  ['sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv-_xyz', 'AbCdEfGhIjKlMnOpQrStUv', 'anthropic_key'],
  ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'ghp_abcdefghijkl', 'github_token'],
  ['AIzaSyA-abcdefghijklmnopqrstuvwxyz01234', 'AIzaSyA', 'google_api_key'],
  ['sk_live_abcdefghijklmnop1234', 'sk_live_abc', 'stripe_key'],
  ['xoxb-123456789012-abcdefghijkl', 'xoxb-1234', 'slack_token'],
  ['id AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE', 'aws_access_key_id'],
  ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtnFEMI', 'aws_secret'],
  [`jwt ${jwt}`, 'dozjgNryP4J3', 'jwt'],
  ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----', 'b3BlbnNzaC1rZXk', 'private_key'],
  ['postgres://admin:hunter2@db.local:5432/app', 'hunter2', ''],
  ['DATABASE_PASSWORD=s3cret', 's3cret', ''],
  ['STRIPE_API_KEY="abc123"', 'abc123', ''],
];

const ORDINARY = [
  'Release 1.2.3 ships on 2026-01-01 at 10:30:45.',
  'Between 100-200 items; version 10.2 of the API.',
  'Use std::vector and Foo::bar in C++.',
  'The token bucket refills at 0.5 tokens per second; max_tokens=4096.',
  'execution a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d is running',
  'commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it',
  'see @mention and user@localhost',
];

describe('redaction policies', () => {
  it('knows none, pii, secrets and pii+secrets', () => assert.deepEqual([...REDACT_POLICIES], ['none', 'pii', 'secrets', 'pii+secrets']));

  for (const [input, gone, kind] of PII) {
    it(`pii removes ${kind}: ${input.slice(0, 40)}`, () => {
      const out = redactText(input, 'pii');
      assert.ok(!out.includes(gone), out);
      assert.ok(out.includes(`[REDACTED:${kind}]`), out);
      assert.equal(redactText(input, 'secrets'), input, 'secrets leaves personal data');
      assert.ok(!redactText(input, 'pii+secrets').includes(gone));
      assert.equal(redactText(input, 'none'), input);
    });
  }

  for (const [input, gone, kind] of SECRETS) {
    it(`secrets removes ${kind || 'a password'}: ${input.slice(0, 40).replace(/\n/g, ' ')}`, () => {
      const out = redactText(input, 'secrets');
      assert.ok(!out.includes(gone), out);
      if (kind) assert.ok(out.includes(`[REDACTED:${kind}]`), out);
      assert.ok(!redactText(input, 'pii+secrets').includes(gone));
      assert.ok(redactText(input, 'pii').includes(gone), 'pii leaves secrets');
      assert.equal(redactText(input, 'none'), input);
    });
  }

  for (const text of ORDINARY) {
    it(`leaves ordinary text alone under pii+secrets: ${text.slice(0, 40)}`, () => assert.equal(redactText(text, 'pii+secrets'), text));
  }

  it('redacts deep values by policy, secret-named keys only when secrets are covered', () => {
    const value = { owner: 'jane@example.com', password: 'plain', nested: [{ ip: '10.0.0.1' }] };
    assert.deepEqual(redactWithPolicy(value, 'none'), value);
    assert.deepEqual(redactWithPolicy(value, 'pii'), { owner: '[REDACTED:email]', password: 'plain', nested: [{ ip: '[REDACTED:ip]' }] });
    assert.deepEqual(redactWithPolicy(value, 'secrets'), { owner: 'jane@example.com', password: '[REDACTED]', nested: [{ ip: '10.0.0.1' }] });
    assert.deepEqual(redactWithPolicy(value, 'pii+secrets'), { owner: '[REDACTED:email]', password: '[REDACTED]', nested: [{ ip: '[REDACTED:ip]' }] });
  });

  it('keeps redactText(text) meaning secrets only, as the call log uses it', () => {
    assert.equal(redactText('DB_PASSWORD=x mail a@b.io'), 'DB_PASSWORD=[REDACTED] mail a@b.io');
  });
});
