// Types for scripts/sqljsPatch.mjs, so the TypeScript tests can import it.
export function patchSqlJs(source: string): { code: string; applied: boolean };
export function sqlJsPatchPlugin(): { name: string; setup(build: unknown): void };
export function bundleLikeDist(entry: string, dir: string, options?: { patchSqlJs?: boolean }): Promise<string>;
