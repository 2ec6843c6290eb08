// Rule: a workflow file is read from disk with its prompt files, or refused listing every problem as file:line:
// field: message; an instance's context opens the provider its `context` names, the file one under
// `.workflow/<instance>/` of the working directory by default.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import { MemoryContextProvider } from '../../src/core/worker/memoryContextProvider.js';
import { workflowGuidance } from '../../src/core/worker/guidance.js';
import { FileContextProvider } from '../../src/host/worker/fileContextProvider.js';
import { loadWorkflowFile, openContextProvider, readWorkflowFile } from '../../src/host/worker/openContext.js';

const cwd = mkdtempSync(join(tmpdir(), 'baton-opencontext-'));
after(() => rmSync(cwd, { recursive: true, force: true }));

describe('workflow files and contexts on disk', () => {
  it('loads the shipped multi-agent example with its prompts', () => {
    const wf = loadWorkflowFile('content/teams/code-review.yaml');
    assert.deepEqual(Object.keys(wf.agents), ['coordinator', 'reviewer', 'coder']);
    assert.match(wf.agents['coder']!.system_prompt, /You fix the issues/);
  });

  it('refuses a broken file with every problem and its line', () => {
    const path = join(cwd, 'bad.yaml');
    writeFileSync(path, 'agents:\n  a:\n    model: acme/x\n    system_prompt: missing.md\n');
    assert.throws(() => loadWorkflowFile(path), (ex: unknown) => BatonError.is(ex, 'content_invalid')
      && ex.message.includes(`${path}:3: agents.a.model: unknown provider 'acme'`) && ex.message.includes(`${path}:4: agents.a.system_prompt: file missing.md not found`));
    assert.match(readWorkflowFile(join(cwd, 'none.yaml')).problems[0]!.message, /cannot read the workflow file \(there is no such file; check the path\)/);
    assert.match(readWorkflowFile(cwd).problems[0]!.message, /cannot read the workflow file \(it is a folder; pass the team's \.yaml file in it\)/);
    assert.throws(() => loadWorkflowFile(join(cwd, 'none.yaml')), (ex: unknown) => BatonError.is(ex, 'not_found') && /workflow file .*none\.yaml not found; check the path/.test(ex.message));
  });

  it('opens the default file context under .workflow/<instance>/', async () => {
    const wf = loadWorkflowFile('content/teams/review.yaml');
    const { context, provider } = await openContextProvider(wf, { instance: 'pr-7', cwd });
    assert.ok(provider instanceof FileContextProvider);
    assert.equal(context && context.provider === 'file' && context.dir, join(cwd, '.workflow', 'pr-7'));
    assert.ok(existsSync(join(cwd, '.workflow', 'pr-7', 'channel.md')));
    const e = await provider.appendChannel('system', 'Workflow started; @reviewer');
    assert.deepEqual(e.mentions, ['reviewer']);
  });

  it('opens memory contexts and none for context: false', async () => {
    const base = { name: 't', agents: { a: { backend: 'command', model: '', system_prompt: 'x', command: ['x'] } } };
    assert.ok((await openContextProvider({ ...base, context: { provider: 'memory' } }, { instance: 'i', cwd })).provider instanceof MemoryContextProvider);
    assert.deepEqual(await openContextProvider({ ...base, context: false }, { instance: 'i', cwd }), { context: false, provider: undefined });
    await assert.rejects(openContextProvider(base, { instance: '../up', cwd }), (ex: unknown) => BatonError.is(ex, 'invalid_input') && /instance name/.test(ex.message));
  });

  it('gives each agent the spec\'s guidance naming its teammates', () => {
    const g = workflowGuidance('coder', ['reviewer', 'coder']);
    assert.match(g, /^## Workflow Participation\n\nYou are @coder, part of a multi-agent workflow with @reviewer\./);
    assert.match(g, /`inbox_ack\(\)` - Mark handled messages as read/);
  });
});
