// The schema image the build writes beside the migrations (migrate.ts, SCHEMA_IMAGE): a database that every migration
// was applied to, by this bundle's sql.js, so that a new database can start as a copy of it.
import { defaultWasmPath, loadSqlJs } from './loading.js';
import { defaultMigrationsDir, loadMigrations, schemaImage } from './migrate.js';

/** The bytes of a new database with every migration of `migrationsDir` applied. */
export async function buildSchemaImage(migrationsDir = defaultMigrationsDir(), wasmPath = defaultWasmPath()): Promise<Uint8Array> {
  const SQL = await loadSqlJs(wasmPath);
  const db = new SQL.Database();
  try {
    return schemaImage(db, loadMigrations(migrationsDir));
  } finally {
    db.close();
  }
}
