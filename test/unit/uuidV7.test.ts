// Rule: the ids of the rows written on every call are RFC 9562 version-7 UUIDs: well-formed, unique, and ordered by
// the millisecond they were made in, so the unique indexes on them grow at their right edge; the ids people see and
// shorten (executions, tasks) stay random version-4 UUIDs, whose first characters tell them apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomIds, uuidV7 } from '../../src/host/nodePorts.js';

const FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('a uuid is version 7 with the RFC variant, its first 48 bits the time in milliseconds', () => {
  const at = 0x0123_4567_89ab;
  const id = uuidV7(at);
  assert.match(id, FORM);
  assert.equal(id.slice(0, 13), '01234567-89ab');
  assert.equal(parseInt(id.replace(/-/g, '').slice(0, 12), 16), at);
  const now = Date.now();
  const made = randomIds.orderedUuid();
  assert.match(made, FORM);
  assert.ok(Math.abs(parseInt(made.replace(/-/g, '').slice(0, 12), 16) - now) < 60_000, made);
});

test('ids made in a later millisecond sort after earlier ones, as text', () => {
  const ids = [0, 1, 255, 256, 65_535, 65_536, 2 ** 32 - 1, 2 ** 32, Date.now(), 2 ** 48 - 1].map((ms) => uuidV7(ms));
  assert.deepEqual([...ids].sort(), ids);
});

test('ids are unique, their random bits drawn afresh each time (across pool refills)', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 5_000; i++) seen.add(uuidV7(1_700_000_000_000));
  assert.equal(seen.size, 5_000);
  const tails = new Set([...seen].map((id) => id.slice(14)));
  assert.equal(tails.size, 5_000, 'the 74 random bits differ within one millisecond');
});

test('the ids people see stay random (version 4): two made at once differ in their first eight characters', () => {
  const [a, b] = [randomIds.uuid(), randomIds.uuid()];
  assert.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.notEqual(a.slice(0, 8), b.slice(0, 8));
});
