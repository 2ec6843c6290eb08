// Rule: a team's project MCP file (.codex/config.toml, .cursor/mcp.json) keeps the user's settings while it names Baton's server, holds no token, is restored byte for byte once the last agent using it is done (or deleted with the folder Baton made), is left alone when the user changed it meanwhile, and is recovered from the journal only when the process that wrote it is dead.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ProjectMcpConfig, projectConfigContent } from '../../src/host/worker/projectMcpConfig.js';

const warnings: string[] = [];
const log = { debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} };
const server = { name: 'baton', url: 'http://127.0.0.1:4000/mcp' };

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'baton-pmc-'));
  const cwd = join(dir, 'project');
  mkdirSync(cwd);
  return { dir, cwd, journal: join(dir, 'journal'), config: () => new ProjectMcpConfig(join(dir, 'journal'), log) };
}

test('codex: the user\'s file is kept under Baton\'s table and restored byte for byte after the last release', () => {
  const s = setup();
  mkdirSync(join(s.cwd, '.codex'));
  const original = Buffer.from('model = "o3"\r\n\u00e9');
  writeFileSync(join(s.cwd, '.codex', 'config.toml'), original);
  const c = s.config();
  const first = c.acquire('codex', s.cwd, server);
  const second = c.acquire('codex', s.cwd, server);
  const during = readFileSync(join(s.cwd, '.codex', 'config.toml'), 'utf8');
  assert.ok(during.startsWith('model = "o3"\r\n\u00e9\n'));
  assert.match(during, /\[mcp_servers\.baton\]\nurl = "http:\/\/127\.0\.0\.1:4000\/mcp"\nbearer_token_env_var = "BATON_MCP_TOKEN"\ndefault_tools_approval_mode = "approve"\nrequired = true\n/);
  first();
  first();
  assert.equal(readFileSync(join(s.cwd, '.codex', 'config.toml'), 'utf8'), during, 'still held by the second agent');
  second();
  assert.deepEqual(readFileSync(join(s.cwd, '.codex', 'config.toml')), original);
  assert.deepEqual(readdirSync(s.journal), []);
});

test('cursor: absent before → created with an env reference for the token, then deleted with its folder', () => {
  const s = setup();
  const release = s.config().acquire('cursor-agent', s.cwd, server);
  const json = JSON.parse(readFileSync(join(s.cwd, '.cursor', 'mcp.json'), 'utf8'));
  assert.deepEqual(json, { mcpServers: { baton: { url: server.url, headers: { Authorization: 'Bearer ${env:BATON_MCP_TOKEN}' } } } });
  release();
  assert.equal(existsSync(join(s.cwd, '.cursor')), false);
});

test('cursor: the user\'s servers stay; an unreadable file is replaced while held and put back', () => {
  const mine = JSON.parse(projectConfigContent('cursor-agent', Buffer.from('{"mcpServers":{"mine":{"command":"x"}},"other":1}'), server));
  assert.deepEqual(Object.keys(mine.mcpServers), ['mine', 'baton']);
  assert.equal(mine.other, 1);
  const s = setup();
  mkdirSync(join(s.cwd, '.cursor'));
  writeFileSync(join(s.cwd, '.cursor', 'mcp.json'), '{ not json');
  const release = s.config().acquire('cursor-agent', s.cwd, server);
  release();
  assert.equal(readFileSync(join(s.cwd, '.cursor', 'mcp.json'), 'utf8'), '{ not json');
});

test('a file the user changed while the team ran is left as it is (with a warning)', () => {
  const s = setup();
  const release = s.config().acquire('codex', s.cwd, server);
  writeFileSync(join(s.cwd, '.codex', 'config.toml'), 'edited by hand');
  release();
  assert.equal(readFileSync(join(s.cwd, '.codex', 'config.toml'), 'utf8'), 'edited by hand');
  assert.ok(warnings.some((w) => w.includes('was changed while a team ran')));
});

test('recover: entries of dead processes are restored, those of live ones are not; claude needs no file', () => {
  const s = setup();
  const c = s.config();
  c.acquire('codex', s.cwd, server);
  assert.deepEqual(s.config().recover(), [], 'this (live) process still holds it');
  const [entry] = readdirSync(s.journal);
  const path = join(s.journal, entry!);
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), pid: 2 ** 22 + 12345 }));
  assert.deepEqual(s.config().recover(), [join(s.cwd, '.codex', 'config.toml')]);
  assert.equal(existsSync(join(s.cwd, '.codex')), false);
  assert.deepEqual(readdirSync(s.journal), []);
  c.acquire('claude', s.cwd, server)();
  assert.deepEqual(readdirSync(s.cwd), []);
});
