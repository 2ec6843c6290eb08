// Rule: a page of get_execution_details takes the newest `limit` items past `offset`, in the order stored, as many as
// fit the budget as a JSON array to the byte (one at least, so that paging moves on), and says where the rest is;
// table of edges: the first page, the last, a short one, one past the end, a budget met exactly or missed by a byte.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import { DETAILS_LIST_LIMIT, fitting, newestPage, pageAsks } from '../../src/core/lifecycle/detailsPages.js';

const items = Array.from({ length: 10 }, (_, i) => `item-${i}`); // each "item-N" is 8 bytes of JSON

test('newestPage: the newest limit past offset, oldest first, with the total and the offset of the older ones', () => {
  const huge = 1 << 20;
  const cases: Array<[limit: number, offset: number, want: string[], nextOffset: number | undefined]> = [
    [3, 0, ['item-7', 'item-8', 'item-9'], 3],
    [3, 3, ['item-4', 'item-5', 'item-6'], 6],
    [3, 9, ['item-0'], undefined],
    [4, 8, ['item-0', 'item-1'], undefined],
    [20, 0, items, undefined],
    [3, 10, [], undefined],
    [3, 99, [], undefined],
  ];
  for (const [limit, offset, want, nextOffset] of cases) {
    const { items: got, page } = newestPage(items, { limit, offset }, huge);
    assert.deepEqual(got, want, `limit ${limit} offset ${offset}`);
    assert.deepEqual(page, { total: 10, limit, offset, ...(nextOffset === undefined ? {} : { nextOffset }) }, `limit ${limit} offset ${offset}`);
  }
});

test('fitting: a JSON array of the items within the budget to the byte, one item at least, and its bytes', () => {
  const size = (s: string) => JSON.stringify(s).length;
  for (const n of [1, 2, 5, 10]) {
    const exact = JSON.stringify(items.slice(0, n)).length;
    assert.deepEqual(fitting(items, exact, size), { count: n, bytes: exact }, `${n} items in exactly their ${exact} bytes`);
    assert.equal(fitting(items, exact - 1, size).count, Math.max(1, n - 1), `a byte short of ${n}`);
  }
  assert.equal(fitting(items, 0, size).count, 1, 'one at least');
  assert.equal(fitting([], 100, size).count, 0);
});

test('pageAsks: defaults, and a refusal naming the fix for a page of a list left out or a number out of range', () => {
  const all = { steps: true, logs: true, artifacts: true, findings: true };
  assert.deepEqual(pageAsks({ executionId: 'e', logsLimit: 7, findingsOffset: 3 }, all), {
    steps: { limit: DETAILS_LIST_LIMIT, offset: 0 }, logs: { limit: 7, offset: 0 },
    artifacts: { limit: DETAILS_LIST_LIMIT, offset: 0 }, findings: { limit: DETAILS_LIST_LIMIT, offset: 3 },
  });
  const refusals: Array<[Record<string, number>, RegExp]> = [
    [{ logsLimit: 0 }, /^logsLimit must be a whole number from 1 to 500 \(got 0\)\.$/],
    [{ stepsLimit: 501 }, /^stepsLimit must be a whole number from 1 to 500 \(got 501\)\.$/],
    [{ artifactsOffset: -2 }, /^artifactsOffset must be a whole number, 0 or more \(got -2\)\.$/],
    [{ findingsOffset: 0.5 }, /^findingsOffset must be a whole number, 0 or more \(got 0\.5\)\.$/],
    [{ findingsLimit: Number.NaN }, /^findingsLimit must be a whole number from 1 to 500 \(got NaN\)\.$/],
  ];
  const refused = (message: RegExp) => (ex: unknown) => BatonError.is(ex, 'invalid_input') && message.test(ex.message);
  for (const [page, message] of refusals) assert.throws(() => pageAsks({ executionId: 'e', ...page }, all), refused(message), JSON.stringify(page));
  assert.throws(() => pageAsks({ executionId: 'e', logsOffset: 1 }, { ...all, logs: false }),
    refused(/^logsOffset pages the logs, which this call leaves out; add includeLogs: true, or drop logsOffset\.$/));
});
