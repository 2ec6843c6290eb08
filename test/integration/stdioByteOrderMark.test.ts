// Rule: `baton mcp` reads a line that starts with a byte order mark as the message after it (RFC 8259 lets a parser
// ignore one; the HTTP endpoint does): a client whose encoder writes one before its first line (.NET's
// UTF8Encoding(true), PowerShell 5) gets its initialize answered instead of a Parse error without an id.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ensureBuilt, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { rawStdio } from '../fixtures/mcp/rawStdio.js';

const BOM = '\uFEFF';
const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bom', version: '1' } };

describe('baton mcp on stdio takes lines that start with a byte order mark', () => {
  const setup = tempSetup('baton-stdio-bom-');
  before(() => ensureBuilt());
  after(() => rmSync(setup.dir, { recursive: true, force: true }));

  it('answers an initialize after a BOM, and a call whose line starts with one later on', async () => {
    const mcp = rawStdio(['--db', setup.db, '--workspace', setup.workspace]);
    try {
      mcp.write(`${BOM}${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init })}\n`);
      assert.equal((await mcp.answer(1)).result?.protocolVersion, '2025-06-18', JSON.stringify(mcp.lines));
      mcp.write(`${BOM}${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\r\n`);
      mcp.write(`${BOM}${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'workflow_next_step', arguments: { template_name: 'bug-fix' } } })}\n`);
      assert.equal((await mcp.answer(2, 20_000)).result?.structuredContent.status, 'ok');
      assert.deepEqual(mcp.lines.filter((m) => !Array.isArray(m) && m.error), [], 'no Parse error');
      assert.deepEqual(mcp.notJson, []);
    } finally {
      await mcp.close();
    }
  });
});
