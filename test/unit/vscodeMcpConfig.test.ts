// Rule: "Copy MCP Config" produces configs the clients parse — JSON `mcpServers.baton` for Claude Code (stdio), Cursor
// and Gemini CLI (trusted), TOML `[mcp_servers.baton]` for Codex, OpenCode's `mcp.baton` (a local command array) —
// running `node <extension>/dist/cli.js mcp --workspace <folder>`;
// the launcher they name runs the CLI of the Baton installed now (so a config survives updates);
// artifact document URIs round-trip and pick the language; settings fall back to defaults when invalid (retention: whole
// numbers ≥ 0, where 0 turns a limit off).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { artifactExtension, artifactLanguage, artifactUriParts, fileNameOf, parseArtifactUri } from '../../src/vscode/artifactUri.js';
import { LAUNCHER_NAME, mcpConfigHint, mcpConfigText, writeLauncher } from '../../src/vscode/mcpConfig.js';
import { ROOT, ensureBuilt } from '../fixtures/mcp/cliHarness.js';
import { databasePath, readSettings } from '../../src/vscode/settings.js';

const target = { cliPath: '/ext/dist/cli.js', workspace: '/home/me/my "app"' };

describe('MCP config text', () => {
  it('gives Claude Code a stdio server in mcpServers', () => {
    const cfg = JSON.parse(mcpConfigText('claude', target));
    assert.deepEqual(cfg, { mcpServers: { baton: { type: 'stdio', command: 'node', args: ['/ext/dist/cli.js', 'mcp', '--workspace', '/home/me/my "app"'] } } });
  });

  it('gives Cursor the same server without a type, and passes --db when the database was moved', () => {
    const cfg = JSON.parse(mcpConfigText('cursor', { ...target, dbPath: '/data/b.db' }));
    assert.deepEqual(cfg.mcpServers.baton, { command: 'node', args: ['/ext/dist/cli.js', 'mcp', '--workspace', '/home/me/my "app"', '--db', '/data/b.db'] });
  });

  it('gives Gemini CLI the server trusted (else a headless run leaves its tools out), OpenCode one command array', () => {
    const args = ['/ext/dist/cli.js', 'mcp', '--workspace', '/home/me/my "app"'];
    assert.deepEqual(JSON.parse(mcpConfigText('gemini', target)), { mcpServers: { baton: { command: 'node', args, trust: true } } });
    assert.deepEqual(JSON.parse(mcpConfigText('opencode', target)), {
      $schema: 'https://opencode.ai/config.json', mcp: { baton: { type: 'local', command: ['node', ...args], enabled: true } },
    });
    assert.match(mcpConfigHint('gemini'), /project's \.gemini\/settings\.json/);
    assert.match(mcpConfigHint('opencode'), /project's opencode\.json/);
  });

  it('gives Codex a TOML table with escaped strings', () => {
    const text = mcpConfigText('codex', target);
    assert.equal(text, '[mcp_servers.baton]\ncommand = "node"\nargs = ["/ext/dist/cli.js", "mcp", "--workspace", "/home/me/my \\"app\\""]\nrequired = true\n');
  });
});

describe('the CLI launcher a copied config names', () => {
  it('runs the CLI it points at, is pointed at the new one after an update, and is not written by a refresh alone', () => {
    const storage = mkdtempSync(join(tmpdir(), 'baton-launcher-'));
    try {
      assert.equal(writeLauncher(storage, '/old/ext/dist/cli.js', true), join(storage, LAUNCHER_NAME));
      assert.equal(existsSync(join(storage, LAUNCHER_NAME)), false, 'a refresh writes no launcher where none was copied');
      const path = writeLauncher(storage, '/old/ext/dist/cli.js');
      assert.match(readFileSync(path, 'utf8'), /require\("\/old\/ext\/dist\/cli\.js"\);/);
      // The next version starts: the launcher now runs its CLI.
      ensureBuilt();
      writeLauncher(storage, join(ROOT, 'dist', 'cli.js'), true);
      const version = execFileSync(process.execPath, [path, '--version'], { encoding: 'utf8' }).trim();
      assert.match(version, /^\d+\.\d+\.\d+/);
    } finally {
      rmSync(storage, { recursive: true, force: true });
    }
  });
});

describe('artifact document URIs', () => {
  it('round-trips the artifact and execution ids', () => {
    const parts = artifactUriParts({ artifact_id: 'a-1', execution_id: 'e 1', title: 'Root cause: the/slash', type: 'design_doc' });
    assert.equal(parts.path, '/artifact/a-1/Root cause- the-slash.md');
    assert.deepEqual(parseArtifactUri(parts.path, parts.query), { artifactId: 'a-1', executionId: 'e 1' });
    assert.equal(parseArtifactUri('/other/x', ''), null);
  });

  it('opens yaml and json as themselves and every other type as markdown', () => {
    assert.equal(artifactLanguage('yaml'), 'yaml');
    assert.equal(artifactLanguage('json'), 'json');
    for (const t of ['code_review', 'design_doc', 'markdown', 'diagram']) assert.equal(artifactLanguage(t), 'markdown', t);
    assert.equal(artifactExtension('json'), 'json');
    assert.equal(fileNameOf(null, 'yaml'), 'yaml.yaml');
    assert.equal(fileNameOf('README.md', 'markdown'), 'README.md', 'no doubled extension');
    assert.equal(fileNameOf('config.json', 'markdown'), 'config.json.md');
  });
});

describe('settings', () => {
  it('uses the defaults when nothing is set', () => {
    const s = readSettings(() => undefined, '/ws');
    assert.equal(s.dbPath, '/ws/.baton/baton.db');
    assert.deepEqual(s.toolGroups, ['broker']);
    assert.equal(s.tokenTtlMs, 600_000);
    assert.equal(s.rateLimits.enabled, true);
    assert.equal(s.stallMinutes, 30);
    assert.deepEqual(s.retention, { days: 30, maxRuns: 1000, idleDays: 30 });
    assert.deepEqual(s.problems, []);
  });

  it('reads every setting and reports bad values instead of failing', () => {
    const values: Record<string, unknown> = {
      'database.path': 'data/b.db', 'mcp.toolGroups': ['broker', 'nope'], 'tokens.lifetimeMinutes': 5, 'rateLimits.enabled': false, 'stall.thresholdMinutes': -1,
    };
    const s = readSettings(<T>(k: string) => values[k] as T, '/ws');
    assert.equal(s.dbPath, '/ws/data/b.db');
    assert.deepEqual(s.toolGroups, ['broker']);
    assert.equal(s.tokenTtlMs, 300_000);
    assert.equal(s.rateLimits.enabled, false);
    assert.equal(s.stallMinutes, 30);
    assert.equal(s.problems.length, 2);
    assert.deepEqual(readSettings(<T>(k: string) => (k === 'mcp.toolGroups' ? ['all'] : undefined) as T, '/ws').toolGroups.length, 6);
    assert.equal(databasePath('/abs/x.db', '/ws'), '/abs/x.db');
  });

  it('reports a tool group misspelt beside "all", and a value that is not a list, as the CLI refuses them', () => {
    const groups = (value: unknown) => readSettings(<T>(k: string) => (k === 'mcp.toolGroups' ? value : undefined) as T, '/ws');
    const typo = groups(['all', 'lifecycel']);
    assert.deepEqual(typo.toolGroups, ['broker']);
    assert.deepEqual(typo.problems, ['baton.mcp.toolGroups: unknown tool group "lifecycel"; valid groups: broker, specs, lifecycle, content, memory, context (or "all"); using broker']);
    const text = groups('lifecycle');
    assert.deepEqual(text.toolGroups, ['broker']);
    assert.deepEqual(text.problems, ['baton.mcp.toolGroups must be a list such as ["broker", "lifecycle"] (got "lifecycle"); using broker']);
    assert.deepEqual(groups([]).problems, [], 'an empty list is the default, as the description says');
    assert.deepEqual(groups(['all', 'broker']).toolGroups.length, 6);
  });

  it('reads the retention limits: whole numbers ≥ 0 (0 turns a limit off); anything else is the default, reported', () => {
    const read = (days: unknown, maxRuns: unknown, idleDays: unknown = undefined) =>
      readSettings(<T>(k: string) => ({ 'retention.days': days, 'retention.maxRuns': maxRuns, 'retention.idleDays': idleDays } as Record<string, unknown>)[k] as T, '/ws');
    const good = read(7, 50, 90);
    assert.deepEqual(good.retention, { days: 7, maxRuns: 50, idleDays: 90 });
    assert.deepEqual(good.problems, []);
    const off = read(0, 0, 0);
    assert.deepEqual(off.retention, { days: 0, maxRuns: 0, idleDays: 0 }, '0 is a value (no limit), not a fallback');
    assert.deepEqual(off.problems, []);
    const bad: Array<[unknown, string]> = [[-1, '-1'], [2.5, '2.5'], ['30', '"30"'], [Number.NaN, 'null'], [Infinity, 'null'], [true, 'true']];
    for (const [value, shown] of bad) {
      const s = read(value, value, value);
      assert.deepEqual(s.retention, { days: 30, maxRuns: 1000, idleDays: 30 }, shown);
      assert.equal(s.problems.length, 3, shown);
      assert.match(s.problems[0]!, /^baton\.retention\.days must be a whole number ≥ 0.*using 30$/);
      assert.ok(s.problems[0]!.includes(`(got ${shown})`), s.problems[0]);
      assert.match(s.problems[1]!, /^baton\.retention\.maxRuns must be a whole number ≥ 0.*using 1000$/);
      assert.match(s.problems[2]!, /^baton\.retention\.idleDays must be a whole number ≥ 0.*using 30$/);
    }
    assert.deepEqual(read(undefined, 12).retention, { days: 30, maxRuns: 12, idleDays: 30 }, 'one limit set, the others their default');
  });
});
