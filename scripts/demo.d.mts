// Types for scripts/demo.mjs, so the TypeScript tests can import it.
export function demoFolder(env?: Record<string, string | undefined>): string;
export function prepareDemo(folder: string, options?: { log?: (line: string) => void }): { folder: string; git: 'initialized' | 'present' | 'unavailable' };
export const START_SETTINGS: Record<string, unknown>;
export function writeStartSettings(file: string): void;
