// Types for scripts/vsixChecks.mjs, so the TypeScript tests can import it.
export const ICON_SIZE: number;
export const MAX_KEYWORDS: number;
export const CATEGORIES: string[];
export function checkManifest(m: Record<string, any>, entries: string[], readFile: (path: string) => Buffer): string[];
export function checkReadme(text: string, entries: string[]): string[];
export function pngSize(buf: Buffer): { width: number; height: number };
export function listZip(buf: Buffer): string[];
export function readZipEntry(buf: Buffer, name: string): Buffer;
