// `baton:/artifact/<artifact_id>/<title>.<ext>?execution=<execution_id>`: read-only artifact documents whose file
// extension picks the language mode. No 'vscode' import (unit-tested).

/** The URI scheme of artifact documents. */
export const ARTIFACT_SCHEME = 'baton';

/** The language mode of an artifact type: yaml and json as themselves, everything else markdown. */
export function artifactLanguage(type: string): 'markdown' | 'yaml' | 'json' {
  return type === 'yaml' || type === 'json' ? type : 'markdown';
}

/** The file extension of an artifact type. */
export function artifactExtension(type: string): string {
  const lang = artifactLanguage(type);
  return lang === 'markdown' ? 'md' : lang;
}

/** A title usable as a file name (no slashes or control characters; never empty). */
export function fileNameOf(title: string | null, type: string): string {
  const base = (title ?? '').replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '-').replace(/\s+/g, ' ').trim().slice(0, 80) || type;
  const ext = artifactExtension(type);
  return base.toLowerCase().endsWith(`.${ext}`) ? base : `${base}.${ext}`;
}

/** The path and query of an artifact's document URI. */
export function artifactUriParts(a: { artifact_id: string; execution_id: string; title: string | null; type: string }): { path: string; query: string } {
  return { path: `/artifact/${encodeURIComponent(a.artifact_id)}/${fileNameOf(a.title, a.type)}`, query: `execution=${encodeURIComponent(a.execution_id)}` };
}

/** The artifact id and execution id of a document URI's path and query, or null when it names no artifact. */
export function parseArtifactUri(path: string, query: string): { artifactId: string; executionId?: string } | null {
  const m = /^\/artifact\/([^/]+)\/[^/]+$/.exec(path);
  if (!m) return null;
  const execution = new URLSearchParams(query).get('execution') ?? undefined;
  return { artifactId: decodeURIComponent(m[1]!), executionId: execution || undefined };
}
