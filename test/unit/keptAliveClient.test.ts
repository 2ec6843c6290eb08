// Rule: the forwarder's HTTP/1.1 client reads every answer an HTTP/1.1 server may give as node:http would, however the
// bytes are split: a body by content-length, chunked (extensions and trailers too) or up to the connection's end, none
// for 204; an interim 1xx skipped. It reuses a socket only after an answer read whole that did not ask to close, and
// leaves one the server closed, and one idle past the server's Keep-Alive hint less 1 s, which it closes; a connection
// that drops fails the request (ECONNREFUSED, ECONNRESET) or the answer's body ('error', not `complete`); a malformed
// answer or a header with CR/LF fails without a guess; destroy() ends it all.
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { test } from 'node:test';
import { idleLimitMs, KeptAliveClient, type KeptAliveAnswer } from '../../src/host/keptAliveClient.js';
import { bodyText } from '../../src/host/requestWithin.js';

/** A TCP server on a free port: `onRequest` gets each request's raw head and body and the socket to answer on. */
async function rawServer(onRequest: (socket: Socket, request: string) => void) {
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    let buffered = '';
    socket.on('data', (d: Buffer) => {
      buffered += d.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const request = buffered.slice(0, end + 4 + length);
        buffered = buffered.slice(end + 4 + length);
        onRequest(socket, request);
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp?x=1`);
  return {
    url, sockets,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

/** Runs `fn` with a raw server answering by `onRequest` and a client of it; both closed after, however `fn` ends. */
async function withServer(
  onRequest: (socket: Socket, request: string) => void,
  fn: (server: Awaited<ReturnType<typeof rawServer>>, client: KeptAliveClient) => Promise<void>,
): Promise<void> {
  const server = await rawServer(onRequest);
  const client = new KeptAliveClient(server.url);
  try {
    await fn(server, client);
  } finally {
    client.destroy(new Error('done'));
    await server.close();
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const body = (res: KeptAliveAnswer) => bodyText(res, (cause) => cause);

const ANSWERS: Array<[string, string, string]> = [
  ['content-length', 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"a":"é1"}', '{"a":"é1"}'],
  ['chunked, an extension and a trailer', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\n{"a"\r\nA\r\n:"bcdefg"}\r\n0\r\nX-Trailer: 1\r\n\r\n', '{"a":"bcdefg"}'],
  ['an interim 100 first', 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok', 'ok'],
  ['204, no body', 'HTTP/1.1 204 No Content\r\nmcp-session-id: s1\r\n\r\n', ''],
];

test('each kind of answer is read whole, split at every byte, and the socket is reused after it', async () => {
  for (const [what, wire, expected] of ANSWERS) {
    const bytes = Buffer.from(wire, 'utf8');
    let split = 0;
    const server = await rawServer((socket) => {
      const at = split;
      socket.write(bytes.subarray(0, at));
      setTimeout(() => socket.write(bytes.subarray(at)), 2);
    });
    const client = new KeptAliveClient(server.url);
    try {
      for (split = 1; split < bytes.length; split++) {
        const res = await client.request('POST', { 'content-type': 'application/json' }, '{}');
        assert.equal(await body(res), expected, `${what}, split at ${split}`);
        assert.equal(res.complete, true);
      }
      assert.equal(server.sockets.length, 1, `${what}: one socket for all ${bytes.length - 1} requests`);
    } finally {
      client.destroy(new Error('done'));
      await server.close();
    }
  }
});

test('the request: method, path and query, host, headers, the body with its length, keep-alive', async () => {
  const requests: string[] = [];
  await withServer((socket, request) => {
    requests.push(request);
    socket.write('HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n');
  }, async (server, client) => {
  const res = await client.request('POST', { authorization: 'Bearer t', 'mcp-session-id': 'abc' }, '{"é":1}');
  assert.equal(res.statusCode, 202);
  assert.equal(res.statusMessage, 'Accepted');
  assert.equal(await body(res), '');
  assert.equal(requests[0], `POST /mcp?x=1 HTTP/1.1\r\nhost: ${server.url.host}\r\nauthorization: Bearer t\r\nmcp-session-id: abc\r\ncontent-length: 8\r\nconnection: keep-alive\r\n\r\n{"é":1}`.replace('é', '\u00c3\u00a9'));
  await client.request('GET', { accept: 'text/event-stream' }).then(body);
  assert.match(requests[1]!, /^GET \/mcp\?x=1 HTTP\/1\.1\r\n[^]*accept: text\/event-stream\r\n/);
  assert.doesNotMatch(requests[1]!, /content-length/);
  });
});

test('headers are lower-cased and repeated ones joined; an answer to be closed, or one read to the end, frees no socket', async () => {
  let n = 0;
  await withServer((socket) => {
    n++;
    if (n === 1) socket.write('HTTP/1.1 200 OK\r\nX-A: 1\r\nx-a: 2\r\nConnection: close\r\ncontent-length: 1\r\n\r\n1');
    else if (n === 2) socket.end('HTTP/1.1 200 OK\r\n\r\nto the end, however long');
    else socket.write('HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\n3');
  }, async (server, client) => {
  const first = await client.request('GET', {});
  assert.deepEqual([first.headers['x-a'], await body(first)], ['1, 2', '1']);
  const second = await client.request('GET', {});
  assert.equal(await body(second), 'to the end, however long');
  assert.equal(second.complete, true);
  assert.equal(await body(await client.request('GET', {})), '3');
  assert.equal(server.sockets.length, 3);
  });
});

test('a kept socket the server closes leaves the pool: the next request opens another', async () => {
  await withServer((socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'), async (server, client) => {
  assert.equal(await body(await client.request('GET', {})), 'ok');
  server.sockets[0]!.end();
  await pause(50);
  assert.equal(await body(await client.request('GET', {})), 'ok');
  assert.equal(server.sockets.length, 2);
  });
});

test("the server's Keep-Alive hint, as node:http's Agent reads it: N s less one, none within that margin, no limit without", () => {
  assert.equal(idleLimitMs(undefined), Infinity);
  assert.equal(idleLimitMs('timeout=5'), 4000);
  assert.equal(idleLimitMs('timeout=240, max=1000'), 239_000);
  assert.equal(idleLimitMs('max=10,timeout=3'), 2000);
  assert.equal(idleLimitMs('Timeout = 2'), 1000);
  assert.equal(idleLimitMs('timeout=1'), 0);
  assert.equal(idleLimitMs('timeout=0'), 0);
  assert.equal(idleLimitMs('max=5'), Infinity);
  assert.equal(idleLimitMs('mytimeout=5'), Infinity);
  assert.equal(idleLimitMs('timeout=soon'), Infinity);
});

test('a socket is kept idle only as long as the hint allows: closed by the client after it, and never reused late', async () => {
  let hint = 'timeout=2';
  await withServer((socket) => socket.write(`HTTP/1.1 200 OK\r\nkeep-alive: ${hint}\r\ncontent-length: 2\r\n\r\nok`), async (server, client) => {
    const call = async () => assert.equal(await body(await client.request('GET', {})), 'ok');
    await call();
    await call();
    assert.equal(server.sockets.length, 1, 'reused within the hint');
    await pause(500);
    assert.equal(server.sockets[0]!.destroyed, false, 'kept while within the hint');
    await pause(900);
    // The server closes no socket itself here: the client did, about 1 s after the answer.
    assert.equal(server.sockets[0]!.destroyed, true, 'closed by the client once idle past the hint less 1 s');
    await call();
    assert.equal(server.sockets.length, 2);
    // An event loop busy past the limit runs the closing timer late: the socket is still not reused.
    const until = performance.now() + 1100;
    while (performance.now() < until) { /* busy */ }
    await call();
    assert.equal(server.sockets.length, 3, 'a socket idle past its limit is not reused, however late its timer');
    // A hint of 1 s leaves no margin: no socket is kept (the first call below goes on the one kept after the last).
    hint = 'timeout=1';
    await call();
    await call();
    await call();
    assert.equal(server.sockets.length, 5);
  });
});

test('without a hint, an idle socket is kept until the server closes it', async () => {
  await withServer((socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'), async (server, client) => {
    assert.equal(await body(await client.request('GET', {})), 'ok');
    await pause(1200);
    assert.equal(await body(await client.request('GET', {})), 'ok');
    assert.equal(server.sockets.length, 1);
  });
});

test('a socket in use holds the process up; one kept for the next request does not, as node:http\'s free sockets', async () => {
  const holding = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
  const slow = (socket: Socket) => {
    socket.unref(); // the server's side is not what is counted
    socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n');
    setTimeout(() => socket.write('ok'), 50);
  };
  await pause(50); // the sockets of the tests before are closed by now
  await withServer(slow, async (server, client) => {
    const before = holding();
    for (let i = 0; i < 2; i++) {
      const res = await client.request('GET', {});
      assert.equal(holding(), before + 1, 'the socket in use');
      assert.equal(await body(res), 'ok');
      assert.equal(holding(), before, 'the socket kept');
    }
    assert.equal(server.sockets.length, 1);
  });
});

test('concurrent requests go on sockets of their own, each answered', async () => {
  await withServer((socket, request) => {
    const id = /x-id: (\d+)/.exec(request)![1]!;
    setTimeout(() => socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${id.length}\r\n\r\n${id}`), 30 - Number(id) * 5);
  }, async (server, client) => {
  const answers = await Promise.all([1, 2, 3].map(async (i) => body(await client.request('GET', { 'x-id': String(i) }))));
  assert.deepEqual(answers, ['1', '2', '3']);
  assert.equal(server.sockets.length, 3);
  });
});

