// Types for scripts/test.mjs, so the TypeScript tests can import it.
export type TestNeed = 'editor-host' | 'chromium' | 'nothing';
export function findTests(folders: string[]): string[];
export function isEditorTest(file: string): boolean;
export function testNeeds(files: string[], read?: (file: string) => string): TestNeed;
export function needsAgentClis(files: string[], read?: (file: string) => string): boolean;
export function othersConcurrency(cores?: number): number;
export function testEnv(tmp: string, env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
export function typeScriptLoader(features?: { require_module?: boolean }): string[];
export function main(
  folders: string[],
  hooks?: {
    install?: (need: TestNeed) => Promise<void>;
    installAgentClis?: () => Promise<unknown>;
    run?: (files: string[], concurrency: number, tmp: string) => number | Promise<number>;
    scratch?: { make: () => string; remove: (dir: string) => void };
    failed?: (tmp: string) => string[];
    say?: (line: string) => void;
  },
): Promise<number>;
