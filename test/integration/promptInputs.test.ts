// Rule: prompts/get and prompt completions on the real `baton mcp` (stdio) refuse what a fuzzer or a careless client
// sends with Invalid params naming what to fix: a prompt named like an Object.prototype member ("__proto__",
// "constructor", "toString") is not found, with the prompts there are (never "disabled"); an argument of the wrong
// kind is named in plain words; an argument the prompt does not take is refused, not dropped without a word; a null
// argument reads as left out, as in a tool call; a completion's ref of neither kind is told both kinds (not "Invalid
// input", nor only the first kind). The server goes on answering.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ensureBuilt, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { rawStdio } from '../fixtures/mcp/rawStdio.js';

const PROMPTS = 'the prompts (one per workflow template, as prompts/list names them): bug-fix, feature-implementation, security-audit, spec_execution_v1';

describe('baton mcp refuses odd prompt requests in words that name the fix', () => {
  const setup = tempSetup('baton-prompt-inputs-');
  let mcp: ReturnType<typeof rawStdio>;
  let next = 1;
  const ask = async (method: string, params: unknown) => {
    const id = next++;
    mcp.send({ id, method, params });
    return mcp.answer(id);
  };

  before(async () => {
    ensureBuilt();
    mcp = rawStdio(['--db', setup.db, '--workspace', setup.workspace]);
    await mcp.initialized('init');
  });
  after(async () => {
    await mcp.close();
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it('a prompt named like an Object.prototype member is not found, in prompts/get and in completion/complete', async () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const got = await ask('prompts/get', { name });
      assert.deepEqual(got.error, { code: -32602, message: `Prompt ${name} not found; ${PROMPTS}` }, name);
      const completed = await ask('completion/complete', { ref: { type: 'ref/prompt', name }, argument: { name: 'task', value: 'x' } });
      assert.deepEqual(completed.error, { code: -32602, message: `Prompt ${name} not found; ${PROMPTS}` }, name);
    }
    const long = await ask('prompts/get', { name: 'x'.repeat(100_000) });
    assert.match(long.error?.message, /^Prompt "x{80}…" \(100000 characters\) not found; the prompts /, 'a long name is not echoed whole');
  });

  it('names an argument of the wrong kind, and an argument the prompt does not take, with what it takes', async () => {
    const refusals: Array<[unknown, string]> = [
      [{ task: 5 }, 'arguments.task must be a string: prompt arguments are text (got 5)'],
      [{ task: { text: 'x' } }, 'arguments.task must be a string: prompt arguments are text (got an object)'],
      [['fix it'], 'arguments must be an object of text values such as {"task": "..."} (got an array)'],
      ['fix it', 'arguments must be an object of text values such as {"task": "..."} (got "fix it")'],
      [{ tsk: 'fix it' }, 'unknown argument "tsk" (did you mean "task"?); this prompt takes task'],
    ];
    for (const [args, said] of refusals) {
      const got = await ask('prompts/get', { name: 'bug-fix', arguments: args });
      assert.deepEqual(got.error, { code: -32602, message: `Invalid arguments for prompt bug-fix: ${said}. Fix the arguments and get the prompt again.` }, JSON.stringify(args));
    }
    const spec = await ask('prompts/get', { name: 'spec_execution_v1', arguments: { task: 'x' } });
    assert.equal(spec.error?.message, 'Invalid arguments for prompt spec_execution_v1: unknown argument "task"; this prompt takes source. Fix the arguments and get the prompt again.');
  });

  it('tells a completion whose ref is of neither kind both kinds it may be', async () => {
    const argument = { name: 'task', value: 'x' };
    for (const ref of [{ type: 'ref/tool', name: 'x' }, { a: { a: { a: 1 } } }]) {
      const got = await ask('completion/complete', { ref, argument });
      assert.deepEqual(got.error, { code: -32602, message: 'Invalid params for completion/complete: params.ref.type: Invalid input: expected "ref/prompt" or "ref/resource".' });
    }
    const text = await ask('completion/complete', { ref: 'bug-fix', argument });
    assert.deepEqual(text.error, { code: -32602, message: 'Invalid params for completion/complete: params.ref: Invalid input: expected object, received string.' });
  });

  it('reads a null argument (or null arguments) as left out, and answers a normal prompts/get after all of it', async () => {
    for (const args of [{ task: null }, null]) {
      const got = await ask('prompts/get', { name: 'bug-fix', arguments: args });
      assert.equal(got.error, undefined, JSON.stringify(got.error));
      assert.match(got.result?.messages[0].content.text, /^Run Baton's "bug-fix" workflow\.\n/);
    }
    const got = await ask('prompts/get', { name: 'bug-fix', arguments: { task: 'crash on save' } });
    assert.match(got.result?.messages[0].content.text, /for this task: crash on save/);
    assert.equal(mcp.child.exitCode, null, 'still running');
    assert.deepEqual(mcp.notJson, []);
  });
});
