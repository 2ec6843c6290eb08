// Rule: a session keeps its latest SSE events within a fixed count AND a fixed number of bytes, dropping the oldest
// first, never more; an event id names its session, its stream and a seq unique across the session's streams; a
// Last-Event-ID it did not hand out (garbage, another session's, a stream or seq it never reached) places no cursor,
// and a cursor gets only its own stream's later events, all those kept when it is older than every kept one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { GET_STREAM, REPLAY_MAX_BYTES, REPLAY_MAX_EVENTS, SseReplay } from '../../src/host/sseReplay.js';

const note = (n: number, pad = ''): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `${n}${pad}` } });
/** The `data` numbers of SSE events made by `note`. */
const numbers = (events: string[]) => events.map((e) => Number(/"data":"(\d+)/.exec(e)![1]));
const idOf = (event: string) => /^id: (\S+)$/m.exec(event)![1]!;

describe('SseReplay', () => {
  it('numbers events <session>.<stream>.<seq>, seq unique across streams, and reads back only ids it handed out', () => {
    const r = new SseReplay('s-1');
    const post = r.newStream();
    const a = r.event(GET_STREAM, note(1));
    const b = r.event(post, note(2));
    const p = r.priming(GET_STREAM);
    assert.equal(a, `event: message\nid: s-1.0.1\ndata: ${JSON.stringify(note(1))}\n\n`);
    assert.equal(idOf(b), 's-1.1.2');
    assert.equal(p, 'id: s-1.0.3\ndata: \n\n');
    assert.deepEqual(r.cursor('s-1.0.1'), { stream: 0, seq: 1 });
    assert.deepEqual(r.cursor('s-1.1.2'), { stream: 1, seq: 2 });
    for (const bad of [undefined, '', 'garbage', 's-2.0.1', 's-1.0.4', 's-1.2.1', 's-1.0', 's-1.0.1.1', 's-1.0.-1', 's-1.0.1e3', 's-1.x.1', 's-1.0.99999999999999999', ['s-1.0.1']]) {
      assert.equal(r.cursor(bad), undefined, String(bad));
    }
  });

  it("replays only the cursor's own stream, after it, in order", () => {
    const r = new SseReplay('s');
    const post = r.newStream();
    for (let i = 1; i <= 6; i++) r.event(i % 2 ? GET_STREAM : post, note(i));
    assert.deepEqual(numbers(r.after({ stream: GET_STREAM, seq: 1 })), [3, 5]);
    assert.deepEqual(numbers(r.after({ stream: post, seq: 0 })), [2, 4, 6]);
    assert.deepEqual(r.after({ stream: post, seq: 6 }), []);
  });

  it(`keeps at most ${REPLAY_MAX_EVENTS} events, the oldest dropped first; an older cursor gets all those kept`, () => {
    const r = new SseReplay('s');
    for (let i = 1; i <= REPLAY_MAX_EVENTS + 250; i++) r.event(GET_STREAM, note(i));
    assert.equal(r.size.events, REPLAY_MAX_EVENTS);
    const kept = numbers(r.after({ stream: GET_STREAM, seq: 0 }));
    assert.deepEqual([kept.length, kept[0], kept.at(-1)], [REPLAY_MAX_EVENTS, 251, REPLAY_MAX_EVENTS + 250]);
    assert.deepEqual(numbers(r.after({ stream: GET_STREAM, seq: REPLAY_MAX_EVENTS + 248 })), [REPLAY_MAX_EVENTS + 249, REPLAY_MAX_EVENTS + 250]);
  });

  it(`keeps at most ${REPLAY_MAX_BYTES} bytes whatever the count, and no event larger than that`, () => {
    const r = new SseReplay('s');
    const pad = 'x'.repeat(100 * 1024);
    for (let i = 1; i <= 100; i++) r.event(GET_STREAM, note(i, pad));
    const { events, bytes } = r.size;
    assert.ok(bytes <= REPLAY_MAX_BYTES, `${bytes} bytes kept`);
    assert.ok(bytes > REPLAY_MAX_BYTES - 101 * 1024, `${bytes} bytes kept: only as many dropped as needed`);
    assert.deepEqual(numbers(r.after({ stream: GET_STREAM, seq: 0 })), Array.from({ length: events }, (_, i) => 101 - events + i));
    r.event(GET_STREAM, note(101, 'x'.repeat(REPLAY_MAX_BYTES)));
    assert.deepEqual(r.size, { events: 0, bytes: 0 });
  });

  it('counts bytes, not characters (a multi-byte text weighs what it is sent as)', () => {
    const r = new SseReplay('s', 10, 4000);
    r.event(GET_STREAM, note(1, '\u00e9'.repeat(1000)));
    assert.ok(r.size.bytes > 2000, String(r.size.bytes));
    r.event(GET_STREAM, note(2, '\u00e9'.repeat(1000)));
    assert.deepEqual(numbers(r.after({ stream: GET_STREAM, seq: 0 })), [2]);
  });
});
