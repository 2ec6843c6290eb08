// Rule: each form of a step result stays within 4 KB however its task description is written: a text of control
// characters (6 bytes each in JSON, as \u0000) or of quotes, backslashes and newlines (2 each) is cut by what it takes
// in the JSON, not by its UTF-8 bytes, and says where it is whole.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ensureBuilt, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { rawStdio } from '../fixtures/mcp/rawStdio.js';

const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
const BUDGET = 4096;

describe('a step result of a task written in escaped characters keeps to 4 KB', () => {
  const setup = tempSetup('baton-step-escapes-');
  before(() => ensureBuilt());
  after(() => rmSync(setup.dir, { recursive: true, force: true }));

  it('on stdio (baton mcp): both forms within the budget, the task cut with a pointer to where it is whole', async () => {
    const mcp = rawStdio(['--db', setup.db, '--workspace', setup.workspace]);
    try {
      mcp.send({ id: 1, method: 'initialize', params });
      await mcp.answer(1);
      mcp.send({ method: 'notifications/initialized' });
      const tasks = ['\u0000\u001f'.repeat(3000), '"\\\n'.repeat(3000), '\u0001'.repeat(1000)];
      for (const [i, task] of tasks.entries()) {
        const id = 10 + i;
        mcp.send({ id, method: 'tools/call', params: { name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: task } } });
        const { result } = await mcp.answer(id) as { result: { structuredContent: Record<string, any>; content: Array<{ text: string }> } };
        const sc = result.structuredContent;
        assert.equal(sc.status, 'ok', JSON.stringify(sc).slice(0, 500));
        const json = Buffer.byteLength(JSON.stringify(sc));
        const text = Buffer.byteLength(result.content.map((c) => c.text).join(''));
        assert.ok(json <= BUDGET, `task ${i}: the structured form is ${json} bytes, over ${BUDGET}`);
        assert.ok(text <= BUDGET, `task ${i}: the text form is ${text} bytes, over ${BUDGET}`);
        assert.match(sc.context.task_description, new RegExp(`\\.\\.\\. \\[cut at \\d+ of \\d+ bytes; the whole text: task_description in workflow-status://${sc.execution_id}\\]$`));
      }
    } finally {
      await mcp.close();
    }
  });
});
