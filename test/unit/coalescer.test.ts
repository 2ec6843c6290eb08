// Rule: a burst of refresh requests is served once when it ends, and a stream that never pauses (agents finishing steps
// every few ms) is still served every maxWaitMs, never held back until it stops, and less often when serving it costs
// more (at most a tenth of the time); cancel drops what is scheduled.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { Coalescer } from '../../src/vscode/coalescer.js';

test('a burst is served once, quietMs after its last call', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    let runs = 0;
    const c = new Coalescer(() => runs++, { quietMs: 100, maxWaitMs: 500 });
    for (let i = 0; i < 5; i++) {
      c.schedule();
      mock.timers.tick(20);
    }
    assert.equal(runs, 0);
    mock.timers.tick(100);
    assert.equal(runs, 1);
    mock.timers.tick(1000);
    assert.equal(runs, 1, 'nothing more without another call');
  } finally {
    mock.timers.reset();
  }
});

test('a stream of calls every 5 ms is served every maxWaitMs, not only when it stops', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const at: number[] = [];
    let now = 0;
    const c = new Coalescer(() => at.push(now), { quietMs: 100, maxWaitMs: 500 });
    for (; now < 2000; now += 5) {
      c.schedule();
      mock.timers.tick(5);
    }
    assert.deepEqual(at, [495, 995, 1495, 1995]);
    c.schedule();
    assert.equal(c.pending, true, 'a call after the last refresh waits');
    mock.timers.tick(100);
    assert.equal(at.length, 5, 'and is served once the stream stops');
  } finally {
    mock.timers.reset();
  }
});

test('cancel drops a scheduled call', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    let runs = 0;
    const c = new Coalescer(() => runs++, { quietMs: 100, maxWaitMs: 500 });
    c.schedule();
    c.cancel();
    mock.timers.tick(1000);
    assert.equal(runs, 0);
    assert.equal(c.pending, false);
  } finally {
    mock.timers.reset();
  }
});

test('an action that costs 200 ms runs at most every 2 s under a steady stream; a cheap one every maxWaitMs', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const at: number[] = [];
    let now = 0;
    const base = { quietMs: 100, maxWaitMs: 500 };
    const c = new Coalescer(() => at.push(now), base);
    c.costs(200, 10, base);
    assert.equal(c.maxWaitMs, 2000);
    for (; now < 4100; now += 5) {
      c.schedule();
      mock.timers.tick(5);
    }
    assert.deepEqual(at, [1995, 3995]);
    c.costs(3, 10, base);
    assert.equal(c.maxWaitMs, 500, 'never under the configured wait');
  } finally {
    mock.timers.reset();
  }
});
