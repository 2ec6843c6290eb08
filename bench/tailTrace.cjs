// Loaded into the servers that bench/tail.bench.ts measures (`baton mcp` and the durable floor, node --require): what
// each did around a call, as epoch ms (performance.timeOrigin + performance.now(), comparable with the bench
// process's): when a request was read off stdin ('data'), when its answer was written (stdout), each fdatasync (inline
// or on the thread pool) and each GC, with the event loop's busy time at every read and write, and Baton's trace points
// (src/shared/tracePoints.ts: where its transaction, journal flush and answer start). Written as JSON to
// $BATON_TAIL_TRACE when the process exits. It wraps stdin's emit, stdout's write and fs's fdatasync of this process
// only; it changes nothing they do.
'use strict';
const fs = require('node:fs');
const { PerformanceObserver, performance } = require('node:perf_hooks');

const out = process.env.BATON_TAIL_TRACE;
if (out) {
  /** [kind, epoch ms, duration ms, event-loop busy ms so far] */
  const events = [];
  const now = () => performance.timeOrigin + performance.now();
  const busy = () => performance.eventLoopUtilization().active;

  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) events.push(['gc', performance.timeOrigin + e.startTime, e.duration, 0]);
  }).observe({ entryTypes: ['gc'] });

  const syncInline = fs.fdatasyncSync;
  fs.fdatasyncSync = function fdatasyncSync(...args) {
    const t = now();
    try {
      return syncInline.apply(this, args);
    } finally {
      events.push(['sync', t, now() - t, 0]);
    }
  };
  const syncPooled = fs.fdatasync;
  fs.fdatasync = function fdatasync(fd, callback) {
    const t = now();
    return syncPooled.call(this, fd, (err) => {
      events.push(['sync', t, now() - t, 0]);
      callback(err);
    });
  };

  // A server written as an ES module imports fdatasyncSync by name: its binding follows the patch only once synced.
  require('node:module').syncBuiltinESMExports();

  const stdin = process.stdin;
  const emit = stdin.emit;
  stdin.emit = function (name, ...args) {
    if (name === 'data') events.push(['read', now(), 0, busy()]);
    return emit.call(this, name, ...args);
  };
  const write = process.stdout.write;
  process.stdout.write = function (...args) {
    events.push(['write', now(), 0, busy()]);
    return write.apply(this, args);
  };

  // Baton's own points on a call's path (src/shared/tracePoints.ts), which it reads from this symbol as it loads.
  globalThis[Symbol.for('baton.tracePoint')] = (name) => events.push([name, now(), 0, 0]);

  process.on('exit', () => fs.writeFileSync(out, JSON.stringify(events)));
}
