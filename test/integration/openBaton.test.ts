// Rule: the host's composition passes its settings through: every folder of a multi-root workspace becomes a
// project, and the step-token lifetime set by the host is the one tokens carry.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { decodeTokenUnverified, type TokenPayload } from '../../src/core/broker/tokens.js';
import { silentLog } from '../../src/core/ports.js';
import { openBaton } from '../../src/host/openBaton.js';
import { makeWorkspace } from '../helpers/coreHarness.js';

describe('openBaton', () => {
  it('makes a project of every workspace folder and applies the token lifetime', async () => {
    const first = makeWorkspace();
    const second = mkdtempSync(join(tmpdir(), 'baton-ws2-'));
    const opened = await openBaton({ dbPath: null, workspace: first, workspaceFolders: [first, second], tokenTtlMs: 90_000, timeoutSweepMs: 0, log: silentLog });
    try {
      const paths = opened.store.all<{ path: string }>('SELECT path FROM projects ORDER BY id').map((r) => r.path);
      assert.deepEqual(paths, [first, second]);
      const r = await opened.baton.nextStep({ template_name: 'bug-fix' });
      const payload = decodeTokenUnverified(r.new_step_token!) as TokenPayload;
      assert.equal(payload.expires_at - payload.issued_at, 90_000);
    } finally {
      await opened.close();
      rmSync(first, { recursive: true, force: true });
      rmSync(second, { recursive: true, force: true });
    }
  });
});
