// Where the database lives when nobody says otherwise.
import { join, resolve } from 'node:path';

/** `--db` flag, else BATON_DB_PATH, else `<workspace or cwd>/.baton/baton.db` (absolute). */
export function resolveDbPath(opts: { db?: string; env?: NodeJS.ProcessEnv; workspace?: string }): string {
  const env = opts.env ?? process.env;
  if (opts.db) return resolve(opts.db);
  const fromEnv = env.BATON_DB_PATH;
  if (fromEnv) return resolve(fromEnv);
  return join(resolve(opts.workspace ?? process.cwd()), '.baton', 'baton.db');
}

/** The journal beside a database: `X/baton.db` → `X/baton.journal`. */
export function journalPathOf(dbPath: string): string {
  return dbPath.endsWith('.db') ? `${dbPath.slice(0, -3)}.journal` : `${dbPath}.journal`;
}
