// Rule: migration 002 applies cleanly to a v1 database that already holds data: old executions, findings and
// artifacts stay readable through the lifecycle tools, old findings become searchable, and nothing is lost.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Baton } from '../../src/core/baton.js';
import { DEFAULT_RATE_LIMITS } from '../../src/core/broker/rateLimiter.js';
import { silentLog } from '../../src/core/ports.js';
import { bundledContentDir } from '../../src/host/openBaton.js';
import { nodeCrypto, nodeFileSystem, randomIds } from '../../src/host/nodePorts.js';
import { loadMigrations } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/sqlJsStore.js';
import { FakeClock } from '../helpers/coreHarness.js';

const realMigrations = join(__dirname, '..', '..', 'src', 'store', 'migrations');

test('a v1 database with data opens at v2 with its data intact, searchable and inspectable', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-mig2-'));
  const v1 = mkdtempSync(join(tmpdir(), 'baton-v1-'));
  const db = join(dir, 'baton.db');
  try {
    copyFileSync(join(realMigrations, '001_init.sql'), join(v1, '001_init.sql'));
    const old = await openStore({ path: db, migrationsDir: v1, durability: 'write' });
    assert.equal(old.get<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'")!.value, '1');
    const t = '2025-12-01T00:00:00.000Z';
    await old.transaction(() => {
      old.run("INSERT INTO projects (name, path, created_at, updated_at) VALUES ('legacy', '/legacy', ?, ?)", [t, t]);
      old.run("INSERT INTO executions (execution_id, kind, template_name, task_id, project_id, status, started_at, updated_at) VALUES ('old-exec', 'template', 'bug-fix', 'old-task', 1, 'running', ?, ?)", [t, t]);
      old.run("INSERT INTO executions (execution_id, kind, template_name, project_id, status, started_at, updated_at) VALUES ('old-pending', 'template', 'bug-fix', 1, 'pending', ?, ?)", [t, t]);
      old.run("INSERT INTO steps (execution_id, step_name, agent_name, position, dependencies, status) VALUES ('old-exec', 'a', 'debugger', 0, '[]', 'completed')");
      old.run("INSERT INTO steps (execution_id, step_name, agent_name, position, dependencies, status) VALUES ('old-exec', 'b', 'implementer', 1, '[\"a\"]', 'running')");
      old.run("INSERT INTO findings (finding_id, execution_id, step_name, project_id, scope, severity, category, title, description, tags, created_at) VALUES ('f-old', 'old-exec', 'a', 1, 'project', 'high', 'security', 'Legacy marmot leak', 'found before the upgrade', '[\"legacy\"]', ?)", [t]);
      old.run("INSERT INTO findings (finding_id, execution_id, project_id, scope, severity, category, description, created_at) VALUES ('f-glob', 'old-exec', 1, 'global', 'low', 'docs', 'global marmot note', ?)", [t]);
      old.run("INSERT INTO artifacts (artifact_id, execution_id, step_name, artifact_type, title, content, created_at, content_size_bytes) VALUES ('a-old', 'old-exec', 'a', 'markdown', 'Notes', '# old', ?, 5)", [t]);
    });
    await old.close();

    const store = await openStore({ path: db, durability: 'write' });
    const baton = await Baton.create(
      { store, clock: new FakeClock(), ids: randomIds, crypto: nodeCrypto, log: silentLog, fs: nodeFileSystem },
      { workspacePath: dir, contentDirs: [bundledContentDir()], rateLimits: { ...DEFAULT_RATE_LIMITS, enabled: false } },
    );
    try {
      assert.equal(store.get<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'")!.value, String(loadMigrations(realMigrations).at(-1)!.version));
      const d = baton.lifecycle.details({ executionId: 'old-task', includeFindings: true, includeArtifacts: true });
      assert.equal(d.execution.id, 'old-exec');
      assert.equal(d.execution.createdAt, t);
      assert.equal(d.execution.startedAt, t);
      assert.deepEqual(d.steps!.map((s) => `${s.stepName}:${s.state}:${s.dependsOn.join(',')}`), ['a:completed:', `b:running:${d.steps![0]!.id}`]);
      assert.deepEqual(d.artifacts!.map((a) => `${a.name}:${a.encoding}:${a.content}`), ['Notes:utf8:# old']);
      assert.equal(baton.lifecycle.execution('old-pending').startedAt, null, 'a pending execution has not started');
      const found = baton.lifecycle.queryFindings({ searchText: 'marmot' });
      assert.deepEqual(found.findings.map((f) => `${f.id}:${f.isGlobal}`).sort(), ['f-glob:true', 'f-old:false']);
      assert.deepEqual(baton.lifecycle.queryFindings({ projectId: 1, searchText: 'legacy' }).findings.map((f) => f.id), ['f-old']);
      const fresh = await baton.lifecycle.storeFinding({ executionId: 'old-exec', severity: 'info', category: 'x', title: 'new marmot', description: 'after' });
      assert.equal(baton.lifecycle.queryFindings({ searchText: 'marmot' }).total, 3);
      assert.equal(fresh.projectId, 1);
      const legacy = baton.catalog.listProjects().projects.find((p) => p.path === '/legacy')!;
      assert.equal(legacy.isGitRepo, false);
      assert.equal(legacy.lastUsedAt, t);
      await baton.lifecycle.transition('old-pending', 'running');
      assert.equal(baton.lifecycle.incomplete('bug-fix').length, 2);
    } finally {
      await baton.close();
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(v1, { recursive: true, force: true });
  }
});
