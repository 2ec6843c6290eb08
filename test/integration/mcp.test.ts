// Rule: an agent on Baton's MCP server (real core, in memory) finds a listable, annotated workflow_next_step that
// also answers to the spec's dotted name, reads every resource and every workflow-artifacts form, gets templates as
// prompts, is told which field is wrong and how to fix it, and hears about changes to what it subscribed to.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { silentLog } from '../../src/core/ports.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { BAD_INPUT, validOutput } from '../fixtures/mcp/badInput.js';

type Structured = { status: string; execution_id?: string; task_id?: string; new_step_token?: string; next_step_contract?: { step_name: string }; error?: { code: string; message: string; retry_after_ms?: number } };

async function connect(opened: OpenedBaton, name = 'mcp-test') {
  const server = createMcpServer(opened.baton, { toolGroups: ['broker'], version: '0.0.0-test', log: silentLog });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name, version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  return client;
}

async function call(client: Client, args: Record<string, unknown>, name = 'workflow_next_step') {
  const res = await client.callTool({ name, arguments: args });
  return { res, sc: res.structuredContent as Structured };
}

function text(res: { contents: Array<Record<string, unknown>> }): string {
  return String(res.contents[0]!.text);
}

describe('MCP server on the real core (in memory)', () => {
  let workspace: string;
  let opened: OpenedBaton;
  let client: Client;
  let executionId: string;
  let taskId: string;

  before(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'baton-mcp-'));
    opened = await openBaton({ dbPath: null, workspace, rateLimits: false, log: silentLog, approvalWaitMs: 0 } as Parameters<typeof openBaton>[0]);
    client = await connect(opened);
  });
  after(async () => {
    await client.close();
    await opened.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('lists workflow_next_step with title, annotations, input and output schemas', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['workflow_next_step']);
    const tool = tools[0]!;
    assert.match(tool.name, /^[a-zA-Z0-9_-]+$/);
    assert.equal(tool.title, 'Workflow: next step');
    assert.deepEqual(tool.annotations, { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
    assert.match(tool.description!, /template_name/);
    assert.match(tool.description!, /refresh_token/);
    assert.match(tool.description!, /awaiting_approval/);
    const props = Object.keys(tool.inputSchema.properties ?? {});
    for (const f of ['template_name', 'step_token', 'request', 'model_output_so_far', 'requested_step_name', 'intent_tags', 'referenced_paths', 'rationale', 'task_id']) {
      assert.ok(props.includes(f), `input schema has ${f}`);
    }
    assert.ok(tool.outputSchema && Object.keys(tool.outputSchema.properties ?? {}).includes('new_step_token'));
  });

  it('refuses a list request with a cursor it never gave out (-32602), and lists everything without one', async () => {
    for (const list of [() => client.listTools({ cursor: 'page-2' }), () => client.listPrompts({ cursor: 'page-2' }), () => client.listResources({ cursor: 'page-2' }), () => client.listResourceTemplates({ cursor: 'page-2' })]) {
      await assert.rejects(list(), (ex: { code?: number; message?: string }) => ex.code === -32602 && /cursor "page-2" is not one this server gave out; it lists everything on the first page/.test(ex.message ?? ''));
    }
    const all = await client.listPrompts();
    assert.ok(all.prompts.length > 0 && all.nextCursor === undefined);
  });

  it('runs bug-fix to its gate through the dotted spelling, then closes after approval', async () => {
    let { res, sc } = await call(client, { template_name: 'bug-fix', task_description: 'login fails' }, 'workflow.next_step');
    assert.equal(res.isError, undefined);
    assert.equal(sc.status, 'ok');
    assert.equal(sc.next_step_contract?.step_name, 'analyze-root-cause');
    assert.ok((res.content as Array<{ text: string }>)[0]!.text.length > 0, 'a short text accompanies the structured result');
    executionId = sc.execution_id!;
    taskId = sc.task_id!;
    const seen = [sc.next_step_contract!.step_name];
    while (sc.status === 'ok') {
      ({ res, sc } = await call(client, { step_token: sc.new_step_token, model_output_so_far: validOutput }));
      if (sc.next_step_contract) seen.push(sc.next_step_contract.step_name);
    }
    assert.deepEqual(seen, ['analyze-root-cause', 'implement-fix', 'write-tests', 'review-code']);
    assert.equal(sc.status, 'awaiting_approval');
    const gateToken = sc.new_step_token;
    await opened.baton.decide({ execution_id: executionId, decision: 'approve', by: 'test' });
    ({ sc } = await call(client, { step_token: gateToken }));
    assert.equal(sc.status, 'task_closed');
  });

  it('reads every resource', async () => {
    assert.match(text(await client.readResource({ uri: 'persona://default' })), /Supervisor/);
    assert.match(text(await client.readResource({ uri: 'persona://debugger' })), /\S/);
    assert.match(text(await client.readResource({ uri: 'guardrails://active' })), /Guardrails/);
    const current = JSON.parse(text(await client.readResource({ uri: `current-step://${taskId}` })));
    assert.equal(current.execution_id, executionId);
    // By execution id too, as a cut feedback's pointer (feedback in current-step://<execution_id>) reads it.
    const currentByExec = JSON.parse(text(await client.readResource({ uri: `current-step://${executionId}` })));
    assert.equal(currentByExec.task_id, taskId);
    const byExec = JSON.parse(text(await client.readResource({ uri: `workflow-status://${executionId}` })));
    assert.equal(byExec.steps.length, 4);
    assert.equal(byExec.status, 'completed');
    const project = JSON.parse(text(await client.readResource({ uri: 'project-context://current' })));
    assert.equal(typeof project.project.name, 'string');
    const workflows = JSON.parse(text(await client.readResource({ uri: 'available-workflows://all' })));
    assert.ok(workflows.workflows.some((w: { name: string }) => w.name === 'bug-fix'));
    const listed = (await client.listResources()).resources.map((r) => r.uri);
    for (const uri of ['persona://default', 'guardrails://active', 'current-step://active', 'workflow-status://active', 'project-context://current', 'available-workflows://all']) {
      assert.ok(listed.includes(uri), `${uri} is listed`);
    }
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    assert.ok(templates.includes('workflow-artifacts://{+query}'));
  });

  it('resolves every workflow-artifacts form', async () => {
    const read = async (q: string) => JSON.parse(text(await client.readResource({ uri: `workflow-artifacts://${q}` }))) as { artifacts: Array<{ execution_id: string; is_final: boolean; type: string }>; total: number };
    const recent = await read('recent?limit=2');
    assert.equal(recent.artifacts.length, 2);
    const byType = await read('type/markdown?limit=100');
    assert.ok(byType.artifacts.length >= 4 && byType.artifacts.every((a) => a.type === 'markdown'));
    const final = await read('final');
    assert.ok(final.artifacts.length >= 1 && final.artifacts.every((a) => a.is_final));
    const finalOfExec = await read(`final/${executionId}`);
    assert.ok(finalOfExec.artifacts.length >= 1 && finalOfExec.artifacts.every((a) => a.is_final && a.execution_id === executionId));
    const all = await read(executionId);
    assert.ok(all.artifacts.length >= 4 && all.artifacts.every((a) => a.execution_id === executionId));
    const finalParam = await read(`${executionId}?final=true`);
    assert.deepEqual(finalParam.artifacts, finalOfExec.artifacts);
    // A running execution's artifacts are not final yet: the final forms must filter them out.
    const { sc } = await call(client, { template_name: 'bug-fix' });
    await call(client, { step_token: sc.new_step_token, model_output_so_far: validOutput });
    assert.equal((await read(sc.execution_id!)).artifacts.length, 1);
    assert.equal((await read(`${sc.execution_id}?final=true`)).artifacts.length, 0);
    assert.equal((await read(`final/${sc.execution_id}`)).artifacts.length, 0);
    assert.ok((await read('final')).artifacts.every((a) => a.execution_id !== sc.execution_id));
    await assert.rejects(client.readResource({ uri: 'workflow-artifacts://recent?limit=abc' }), /Valid forms/);
    // A typo reads as an error naming what to read, not as an empty list; a real type or run with none stays empty.
    await assert.rejects(client.readResource({ uri: 'workflow-artifacts://type/code' }), /No artifact type "code"; the types are design_doc, .*markdown/);
    assert.equal((await read('type/adr')).total, 0);
    await assert.rejects(client.readResource({ uri: 'workflow-artifacts://no-such-run' }), /No execution "no-such-run"; workflow-artifacts:\/\/\{execution_id\} takes an execution id/);
    await assert.rejects(client.readResource({ uri: `workflow-artifacts://${sc.task_id}?final=true` }),
      new RegExp(`"${sc.task_id}" is not an execution id; the artifacts of the execution it names are at workflow-artifacts://${sc.execution_id}\\?final=true`));
    for (const uri of ['persona://%ZZ', 'current-step://%', 'workflow-status://%FF', 'project-context://%C3%28']) {
      await assert.rejects(client.readResource({ uri }), (ex: { code?: number; message?: string }) => {
        assert.equal(ex.code, -32602, `${uri}: ${ex.message}`);
        assert.match(ex.message!, /"%[^"]*" is not valid percent-encoding \(a % must be followed by two hex digits of UTF-8\)/);
        return true;
      });
    }
  });

  it('completes resource template variables from what exists (completion/complete)', async () => {
    assert.deepEqual(client.getServerCapabilities()?.completions, {});
    const complete = async (uri: string, name: string, value: string) =>
      (await client.complete({ ref: { type: 'ref/resource', uri }, argument: { name, value } })).completion;
    // The earlier tests left bug-fix `taskId` completed and one bug-fix running.
    const running = opened.baton.listExecutions({ active_only: true })[0]!;
    const current = await complete('current-step://{task_id}', 'task_id', '');
    assert.deepEqual(current.values, ['active', running.task_id], 'running tasks only, by task id');
    assert.equal(current.total, 2);
    const status = await complete('workflow-status://{task_id}', 'task_id', taskId.slice(0, 6).toUpperCase());
    assert.equal(status.values[0], taskId, 'a finished task too, matched without regard to case');
    assert.ok((await complete('workflow-status://{task_id}', 'task_id', executionId.slice(0, 8))).values.includes(executionId), 'an execution id once typed');
    assert.deepEqual((await complete('workflow-status://{task_id}', 'task_id', 'no-such-id')).values, []);
    const personas = (await complete('persona://{agent}', 'agent', 'DEB')).values;
    assert.equal(personas[0], 'debugger');
    assert.ok((await complete('persona://{agent}', 'agent', '')).values.includes('default'));
    assert.deepEqual((await complete('project-context://{project_id}', 'project_id', 'c')).values, ['current']);
    const artifacts = (await complete('workflow-artifacts://{+query}', 'query', 'fin')).values;
    assert.equal(artifacts[0], 'final');
    assert.ok(artifacts.includes(`final/${executionId}`) && artifacts.includes(`${executionId}?final=true`), 'the final forms of each execution');
    assert.deepEqual((await complete('workflow-artifacts://{+query}', 'query', '')).values, ['recent?limit=50', 'final', 'type/']);
    const types = (await complete('workflow-artifacts://{+query}', 'query', 'type/')).values;
    assert.ok(types.includes('type/design_doc') && types.includes('type/markdown') && types.includes('type/binary'), `the artifact types: ${types.join(', ')}`);
    // A fixed resource has nothing to complete; a template that does not exist is an Invalid params error.
    assert.deepEqual((await complete('guardrails://active', 'x', '')).values, []);
    await assert.rejects(complete('nothing://{x}', 'x', ''), { code: -32602, message: 'MCP error -32602: Resource template nothing://{x} not found' });
    // A task is free text: no suggestions, but an answer.
    const promptValues = async (name: string, argument: string, value: string) =>
      (await client.complete({ ref: { type: 'ref/prompt', name }, argument: { name: argument, value } })).completion.values;
    assert.deepEqual(await promptValues('bug-fix', 'task', 'cr'), []);
    // The spec prompt's source: the tasks.md files where spec tools write them (in SPEC_FOLDERS' order), never a dependency's.
    for (const dir of ['specs/auth', 'specs/billing', '.kiro/specs/search', 'node_modules/some-lib']) {
      mkdirSync(join(workspace, dir), { recursive: true });
      writeFileSync(join(workspace, dir, 'tasks.md'), '# Tasks\n\n- [ ] 1. Do it\n');
    }
    writeFileSync(join(workspace, 'specs/auth/notes.md'), '# not a task list\n');
    assert.deepEqual(await promptValues('spec_execution_v1', 'source', ''), ['specs/auth/tasks.md', 'specs/billing/tasks.md', '.kiro/specs/search/tasks.md']);
    assert.deepEqual(await promptValues('spec_execution_v1', 'source', 'SPECS/b'), ['specs/billing/tasks.md']);
    assert.deepEqual(await promptValues('spec_execution_v1', 'source', 'search'), ['.kiro/specs/search/tasks.md']);
    rmSync(join(workspace, 'specs'), { recursive: true });
    rmSync(join(workspace, '.kiro'), { recursive: true });
  });

  it('offers each template as a prompt that tells the agent to call workflow_next_step', async () => {
    const { prompts } = await client.listPrompts();
    assert.ok(prompts.some((p) => p.name === 'bug-fix' && p.arguments?.some((a) => a.name === 'task')));
    const got = await client.getPrompt({ name: 'bug-fix', arguments: { task: 'crash on save' } });
    const body = (got.messages[0]!.content as { text: string }).text;
    assert.match(body, /workflow_next_step/);
    assert.match(body, /"template_name":"bug-fix"/);
    assert.match(body, /crash on save/);
    // The spec workflow's prompt takes the tasks.md and asks for evidence per gate item.
    assert.ok(prompts.some((p) => p.name === 'spec_execution_v1' && p.arguments?.some((a) => a.name === 'source')));
    const spec = await client.getPrompt({ name: 'spec_execution_v1', arguments: { source: 'specs/auth/tasks.md' } });
    const specBody = (spec.messages[0]!.content as { text: string }).text;
    assert.match(specBody, /"template_name":"spec_execution_v1","source":"specs\/auth\/tasks\.md"/);
    assert.match(specBody, /"evidence"/);
    // A prompt that does not exist: Invalid params, its message said once (the SDK's own prefix is not repeated), with
    // the prompts there are (a command-line client shows no list to pick from) and the closest one.
    await assert.rejects(client.getPrompt({ name: 'no-such-workflow' }), {
      code: -32602,
      message: 'MCP error -32602: Prompt no-such-workflow not found; the prompts (one per workflow template, as prompts/list names them): bug-fix, feature-implementation, security-audit, spec_execution_v1',
    });
    await assert.rejects(client.getPrompt({ name: 'bug-fx' }), { code: -32602, message: /^MCP error -32602: Prompt bug-fx not found \(did you mean "bug-fix"\?\); the prompts / });
  });

  for (const [field, args, expected] of BAD_INPUT) {
    it(`bad ${field}: isError naming the field, then a valid call still works`, async () => {
      const { res } = await call(client, args);
      assert.equal(res.isError, true);
      const msg = (res.content as Array<{ text: string }>)[0]!.text;
      assert.ok(msg.includes(expected), `expected ${JSON.stringify(expected)} in: ${msg}`);
      const ok = await call(client, { template_name: 'bug-fix' });
      assert.equal(ok.sc.status, 'ok');
    });
  }

  it('sends resources/updated once per subscribed URI a step touches, not once per event of the step', async () => {
    const { sc } = await call(client, { template_name: 'bug-fix' });
    const got: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void got.push(n.params.uri));
    await client.subscribeResource({ uri: `current-step://${sc.task_id}` });
    await client.subscribeResource({ uri: 'workflow-status://active' });
    await client.subscribeResource({ uri: `workflow-status://${executionId}` }); // another execution: not touched
    await call(client, { step_token: sc.new_step_token, model_output_so_far: validOutput });
    assert.equal(got.length, 2, 'the updates went out ahead of the answer');
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(got.sort(), [`current-step://${sc.task_id}`, 'workflow-status://active']);
  });

  it('a misspelt field of model_output_so_far is refused before the step advances; an agent\'s own extra field passes', async () => {
    const { sc } = await call(client, { template_name: 'bug-fix' });
    const typo = await call(client, { step_token: sc.new_step_token, model_output_so_far: { ...validOutput, findigs: [{ severity: 'high' }], refrences: [] } });
    assert.equal(typo.res.isError, true);
    assert.equal((typo.res.content as Array<{ text: string }>)[0]!.text, "Invalid arguments for workflow_next_step: unknown field model_output_so_far.findigs (did you mean 'findings'?); unknown field model_output_so_far.refrences (did you mean 'references'?). Fix the fields and call again.");
    // In the structured form too, as every other refusal of this tool, and so is a value of the wrong kind.
    assert.equal(typo.sc.status, 'error');
    assert.equal(typo.sc.error?.code, 'invalid_input');
    assert.match(String(typo.sc.error?.message), /unknown field model_output_so_far\.findigs/);
    const wrong = await call(client, { template_name: 5 });
    assert.deepEqual([wrong.res.isError, wrong.sc.status, wrong.sc.error?.code], [true, 'error', 'invalid_input']);
    assert.match(String(wrong.sc.error?.message), /template_name must be/);
    const same = await call(client, { step_token: sc.new_step_token, model_output_so_far: { ...validOutput, notes_for_reviewer: 'mine' } });
    assert.equal(same.sc.status, 'ok', 'the token was not used by the refused call, and a key of its own passes');
    assert.notEqual(same.sc.next_step_contract?.step_name, sc.next_step_contract?.step_name);
  });
});

describe('rate limits (on)', () => {
  it('a burst past the per-task limit gets a rate_limited error with retry_after_ms', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'baton-mcp-rl-'));
    const opened = await openBaton({ dbPath: null, workspace, rateLimits: true, log: silentLog });
    const client = await connect(opened);
    try {
      let { sc } = await call(client, { template_name: 'bug-fix' });
      let limited: Structured | undefined;
      for (let i = 0; i < 10 && !limited; i++) {
        // Asking for the running step again (no output) draws from the task bucket; a refresh_token request would not.
        const r = await call(client, { step_token: sc.new_step_token });
        if (r.sc.status === 'error') {
          assert.equal(r.res.isError, true);
          limited = r.sc;
        } else sc = r.sc;
      }
      assert.ok(limited, 'some call was rate limited');
      assert.equal(limited.error!.code, 'rate_limited');
      assert.ok(limited.error!.retry_after_ms! > 0);
    } finally {
      await client.close();
      await opened.close();
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});
