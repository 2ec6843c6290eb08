// Rule: a terminal command that asks the database's owner for an op the owner does not have (an older Baton) is told
// so, with what to do, instead of the owner's list of ops; the owner's other refusals pass through as they are.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { callControl } from '../../src/host/controlClient.js';
import type { DiscoveryInfo } from '../../src/host/discovery.js';

describe('callControl against an owner that refuses', () => {
  let server: Server;
  let owner: DiscoveryInfo;
  let answer: { status: number; body: unknown } = { status: 200, body: {} };

  before(async () => {
    server = createServer((_req, res) => {
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    owner = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, token: 't', pid: 4242 } as DiscoveryInfo;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('an op the owner does not list: an older Baton, restart it', async () => {
    answer = { status: 400, body: { error: { reason: 'invalid_input', message: 'op must be one of decide, status, executions' } } };
    await assert.rejects(callControl(owner, { op: 'prune' }), (ex: Error & { reason?: string }) => {
      assert.equal(ex.reason, 'invalid_state');
      assert.equal(ex.message, 'Baton process 4242 owns the database but is an older version that cannot "prune"; restart it with this version of Baton (or stop it, and this command works on the file)');
      return true;
    });
  });

  it("the owner's other refusals pass through with their reason and words", async () => {
    answer = { status: 400, body: { error: { reason: 'invalid_input', message: 'days must be a whole number ≥ 0' } } };
    await assert.rejects(callControl(owner, { op: 'prune', days: -1 }), { reason: 'invalid_input', message: 'days must be a whole number ≥ 0' });
    answer = { status: 400, body: { error: { reason: 'invalid_input', message: 'op must be one of decide, prune, status' } } };
    await assert.rejects(callControl(owner, { op: 'prune' }), { reason: 'invalid_input', message: 'op must be one of decide, prune, status' });
  });

  it("a refusal's details come back on the error (a stopping owner's 503 adds notTaken)", async () => {
    answer = { status: 409, body: { error: { reason: 'budget_exceeded', message: 'still over its budget', details: { limit: 'usd' } } } };
    await assert.rejects(callControl(owner, { op: 'pipeline_resume', run_id: 'r' }), { reason: 'budget_exceeded', details: { limit: 'usd' } });
    answer = { status: 503, body: { error: { reason: 'invalid_state', message: 'stopping', details: { ownerPid: 7 } } } };
    await assert.rejects(callControl(owner, { op: 'prune' }), { details: { ownerPid: 7, notTaken: true } });
    answer = { status: 409, body: { error: { reason: 'invalid_state', message: 'no', details: 'junk' } } };
    await assert.rejects(callControl(owner, { op: 'prune' }), { details: {} });
  });
});

// Rule: an owner that read a request and went silent (it died mid-call) may have carried out a write: the refusal says
// to look before running it again; a read, or a connection the owner refused, did nothing and says nothing of the kind.
describe('callControl against an owner that reads the request and hangs up', () => {
  let server: Server;
  let owner: DiscoveryInfo;

  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.socket?.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    owner = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, token: 't', pid: 4242 } as DiscoveryInfo;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a decision may have been recorded: look before deciding again', async () => {
    await assert.rejects(callControl(owner, { op: 'decide', execution_id: 'e1', decision: 'approved' } as never, 2000), (ex: Error & { reason?: string; details?: { notTaken?: boolean } }) => {
      assert.equal(ex.reason, 'owner_unreachable');
      assert.match(ex.message, /may have carried the request out before it stopped answering: look \(baton status\) before running this again$/);
      assert.equal(ex.details?.notTaken, false);
      return true;
    });
  });

  it('a read did nothing', async () => {
    await assert.rejects(callControl(owner, { op: 'status' }, 2000), (ex: Error) => {
      assert.doesNotMatch(ex.message, /may have carried/);
      return true;
    });
  });

  it('nor did a request whose connection was refused', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const gone = { ...owner, url: `http://127.0.0.1:${port}/mcp` };
    await assert.rejects(callControl(gone, { op: 'decide', execution_id: 'e1', decision: 'approved' } as never, 2000), (ex: Error & { details?: { notTaken?: boolean } }) => {
      assert.doesNotMatch(ex.message, /may have carried/);
      assert.equal(ex.details?.notTaken, true);
      return true;
    });
  });
});
