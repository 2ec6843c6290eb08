// Rule: the first gates of any minute get a notification each; the gates after them are counted, and one notification
// says how many when the minute has room again, so a flood of gates makes a few notifications a minute, not one each;
// gates that come slowly are each notified, however many in all.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { GATE_NOTE_TIMES, GateNotes } from '../../src/vscode/gateNotes.js';

function recorder() {
  const said: string[] = [];
  const notes = new GateNotes<string>((g) => said.push(g), (n) => said.push(`${n} more`));
  return { said, notes };
}

describe('gate notifications', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 }));
  afterEach(() => mock.timers.reset());

  it('a flood: three a minute, then one counting the rest when the minute has room', () => {
    assert.deepEqual(GATE_NOTE_TIMES, { perWindow: 3, windowMs: 60_000 });
    const { said, notes } = recorder();
    for (let i = 0; i < 100; i++) {
      notes.gate(`g${i}`);
      mock.timers.tick(100); // 10 gates a second
    }
    assert.deepEqual(said, ['g0', 'g1', 'g2'], 'ten seconds in');
    mock.timers.tick(50_000); // the first notification leaves the minute at 60 s
    assert.deepEqual(said, ['g0', 'g1', 'g2', '97 more']);
    // The flood goes on: the summary took a place in the window, g1 and g2 leave it at 60.1 and 60.2 s.
    notes.gate('h0');
    notes.gate('h1');
    assert.deepEqual(said.slice(4), [], 'held: the window holds g1, g2 and the summary');
    mock.timers.tick(100);
    assert.deepEqual(said.slice(4), ['2 more']);
    notes.dispose();
  });

  it('gates that come slowly are each notified, and nothing is held back', () => {
    const { said, notes } = recorder();
    for (let i = 0; i < 10; i++) {
      notes.gate(`g${i}`);
      mock.timers.tick(20_000);
    }
    assert.deepEqual(said, Array.from({ length: 10 }, (_, i) => `g${i}`));
    mock.timers.tick(120_000);
    assert.equal(said.length, 10, 'no summary of nothing');
    notes.dispose();
  });

  it('after a quiet minute a gate is notified at once again; dispose drops what was held', () => {
    const { said, notes } = recorder();
    for (const g of ['a', 'b', 'c', 'd']) notes.gate(g);
    mock.timers.tick(60_000);
    assert.deepEqual(said, ['a', 'b', 'c', '1 more']);
    mock.timers.tick(60_000);
    notes.gate('e');
    assert.deepEqual(said.at(-1), 'e');
    for (const g of ['f', 'g', 'h']) notes.gate(g);
    notes.dispose();
    mock.timers.tick(120_000);
    assert.deepEqual(said, ['a', 'b', 'c', '1 more', 'e', 'f', 'g']);
  });
});
