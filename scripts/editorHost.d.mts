// Types for scripts/editorHost.mjs, so the TypeScript test harness can import it.
export interface EditorHostPaths {
  node: string;
  nodeDir: string;
  codeServerDir: string;
  codeServer: string;
  serverMain: string;
  chromium: string | null;
}
export function editorHostPaths(): EditorHostPaths;
export function ensureEditorHost(options?: { log?: (line: string) => void }): Promise<EditorHostPaths & { chromium: string }>;
export function ensureChromium(options?: { log?: (line: string) => void }): string;
