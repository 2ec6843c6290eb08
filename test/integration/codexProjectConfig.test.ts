// Rule: the MCP config "Copy MCP Config for Codex" hands out names this workspace, so the hint sends it to the
// project's .codex/config.toml rather than the global one; the real Codex CLI (from npm) reads it there once the
// project is trusted, as the server the config describes, and not in another project or before it is trusted.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ensureAgentClis } from '../../scripts/agentClis.mjs';
import { mcpConfigHint, mcpConfigText } from '../../src/vscode/mcpConfig.js';

const run = promisify(execFile);

describe("Codex reads the copied config from the project's .codex/config.toml", { timeout: 5 * 60_000 }, () => {
  let codex = '';
  let root = '';
  let home = '';
  let project = '';
  let other = '';
  const listed = async (cwd: string) => {
    const { stdout } = await run(codex, ['mcp', 'list', '--json'], { cwd, env: { ...process.env, CODEX_HOME: home }, timeout: 60_000 });
    return JSON.parse(stdout) as Array<{ name: string; enabled: boolean; transport: { type: string; command: string; args: string[] } }>;
  };

  before(async () => {
    codex = (await ensureAgentClis()).codex;
    root = mkdtempSync(join(tmpdir(), 'baton-codex-config-'));
    home = join(root, 'codex-home');
    project = join(root, 'my app');
    other = join(root, 'other');
    for (const d of [home, join(project, '.codex'), other]) mkdirSync(d, { recursive: true });
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('the hint names the project file', () => {
    assert.match(mcpConfigHint('codex'), /project's \.codex\/config\.toml/);
    assert.doesNotMatch(mcpConfigHint('codex'), /~\/\.codex/);
  });

  it('pasted there, a trusted project lists the server it describes; an untrusted one and another project do not', async () => {
    const target = { cliPath: join(root, 'storage', 'baton-cli.js'), workspace: project };
    writeFileSync(join(project, '.codex', 'config.toml'), mcpConfigText('codex', target));
    assert.deepEqual(await listed(project), [], 'not before the project is trusted');
    writeFileSync(join(home, 'config.toml'), `[projects.${JSON.stringify(project)}]\ntrust_level = "trusted"\n`);
    const servers = await listed(project);
    assert.deepEqual(servers.map((s) => [s.name, s.enabled, s.transport.type, s.transport.command, s.transport.args]), [
      ['baton', true, 'stdio', 'node', [target.cliPath, 'mcp', '--workspace', project]],
    ]);
    assert.deepEqual(await listed(other), [], 'another project does not get this workspace\'s Baton');
  });
});