test('a connection that drops fails the request before the head (ECONNRESET) and the body after it', async () => {
  let n = 0;
  await withServer((socket) => {
    n++;
    if (n === 1) socket.destroy();
    else {
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhel');
      setTimeout(() => socket.destroy(), 20);
    }
  }, async (server, client) => {
  await assert.rejects(client.request('POST', {}, '{}'), (ex: NodeJS.ErrnoException) => ex.code === 'ECONNRESET');
  const res = await client.request('POST', {}, '{}');
  await assert.rejects(body(res), (ex: NodeJS.ErrnoException) => ex.code === 'ECONNRESET');
  assert.equal(res.complete, false);
  });
});

test('a refused connection fails with ECONNREFUSED', async () => {
  const server = await rawServer(() => undefined);
  const url = server.url;
  await server.close();
  const client = new KeptAliveClient(url);
  await assert.rejects(client.request('GET', {}), (ex: NodeJS.ErrnoException) => ex.code === 'ECONNREFUSED');
});

test('a malformed answer fails without a guess, and bytes sent with no request in flight drop the socket', async () => {
  const wires = ['HTTP/2 200 OK\r\n\r\n', 'HTTP/1.1 200 OK\r\nno colon\r\n\r\n', 'HTTP/1.1 200 OK\r\ncontent-length: 1e3\r\n\r\n'];
  for (const wire of wires) {
    const server = await rawServer((socket) => socket.write(wire));
    const client = new KeptAliveClient(server.url);
    try {
      await assert.rejects(client.request('GET', {}), /not HTTP\/1\.1/, JSON.stringify(wire));
    } finally {
      client.destroy(new Error('done'));
      await server.close();
    }
  }
  const chunked = await rawServer((socket) => socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n'));
  const client = new KeptAliveClient(chunked.url);
  try {
    await assert.rejects(body(await client.request('GET', {})), /a chunk size of "zz"/);
  } finally {
    client.destroy(new Error('done'));
    await chunked.close();
  }
  const chatty = await rawServer((socket) => {
    socket.write('HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\n1');
    setTimeout(() => socket.write('HTTP/1.1 200 OK\r\n\r\n'), 20);
  });
  const again = new KeptAliveClient(chatty.url);
  try {
    assert.equal(await body(await again.request('GET', {})), '1');
    await pause(60);
    assert.equal(await body(await again.request('GET', {})), '1');
    assert.equal(chatty.sockets.length, 2);
  } finally {
    again.destroy(new Error('done'));
    await chatty.close();
  }
});

test('a header with CR or LF is refused before anything is sent; a URL other than http: at once', async () => {
  const requests: string[] = [];
  await withServer((_socket, request) => requests.push(request), async (server, client) => {
  await assert.rejects(client.request('GET', { authorization: 'Bearer x\r\nx-evil: 1' }), TypeError);
  await assert.rejects(client.request('GET', { 'bad\nname': 'v' }), TypeError);
  await pause(30);
  assert.deepEqual(requests, []);
  assert.throws(() => new KeptAliveClient(new URL('https://127.0.0.1/mcp')), /plain HTTP only/);
  });
});

test('destroy() fails the requests in flight and their bodies with its reason, and every later request', async () => {
  const server = await rawServer((socket, request) => {
    if (request.startsWith('GET')) socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n7\r\ndata: 1\r\n');
  });
  const client = new KeptAliveClient(server.url);
  try {
    const stream = await client.request('GET', {});
    const waiting = client.request('POST', {}, '{}');
    const reason = new Error('closed by the test');
    client.destroy(reason);
    await assert.rejects(waiting, reason);
    await assert.rejects(body(stream), reason);
    await assert.rejects(client.request('GET', {}), reason);
  } finally {
    await server.close();
  }
});

test("against node:http's server: JSON answers kept alive on one socket, and an answer of 1 MB", async () => {
  const big = 'x'.repeat(1 << 20);
  let connections = 0;
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => res.end(req.url === '/big' ? big : JSON.stringify({ method: req.method })));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const client = new KeptAliveClient(new URL(`http://127.0.0.1:${port}/mcp`));
  const bigClient = new KeptAliveClient(new URL(`http://127.0.0.1:${port}/big`));
  try {
    for (let i = 0; i < 20; i++) assert.equal(await body(await client.request('POST', {}, '{}')), '{"method":"POST"}');
    assert.equal(connections, 1);
    assert.equal((await body(await bigClient.request('GET', {}))).length, big.length);
  } finally {
    client.destroy(new Error('done'));
    bigClient.destroy(new Error('done'));
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
