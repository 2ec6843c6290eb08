// Rule: in an untrusted workspace the editor opens Baton without the workspace's `.baton/` content (its agents,
// rules and workflows could steer agents), while a trusted one loads it over the bundled content.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { silentLog } from '../../src/core/ports.js';
import { bundledContentDir, openBaton } from '../../src/host/openBaton.js';

describe('workspace content and trust', () => {
  const workspace = mkdtempSync(join(tmpdir(), 'baton-trust-'));
  mkdirSync(join(workspace, '.baton', 'workflows'), { recursive: true });
  const bugFix = readFileSync(join(bundledContentDir(), 'workflows', 'bug-fix.yaml'), 'utf8');
  writeFileSync(join(workspace, '.baton', 'workflows', 'house-fix.yaml'), bugFix.replace(/^name: bug-fix$/m, 'name: house-fix'));
  after(() => rmSync(workspace, { recursive: true, force: true }));

  const names = async (workspaceContent?: boolean) => {
    const opened = await openBaton({ dbPath: null, workspace, workspaceContent, log: silentLog });
    try {
      return opened.baton.templates().map((t) => t.name);
    } finally {
      await opened.close();
    }
  };

  it('loads the workspace workflows when trusted (the default)', async () => {
    assert.ok((await names()).includes('house-fix'));
    assert.ok((await names(true)).includes('bug-fix'));
  });

  it('skips them when untrusted, keeping the bundled ones', async () => {
    const untrusted = await names(false);
    assert.ok(!untrusted.includes('house-fix'));
    assert.ok(untrusted.includes('bug-fix'));
  });
});
