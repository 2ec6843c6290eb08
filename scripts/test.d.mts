// Types for scripts/test.mjs, so the TypeScript tests can import it.
export type TestNeed = 'editor-host' | 'chromium' | 'nothing';
export function findTests(folders: string[]): string[];
export function isEditorTest(file: string): boolean;
export function testNeeds(files: string[], read?: (file: string) => string): TestNeed;
export function main(
  folders: string[],
  hooks?: { install?: (need: TestNeed) => Promise<void>; run?: (files: string[], concurrency: number) => number },
): Promise<number>;
