// Rule: how deep a tool call's arguments may nest is a fixed limit (MAX_NESTING levels), not wherever the stack runs
// out: on the real `baton mcp` (stdio) a value at the limit is stored and read back, one level more is refused for
// every tool with a message naming the argument and the limit, and nothing of a refused call is stored. (A value
// stored at 4,000 levels, as before, could fail every later read of it on a longer path, such as the editor's.)
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { MAX_NESTING } from '../../src/mcp/inputErrors.js';
import { ensureBuilt, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { rawStdio } from '../fixtures/mcp/rawStdio.js';

/** `levels` objects inside each other, as JSON text. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('baton mcp refuses arguments nested past a fixed depth', () => {
  const setup = tempSetup('baton-nesting-');
  let mcp: ReturnType<typeof rawStdio>;
  let next = 1;
  const call = async (name: string, argsJson: string) => {
    const id = next++;
    mcp.write(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${argsJson}}}\n`);
    return (await mcp.answer(id, 20_000)).result as { isError?: boolean; content: Array<{ text: string }>; structuredContent?: any };
  };

  before(async () => {
    ensureBuilt();
    mcp = rawStdio(['--db', setup.db, '--workspace', setup.workspace, '--tools', 'all', '--rate-limits', 'off']);
    await mcp.initialized();
  });
  after(async () => {
    await mcp.close();
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it(`stores a value ${MAX_NESTING} levels deep and refuses one level more, in every tool that takes free-form data`, async () => {
    const started = await call('start_execution', '{"workflowName":"bug-fix"}');
    const id = started.structuredContent.id as string;
    // The argument itself is level 1: metadata {"a": … 1} with MAX_NESTING - 1 objects inside it is at the limit.
    const within = nested(MAX_NESTING - 1);
    const beyond = nested(MAX_NESTING);
    const calls: Array<[string, (deep: string) => string, string]> = [
      ['store_artifact', (deep) => `{"executionId":"${id}","name":"a.md","contentType":"text","content":"x","metadata":${deep}}`, 'metadata'],
      ['store_finding', (deep) => `{"executionId":"${id}","severity":"low","category":"c","title":"t","description":"d","location":${deep}}`, 'location'],
      ['log_execution', (deep) => `{"executionId":"${id}","layer":"workflow","layerId":"l","logLevel":"info","message":"m","context":${deep}}`, 'context'],
      ['memory_store', (deep) => `{"key":"k","value":"v","global":true,"metadata":${deep}}`, 'metadata'],
      ['workflow_next_step', (deep) => `{"template_name":"bug-fix","evidence":[${deep}]}`, 'evidence'],
    ];
    for (const [tool, args, field] of calls) {
      const refused = await call(tool, args(beyond));
      assert.equal(refused.isError, true, tool);
      assert.equal(refused.content[0]!.text, `Invalid arguments for ${tool}: ${field} is nested more than ${MAX_NESTING} levels deep (objects or arrays inside each other); send it with at most ${MAX_NESTING} levels, for example with the deep part as a JSON text in a string. Fix the field and call again.`);
    }
    const details = await call('get_execution_details', `{"executionId":"${id}","includeArtifacts":true,"includeLogs":true,"includeFindings":true}`);
    assert.deepEqual([details.structuredContent.artifacts.length, details.structuredContent.findings.length, details.structuredContent.logs.length], [0, 0, 0], 'nothing refused was stored');
    for (const [tool, args] of calls.slice(0, 4)) {
      const stored = await call(tool, args(within));
      assert.notEqual(stored.isError, true, `${tool}: ${stored.content[0]!.text}`);
    }
    const read = await call('get_execution_details', `{"executionId":"${id}","includeArtifacts":true}`);
    let depth = 0;
    for (let v = read.structuredContent.artifacts[0].metadata; typeof v === 'object'; v = v.a) depth++;
    assert.equal(depth, MAX_NESTING - 1, 'read back whole');
    assert.deepEqual(mcp.notJson, []);
  });

  it('refuses a value thousands of levels deep the same way, and goes on answering', async () => {
    const refused = await call('memory_store', `{"key":"k2","value":"v","global":true,"metadata":${nested(50_000)}}`);
    assert.match(refused.content[0]!.text, new RegExp(`^Invalid arguments for memory_store: metadata is nested more than ${MAX_NESTING} levels deep `));
    const listed = await call('memory_list', '{"scope":"global"}');
    assert.doesNotMatch(listed.content[0]!.text, /\bk2\b/);
    assert.equal(mcp.child.exitCode, null);
  });
});
