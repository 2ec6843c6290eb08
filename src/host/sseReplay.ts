// The SSE events of one Streamable HTTP session, kept (bounded) so that a client whose stream dropped can resume it
// with Last-Event-ID, as the MCP transport specification's "Resumability and Redelivery" describes. An event id is
// `<session id>.<stream>.<seq>`: the session tells one session's ids from another's, the stream (0 for the session's
// GET stream, 1, 2, ... for each POST answered over SSE) which stream it belongs to, and seq, counted across the
// session's streams, makes it unique and is the cursor within its stream.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The most events a session keeps for replay (with REPLAY_MAX_BYTES, whichever is reached first). */
export const REPLAY_MAX_EVENTS = 1000;
/**
 * The most bytes of event data a session keeps for replay (with REPLAY_MAX_EVENTS, whichever is reached first). An
 * owner keeps up to 100 idle sessions: 1 MiB each bounds them all at 100 MiB, where usual events (a resources/updated,
 * a progress note: about 200 bytes) fill a session's 1,000 with about 200 KB.
 */
export const REPLAY_MAX_BYTES = 1024 * 1024;
/** The stream number of the session's GET stream; each POST answered over SSE gets one of its own from 1 on. */
export const GET_STREAM = 0;

/** Where a Last-Event-ID stands: the stream it belongs to and the last seq its client received there. */
export interface Cursor {
  stream: number;
  seq: number;
}

interface Kept {
  stream: number;
  seq: number;
  text: string;
  bytes: number;
}

/** The events of one session's streams, the oldest dropped first past either bound. */
export class SseReplay {
  /** Kept events, oldest first, from `head` on (the slots before it were dropped). */
  private kept: Kept[] = [];
  private head = 0;
  private bytes = 0;
  private streams = 0;
  /** The seq of the newest event (or priming event) of any stream. */
  last = 0;
  private readonly prefix: string;

  constructor(sessionId: string, private readonly maxEvents = REPLAY_MAX_EVENTS, private readonly maxBytes = REPLAY_MAX_BYTES) {
    this.prefix = `${sessionId}.`;
  }

  /** A new stream number for a POST answered over SSE. */
  newStream(): number {
    return ++this.streams;
  }

  /** Numbers a message of `stream`, keeps it for replay and returns its SSE event. */
  event(stream: number, message: JSONRPCMessage): string {
    const seq = ++this.last;
    const text = `event: message\nid: ${this.prefix}${stream}.${seq}\ndata: ${JSON.stringify(message)}\n\n`;
    this.keep({ stream, seq, text, bytes: Buffer.byteLength(text) });
    return text;
  }

  /**
   * A priming event (the 2025-11-25 transport specification's): an id with no data, so that the client holds a
   * cursor of the stream before any message comes on it. Nothing is kept: there is nothing in it to replay.
   */
  priming(stream: number): string {
    return `id: ${this.prefix}${stream}.${++this.last}\ndata: \n\n`;
  }

  /**
   * The cursor a Last-Event-ID header names, or undefined for one this session did not hand out: none, garbage,
   * another session's, or a stream or seq it has not reached.
   */
  cursor(header: string | string[] | undefined): Cursor | undefined {
    if (typeof header !== 'string' || !header.startsWith(this.prefix)) return undefined;
    const m = /^(\d{1,15})\.(\d{1,15})$/.exec(header.slice(this.prefix.length));
    if (!m) return undefined;
    const stream = Number(m[1]);
    const seq = Number(m[2]);
    return stream <= this.streams && seq <= this.last ? { stream, seq } : undefined;
  }

  /**
   * The kept events of the cursor's stream after it, in order. A cursor older than the oldest kept event (the
   * client missed more than the bounds keep) gets every event still kept: each is newer than what it received.
   */
  after(cursor: Cursor): string[] {
    const out: string[] = [];
    for (let i = this.head; i < this.kept.length; i++) {
      const e = this.kept[i]!;
      if (e.stream === cursor.stream && e.seq > cursor.seq) out.push(e.text);
    }
    return out;
  }

  /** How many events and bytes are kept (for tests and diagnostics). */
  get size(): { events: number; bytes: number } {
    return { events: this.kept.length - this.head, bytes: this.bytes };
  }

  private keep(e: Kept): void {
    this.kept.push(e);
    this.bytes += e.bytes;
    while (this.kept.length - this.head > this.maxEvents || this.bytes > this.maxBytes) {
      const old = this.kept[this.head]!;
      this.kept[this.head++] = undefined as unknown as Kept;
      this.bytes -= old.bytes;
    }
    // Drop the slots already let go once they are most of the array, so it stays within twice the bounds.
    if (this.head > 64 && this.head * 2 > this.kept.length) {
      this.kept = this.kept.slice(this.head);
      this.head = 0;
    }
  }
}
