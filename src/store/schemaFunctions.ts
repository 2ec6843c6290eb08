// The SQL functions Baton's schema itself calls (in triggers and views), registered on every connection that runs the
// migrations or writes the database: without them those statements fail with "no such function". (SQLite's check of
// a whole file reads the views too; the open's page check, per table, does not: loading.ts.)
import type { Database } from 'sql.js';

/**
 * A text as the full-text indexes read it: each NUL (U+0000) a space. FTS4 reads a text only up to its first NUL, so
 * the words after one were never indexed; SQLite's replace() cannot do this (a pattern that starts with a NUL counts
 * as empty), and sql.js hands a function the whole text, NULs included. Other values are returned as they are.
 */
export function ftsText(value: unknown): unknown {
  return typeof value === 'string' && value.includes('\0') ? value.replaceAll('\0', ' ') : value;
}

/** By name, as the migrations call them. */
export const SCHEMA_FUNCTIONS: Readonly<Record<string, (...args: any[]) => unknown>> = { baton_fts_text: ftsText };

/** Registers SCHEMA_FUNCTIONS on `db`. */
export function registerSchemaFunctions(db: Database): void {
  for (const [name, fn] of Object.entries(SCHEMA_FUNCTIONS)) db.create_function(name, fn);
}
