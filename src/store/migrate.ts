// Schema migrations: files `NNN_name.sql`, applied in order; the version lives in meta 'schema_version'.
//
// Bootstrapping: 001_init.sql creates `meta` itself, so a database without a `meta` table is at
// version 0. Each migration runs in its own transaction together with the version bump.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'sql.js';

/** One migration file. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const FILE = /^(\d+)_([A-Za-z0-9_.-]+)\.sql$/;

/**
 * Where the migrations are: `<dir of this code>/migrations` — src/store/migrations when run from
 * source, dist/migrations in the bundle (the build copies them there). Falls back to the source
 * tree next to dist/ so a bundle built without the copy still works inside the repository.
 */
export function defaultMigrationsDir(): string {
  const candidates = [join(__dirname, 'migrations'), join(__dirname, '..', 'src', 'store', 'migrations')];
  const found = candidates.find((dir) => existsSync(dir));
  if (!found) throw new Error(`Baton migrations not found (looked in ${candidates.join(', ')}); the build must copy src/store/migrations to dist/migrations`);
  return found;
}

/** The migrations in `dir`, in version order. */
export function loadMigrations(dir: string): Migration[] {
  const out: Migration[] = [];
  for (const file of readdirSync(dir)) {
    const m = FILE.exec(file);
    if (!m) continue;
    out.push({ version: Number(m[1]), name: file, sql: readFileSync(join(dir, file), 'utf8') });
  }
  out.sort((a, b) => a.version - b.version);
  for (let i = 1; i < out.length; i++) {
    if (out[i]!.version === out[i - 1]!.version) throw new Error(`two migrations with version ${out[i]!.version} in ${dir}`);
  }
  if (out.length === 0) throw new Error(`no migrations (NNN_name.sql) in ${dir}`);
  return out;
}

/**
 * The file beside the migrations that holds a database they made, as the build writes it (see schemaImage): a new
 * database starts as a copy of it instead of running every migration (150–170 ms in a new process; a first `baton
 * mcp` answers the handshake's lists about 55 ms sooner, the rest of the difference going to SQLite's first calls).
 */
export const SCHEMA_IMAGE = 'schema.db';

/** A new database with every migration applied, as bytes: what the build writes as SCHEMA_IMAGE. */
export function schemaImage(db: Database, migrations: readonly Migration[]): Uint8Array {
  applyMigrations(db, migrations);
  return db.export();
}

/** The built schema image in `dir`, or null when there is none (run from source, an older build). */
export function readSchemaImage(dir: string): Buffer | null {
  try {
    return readFileSync(join(dir, SCHEMA_IMAGE));
  } catch {
    return null;
  }
}

/** The schema version recorded in the database (0 for a fresh one). */
export function schemaVersion(db: Database): number {
  const hasMeta = db.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
  if (hasMeta.length === 0) return 0;
  const rows = db.exec("SELECT value FROM meta WHERE key = 'schema_version'");
  const v = rows[0]?.values[0]?.[0];
  return v === undefined || v === null ? 0 : Number(v);
}

/** Applies every migration newer than the database; returns how many ran. */
export function applyMigrations(db: Database, migrations: readonly Migration[]): number {
  const current = schemaVersion(db);
  let applied = 0;
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.exec('BEGIN');
    try {
      db.exec(m.sql);
      db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)", [String(m.version)]);
      db.exec('COMMIT');
    } catch (ex) {
      db.exec('ROLLBACK');
      throw new Error(`migration ${m.name} failed: ${ex instanceof Error ? ex.message : String(ex)}`);
    }
    applied++;
  }
  return applied;
}
