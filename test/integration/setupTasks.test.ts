// Rule: a team's setup commands are the workflow's own shell text; a `${{ }}` value (an earlier task's output, an
// env.* value) reaches the command only as a quoted environment variable, so the shell never parses it — quotes,
// `$(…)`, `;` and newlines in a value stay data. Unknown variables, failures and timeouts stop the setup clearly (a
// command not installed says so, and what to do).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import { interpolate } from '../../src/core/worker/workflowVariables.js';
import { runSetup, shellCommand } from '../../src/host/worker/setupTasks.js';

const cwd = mkdtempSync(join(tmpdir(), 'baton-setup-'));
after(() => rmSync(cwd, { recursive: true, force: true }));
const run = (tasks: { shell: string; as?: string }[], base: Record<string, string> = {}, opts: { timeoutMs?: number; env?: Record<string, string> } = {}) =>
  runSetup(tasks, { cwd, base, expand: interpolate, ...opts });

describe('team setup commands', () => {
  it('passes an earlier output to a later command as data, never as shell code', async () => {
    const hostile = `x'; touch pwned; echo "$(touch pwned2)" \`touch pwned3\`\nsecond line`;
    const out = await run([
      { shell: `printf '%s' "$HOSTILE"`, as: 'diff' },
      { shell: 'printf "%s|" ${{ diff }} ${{ workflow.instance }}', as: 'bare' },
      { shell: 'printf "%s|" "<${{ diff }}>" \'<${{ diff }}>\' x${{ workflow.instance }}y', as: 'quoted' },
    ], { 'workflow.instance': 'pr 1' }, { env: { HOSTILE: hostile } });
    assert.equal(out.diff, hostile);
    assert.equal(out.bare, `${hostile}|pr 1|`, 'each value is one word, spaces and newlines kept');
    assert.equal(out.quoted, `<${hostile}>|<${hostile}>|xpr 1y|`, 'inside double quotes, single quotes and a word');
    assert.equal(existsSync(join(cwd, 'pwned')) || existsSync(join(cwd, 'pwned2')) || existsSync(join(cwd, 'pwned3')), false);
  });

  it('writes each used variable once, quoted for where it stands, and nothing else into the environment', () => {
    const { command, env } = shellCommand('a ${{ x }} b "${{ y }}" c \'${{x}}\' \\"${{ x }}', { x: '1', y: '2', 'env.HOME': '/h' }, interpolate, 'setup[0].shell');
    assert.equal(command, 'a "$BATON_VAR_1" b "${BATON_VAR_2}" c \'\'"$BATON_VAR_1"\'\' \\""$BATON_VAR_1"');
    assert.deepEqual(env, { BATON_VAR_1: '1', BATON_VAR_2: '2' });
  });

  it('refuses an unknown variable before running anything, naming the known ones', () => {
    assert.throws(() => shellCommand('echo ${{ nope }}', { x: '1' }, interpolate, 'setup[1].shell'),
      (ex: unknown) => BatonError.is(ex, 'invalid_input') && /setup\[1\]\.shell: unknown variable \$\{\{ nope \}\}; known: x/.test(ex.message));
  });

  it('stops on a failing command with its standard error, and on a command that runs too long', async () => {
    await assert.rejects(run([{ shell: 'echo broken >&2; exit 3' }]), (ex: unknown) => BatonError.is(ex, 'invalid_state') && /failed with exit code 3:\nbroken/.test(ex.message));
    await assert.rejects(run([{ shell: 'baton-no-such-tool --version' }]), (ex: unknown) => BatonError.is(ex, 'invalid_state') &&
      /failed with exit code 127 \(no such command here: install it, or take this step out of the workflow file\):\n.*not found/.test(ex.message));
    await assert.rejects(run([{ shell: 'sleep 5' }], {}, { timeoutMs: 300 }), (ex: unknown) => BatonError.is(ex, 'invalid_state') && /did not finish within 0\.3 s/.test(ex.message));
  });
});
