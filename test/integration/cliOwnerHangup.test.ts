// Rule: a command that goes through the owner of the database (baton approve, status, prune) and whose owner closes
// the connection without answering (killed as it accepted it) fails, naming that owner; it never exits 0 having done
// nothing. (Node's fetch neither answers nor fails such a request, and AbortSignal.timeout's timer does not keep the
// process alive: the command used to end there, silently, with exit code 0.)
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { discoveryPath } from '../../src/host/discovery.js';
import { lockPathOf } from '../../src/store/lock.js';
import { openStore } from '../../src/store/sqlJsStore.js';
import { CLI, ensureBuilt, tempSetup } from '../fixtures/mcp/cliHarness.js';

/** A stand-in owner: a Node process (so it may be Baton) that accepts each connection and closes it unread. */
const HANG_UP = "const s = require('net').createServer((c) => c.end()).listen(0, '127.0.0.1', () => console.log(s.address().port))";

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI, ...args], { timeout: 60_000 }, (_ex, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }));
  });
}

describe('an owner that hangs up without answering', () => {
  const setup = tempSetup('baton-hangup-');
  const owner = spawn(process.execPath, ['-e', HANG_UP], { stdio: ['ignore', 'pipe', 'inherit'] });
  ensureBuilt();

  before(async () => {
    const port = await new Promise<string>((resolve) => owner.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())));
    const store = await openStore({ path: setup.db });
    await store.close();
    writeFileSync(lockPathOf(setup.db), `${owner.pid}\n`);
    writeFileSync(discoveryPath(setup.db), JSON.stringify({ url: `http://127.0.0.1:${port}/mcp`, token: 'x', pid: owner.pid }));
  });
  after(() => {
    owner.kill();
    rmSync(setup.dir, { recursive: true, force: true });
  });

  for (const args of [['approve', 'some-execution'], ['status'], ['prune', '--dry-run']]) {
    it(`baton ${args[0]} exits 1 naming it, not 0 with nothing done`, { timeout: 60_000 }, async () => {
      const r = await cli([...args, '--db', setup.db, '--workspace', setup.workspace]);
      assert.equal(r.code, 1, `exit code ${r.code}, stdout ${JSON.stringify(r.stdout)}, stderr ${JSON.stringify(r.stderr)}`);
      assert.match(r.stderr, new RegExp(`Baton process ${owner.pid} .*does not answer`));
    });
  }
});
