// Rule: the discovery file gives a live owner's endpoint; the catalog and tool groups it may name come back only
// together and well formed (a forwarding `baton mcp` answers the handshake with them), else not at all.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { discoveryPath, readDiscovery, writeDiscovery } from '../../src/host/discovery.js';

const dir = mkdtempSync(join(tmpdir(), 'baton-discovery-'));
const db = join(dir, 'baton.db');
after(() => rmSync(dir, { recursive: true, force: true }));
const endpoint = { url: 'http://127.0.0.1:1/mcp', token: 't', pid: process.pid };

test("the owner's catalog and groups, only together and well formed", () => {
  writeDiscovery(db, { ...endpoint, catalog: 'c1', toolGroups: ['broker', 'content'] });
  assert.deepEqual(readDiscovery(db), { ...endpoint, catalog: 'c1', toolGroups: ['broker', 'content'] });
  for (const odd of [{ catalog: 'c1' }, { toolGroups: ['broker'] }, { catalog: 7, toolGroups: ['broker'] }, { catalog: 'c1', toolGroups: 'broker' }, { catalog: 'c1', toolGroups: [1] }]) {
    writeFileSync(discoveryPath(db), JSON.stringify({ ...endpoint, ...odd }));
    assert.deepEqual(readDiscovery(db), endpoint, JSON.stringify(odd));
  }
});
