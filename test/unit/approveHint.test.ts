// Rule: the awaiting_approval answer names the exact command that approves the gate: plain `baton approve <id>` only
// when that finds the database (the workspace's .baton/baton.db), else with `--db <absolute path>`, shell-quoted.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { resultText } from '../../src/core/broker/stepText.js';
import { approveCommandFor } from '../../src/host/openBaton.js';
import { makeBaton, output } from '../helpers/coreHarness.js';

test('approveCommandFor adds --db whenever the database is not the workspace default', () => {
  const ws = '/home/dev/app';
  assert.equal(approveCommandFor(join(ws, '.baton', 'baton.db'), ws), 'baton approve');
  assert.equal(approveCommandFor('/home/dev/app/.baton/../.baton/baton.db', ws), 'baton approve');
  assert.equal(approveCommandFor('/srv/state/team.db', ws), 'baton approve --db /srv/state/team.db');
  assert.equal(approveCommandFor('/home/dev/other/.baton/baton.db', ws), 'baton approve --db /home/dev/other/.baton/baton.db');
  assert.equal(approveCommandFor("/tmp/my dir/it's.db", ws), "baton approve --db '/tmp/my dir/it'\\''s.db'");
  assert.equal(approveCommandFor(null, ws), null, 'an in-memory database has no command');
});

async function gateText(approveCommand: string | null): Promise<{ id: string; text: string }> {
  const { baton } = await makeBaton({ approveCommand });
  let r = await baton.nextStep({ template_name: 'bug-fix' });
  while (r.status === 'ok') r = await baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: output('s') });
  assert.equal(r.status, 'awaiting_approval');
  const waited = await baton.nextStep({ step_token: r.new_step_token! });
  assert.equal(waited.human_message, r.human_message, 'the wait answer names the same command');
  return { id: r.execution_id!, text: resultText(r) };
}

test('the awaiting_approval text carries the command with the execution id, or only the panel when no terminal can reach the database', async () => {
  const { id, text } = await gateText("baton approve --db '/tmp/my dir/b.db'");
  assert.ok(text.includes(`in the Baton panel, or with \`baton approve --db '/tmp/my dir/b.db' ${id}\``), text);
  const plain = await gateText('baton approve');
  assert.ok(plain.text.includes(`\`baton approve ${plain.id}\``), plain.text);
  const none = (await gateText(null)).text;
  assert.match(none, /\(in the Baton panel\)/);
  assert.ok(!none.includes('baton approve'));
});
