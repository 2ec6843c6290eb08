// Rule: an SSE stream gets a keep-alive comment for each interval in which its connection carried nothing, none while
// it carries messages or while its client is not reading, and none once it is over; the timer never keeps the process
// alive and is cleared when the stream closes or is stopped.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { mock, test } from 'node:test';
import { KEEP_ALIVE_COMMENT, keepAliveTick, keepSseAlive } from '../../src/host/sseKeepAlive.js';

/** A stand-in for an SSE response: what is written adds to its socket's byte count, as on a real connection. */
class FakeStream extends EventEmitter {
  writableEnded = false;
  destroyed = false;
  writableNeedDrain = false;
  socket: { bytesWritten: number } | null = { bytesWritten: 100 };
  written: string[] = [];
  write(chunk: string): boolean {
    this.written.push(chunk);
    this.socket!.bytesWritten += chunk.length;
    return true;
  }
  /** A message the transport sends (not a comment). */
  send(): void {
    this.write('event: message\nid: s.0.1\ndata: {}\n\n');
  }
  get comments(): number {
    return this.written.filter((w) => w === KEEP_ALIVE_COMMENT).length;
  }
}

test('keepAliveTick: a comment only on a stream that carried nothing since the last look', () => {
  const cases: Array<[string, (s: FakeStream) => void, 'comment' | 'nothing' | 'over']> = [
    ['idle since the last look', () => undefined, 'comment'],
    ['a message went out since', (s) => s.send(), 'nothing'],
    ['idle, but its client is not reading', (s) => void (s.writableNeedDrain = true), 'nothing'],
    ['ended', (s) => void (s.writableEnded = true), 'over'],
    ['destroyed', (s) => void (s.destroyed = true), 'over'],
    ['its connection gone', (s) => void (s.socket = null), 'over'],
  ];
  for (const [name, change, expected] of cases) {
    const s = new FakeStream();
    const seen = s.socket!.bytesWritten;
    change(s);
    const before = s.written.length;
    const next = keepAliveTick(s, seen);
    const comments = s.written.slice(before).filter((w) => w === KEEP_ALIVE_COMMENT).length;
    if (expected === 'over') {
      assert.equal(next, null, name);
      assert.equal(comments, 0, name);
      continue;
    }
    assert.equal(comments, expected === 'comment' ? 1 : 0, name);
    assert.equal(next, s.socket!.bytesWritten, `${name}: the next look compares with what the socket took, comment included`);
  }
});

test('the comment is one SSE comment line and the blank line that ends it: no field, no id', () => {
  assert.match(KEEP_ALIVE_COMMENT, /^:[^\n]*\n\n$/);
});

test('keepSseAlive: a comment each idle interval, none while messages flow, none after close', () => {
  mock.timers.enable({ apis: ['setInterval'] });
  try {
    const s = new FakeStream();
    keepSseAlive(s as unknown as ServerResponse, 1000);
    mock.timers.tick(999);
    assert.equal(s.comments, 0, 'nothing before the interval');
    mock.timers.tick(1);
    assert.equal(s.comments, 1, 'idle for an interval');
    mock.timers.tick(3000);
    assert.equal(s.comments, 4, 'one for each idle interval');
    for (let i = 0; i < 10; i++) {
      s.send();
      mock.timers.tick(1000);
    }
    assert.equal(s.comments, 4, 'none while a message goes out every interval');
    mock.timers.tick(1000);
    assert.equal(s.comments, 5, 'idle for an interval again');
    s.emit('close');
    mock.timers.tick(10_000);
    assert.equal(s.comments, 5, 'none after the stream closed');
  } finally {
    mock.timers.reset();
  }
});

test('keepSseAlive: an ended stream stops its timer at the next look even before it closes', () => {
  mock.timers.enable({ apis: ['setInterval'] });
  try {
    const s = new FakeStream();
    keepSseAlive(s as unknown as ServerResponse, 1000);
    s.writableEnded = true;
    mock.timers.tick(10_000);
    assert.equal(s.comments, 0);
  } finally {
    mock.timers.reset();
  }
});

test('keepSseAlive: the timer is unref\'d, and cleared by close or by stop', () => {
  const set = mock.method(globalThis, 'setInterval');
  const clear = mock.method(globalThis, 'clearInterval');
  try {
    for (const end of ['close', 'stop'] as const) {
      set.mock.resetCalls();
      clear.mock.resetCalls();
      const s = new FakeStream();
      const stop = keepSseAlive(s as unknown as ServerResponse, 60_000);
      assert.equal(set.mock.callCount(), 1, 'one timer per stream');
      const timer = set.mock.calls[0]!.result as ReturnType<typeof setInterval>;
      assert.equal(timer.hasRef(), false, 'it does not keep the process alive');
      if (end === 'close') s.emit('close');
      else stop();
      assert.deepEqual(clear.mock.calls.map((c) => c.arguments[0]), [timer], `cleared by ${end}`);
      assert.equal(s.listenerCount('close'), 0, `no listener left on the stream after ${end}`);
    }
  } finally {
    set.mock.restore();
    clear.mock.restore();
  }
});
