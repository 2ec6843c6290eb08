// Rule: a completion lists the candidates that start with what was typed before those that merely contain it,
// each once, regardless of case; nothing typed lists them all.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matching } from '../../src/mcp/completions.js';

describe('completion matching', () => {
  const ids = ['active', 'b7-fix', 'a1-Fix', 'fix-9', 'active'];

  it('puts prefix matches first, then substring matches, in the given order', () => {
    assert.deepEqual(matching(ids, 'fix'), ['fix-9', 'b7-fix', 'a1-Fix']);
  });

  it('ignores case and drops repeats', () => {
    assert.deepEqual(matching(ids, 'ACT'), ['active']);
  });

  it('lists every candidate once when nothing is typed, and none when nothing matches', () => {
    assert.deepEqual(matching(ids, ''), ['active', 'b7-fix', 'a1-Fix', 'fix-9']);
    assert.deepEqual(matching(ids, 'zz'), []);
  });
});
