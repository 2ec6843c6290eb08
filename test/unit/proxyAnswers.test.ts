// Rule: what a forwarding `baton mcp` tells an agent whose call waited on an owner that stopped answering names the
// owner's pid and how to resume it (first, when it is stopped) or end it, and what to do about the call: a read or a
// call with a step_token may be sent again; a start may not (its request key may be one the proxy added, which a new
// call lacks: it would start a second run), whichever tool starts it; any other write may have taken effect. An owner
// that stopped, or a send that failed, is told the same of each call, except that a start carrying its own request
// key may be sent again there.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { didNotAnswer, ownerSilent, stoppedBeforeAnswering } from '../../src/host/proxyAnswers.js';
import type { Upstream } from '../../src/host/proxy.js';

const owner = { name: 'Baton process 4242', pid: 4242 } as Upstream;
const call = (name: string, args: Record<string, unknown>): JSONRPCRequest => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
const keyed = (args: Record<string, unknown>): JSONRPCRequest => ({ ...call('start_execution', args), params: { name: 'start_execution', arguments: args, _meta: { 'dev.baton/request-key': 'k1' } } });

test('an owner that stopped answering: the pid, how to resume (stopped) or end it, and whether the call may go again', () => {
  const kill = process.platform === 'win32' ? 'taskkill /F /PID 4242' : 'kill -9 4242';
  const end = `that process (${kill}), or restart the editor if it is the editor's: Baton here then takes over the database.`;
  const given = (why: string) => `Baton process 4242 owns the database but has not answered for 30 s (it is ${why}), so this call was given up.`;
  assert.equal(ownerSilent(owner, 30_000, undefined, 'stopped'),
    `${given('stopped by Ctrl-Z or SIGSTOP')} Resume it (fg in its terminal, or kill -CONT 4242): it then answers again. Or end ${end} Then call again with the same arguments (a call that had taken effect is answered again).`);
  assert.equal(ownerSilent(owner, 30_000, undefined, 'traced'),
    `${given('stopped in a debugger')} Continue it in the debugger: it then answers again. Or end ${end} Then call again with the same arguments (a call that had taken effect is answered again).`);
  assert.equal(ownerSilent(owner, 30_000, undefined, 'running'),
    `${given('hung')} End ${end} Then call again with the same arguments (a call that had taken effect is answered again).`);
  const opening = process.platform === 'win32' ? `${given('hung')} End ${end}`
    : `${given('stopped or hung')} Resume it if it was stopped (Ctrl-Z: fg in its terminal, or kill -CONT 4242): it then answers again. Or end ${end}`;
  const started = 'The workflow may have been started already: read current-step://active (or ask for `baton status`) before you start it again.';
  const cases: Array<[JSONRPCRequest | undefined, string]> = [
    [call('workflow_next_step', { template_name: 'bug-fix' }), started],
    [call('start_execution', { workflowName: 'bug-fix' }), started],
    [call('start_workflow', { target_file: 'specs/a/tasks.md' }), started],
    [keyed({ workflowName: 'bug-fix' }), started],
    [call('workflow_next_step', { step_token: 't' }), 'Then call again with the same arguments (a call that had taken effect is answered again).'],
    [{ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'current-step://active' } }, 'Then call again with the same arguments (a call that had taken effect is answered again).'],
    [call('memory_store', { key: 'k', value: 'v' }), 'The call may have taken effect already: check before you call again (calling again may do it twice).'],
  ];
  for (const [request, then] of cases) assert.equal(ownerSilent(owner, 30_000, request, 'unknown'), `${opening} ${then}`, JSON.stringify(request));
});

test('an owner that stopped before answering, or a send that failed: the same advice for each kind of call', () => {
  const again = ['call again with the same arguments (a call that had taken effect is answered again, with the same step_token).', 'call again with the same arguments (a call that had taken effect is answered again).'];
  const started = ['the workflow may have been started already: read current-step://active (or ask for `baton status`) before you start it again, as a second call starts a second run.', 'the workflow may have been started already: read current-step://active (or ask for `baton status`) before you start it again.'];
  const check = ['the call may have taken effect already: check before you call again (calling again may do it twice).', 'the call may have taken effect: check before you call again (calling again may do it twice).'];
  const cases: Array<[JSONRPCRequest, string[]]> = [
    [call('workflow_next_step', { template_name: 'bug-fix' }), started],
    [call('start_execution', { workflowName: 'bug-fix' }), started],
    [call('start_workflow', { target_file: 'specs/a/tasks.md' }), started],
    [keyed({ workflowName: 'bug-fix' }), again],
    [call('workflow_next_step', { step_token: 't' }), again],
    [{ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'current-step://active' } }, again],
    [call('memory_store', { key: 'k', value: 'v' }), check],
  ];
  for (const [request, [stopped, failed]] of cases) {
    const what = JSON.stringify(request);
    assert.equal(stoppedBeforeAnswering(owner, request), `Baton process 4242, which owned the Baton database, stopped before answering this call. Baton is taking over; ${stopped}`, what);
    assert.equal(didNotAnswer(owner, request, new Error('fetch failed')), `Baton process 4242, which owns the Baton database, did not answer: fetch failed; ${failed!.replace(/\.$/, '')}.`, what);
  }
  assert.match(stoppedBeforeAnswering(owner), /Baton is taking over; call again with the same arguments/);
});
