// Rule: an Accept header takes a media type when the most specific range covering it (the type, its wildcard, then
// */*) has no q=0 (RFC 9110 12.5.1); each header is read once per type and its answer kept, so that answer must be
// the one a fresh read gives: per type, for a header asked of both, and after more headers than are kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accepts } from '../../src/host/mcpHttpTransport.js';

test('accepts reads ranges, wildcards and weights', () => {
  assert.equal(accepts(undefined, 'application/json'), false);
  assert.equal(accepts('', 'application/json'), false);
  assert.equal(accepts('application/json, text/event-stream', 'application/json'), true);
  assert.equal(accepts('application/json, text/event-stream', 'text/event-stream'), true);
  assert.equal(accepts('text/*', 'text/event-stream'), true);
  assert.equal(accepts('text/*', 'application/json'), false);
  assert.equal(accepts('*/*;q=0.1', 'application/json'), true);
  // The most specific range decides: a wildcard does not take back a q=0 of the type itself, nor the reverse.
  assert.equal(accepts('application/json;q=0, */*', 'application/json'), false);
  assert.equal(accepts('application/json;q=0, */*', 'text/event-stream'), true);
  assert.equal(accepts('*/*;q=0, TEXT/Event-Stream', 'text/event-stream'), true);
  // A weight that is no number is not a refusal.
  assert.equal(accepts('application/json;q=x', 'application/json'), true);
});

test('a header asked again gives the answer a first read gave, for each type, past the number of headers kept', () => {
  const header = 'application/json;q=0, text/event-stream';
  for (let round = 0; round < 3; round++) {
    assert.equal(accepts(header, 'application/json'), false);
    assert.equal(accepts(header, 'text/event-stream'), true);
  }
  // More distinct headers than are kept for a type: each still gets its own answer, then the first ones again.
  const headers = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? `application/json;q=0.${i % 10}, text/x-${i}` : `text/x-${i}, application/json;q=0`));
  const first = headers.map((h) => accepts(h, 'application/json'));
  assert.deepEqual(first, headers.map((_, i) => i % 2 === 0 && i % 10 !== 0));
  assert.deepEqual(headers.map((h) => accepts(h, 'application/json')), first);
  assert.equal(accepts(header, 'application/json'), false);
  assert.equal(accepts(header, 'text/event-stream'), true);
});
