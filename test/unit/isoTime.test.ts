// Rule: isoTime writes exactly what Date.prototype.toISOString writes, for every time a Date holds (fractions,
// times before 1970, extended years, the minute's edges), and throws the same RangeError for any other.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoTime } from '../../src/core/isoTime.js';

const expected = (ms: number) => new Date(ms).toISOString();

test('isoTime matches toISOString at the edges: fractions, before 1970, extended years, the limits', () => {
  const edges = [0, -0, 1, -1, 0.5, -0.5, 1.999, -1.999, 59_999, 60_000, 60_001, -60_000, -60_001, 999.9999,
    -62_198_755_200_000, 253_402_300_799_999, 253_402_300_800_000, 8.64e15, -8.64e15, 8.64e15 - 0.5];
  for (const ms of edges) assert.equal(isoTime(ms), expected(ms), String(ms));
  // The same minute again, each edge right after its minute was formatted.
  for (const ms of edges) {
    isoTime(Math.floor(ms / 60_000) * 60_000);
    assert.equal(isoTime(ms), expected(ms), `${ms} after its minute`);
  }
});

test('isoTime matches toISOString over random times, in order and out of order', () => {
  let seed = 42;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed / 2 ** 31);
  let now = Date.UTC(2026, 10, 28, 23, 59, 58);
  for (let i = 0; i < 20_000; i++) {
    now += rand() * 400; // calls a few hundred microseconds to milliseconds apart, across minutes and a new year
    assert.equal(isoTime(now), expected(now), String(now));
    // A token's expiry, half an hour on, comes between a call's own times.
    assert.equal(isoTime(now + 1_800_000), expected(now + 1_800_000), String(now + 1_800_000));
    const any = (rand() - 0.3) * 4e13;
    assert.equal(isoTime(any), expected(any), String(any));
  }
});

test('isoTime throws the RangeError toISOString throws for a time a Date cannot hold, even in a cached minute', () => {
  for (const ms of [Number.NaN, Infinity, -Infinity, 8.64e15 + 1, -8.64e15 - 1]) {
    isoTime(8.64e15); // the last valid minute is the cached one
    assert.throws(() => isoTime(ms), RangeError, String(ms));
    assert.throws(() => expected(ms), RangeError);
  }
});
