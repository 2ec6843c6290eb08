// Read-only `baton:` documents for artifacts, opened in an editor tab with the artifact type's language mode.
import * as vscode from 'vscode';
import type { ArtifactRecord } from '../core/api.js';
import { ARTIFACT_SCHEME, artifactLanguage, artifactUriParts, parseArtifactUri } from './artifactUri.js';
import type { BatonConnection } from './ownership.js';
import { targetOf } from './pickers.js';
import type { Services } from './services.js';
import { runName } from '../shared/labels.js';

/** The document URI of an artifact. */
export function artifactUri(a: Pick<ArtifactRecord, 'artifact_id' | 'execution_id' | 'title' | 'type'>): vscode.Uri {
  const { path, query } = artifactUriParts(a);
  return vscode.Uri.from({ scheme: ARTIFACT_SCHEME, path, query });
}

/** Serves artifact content (artifacts are immutable, so a document never changes). */
export function registerArtifactDocuments(connection: BatonConnection): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(ARTIFACT_SCHEME, {
    async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
      const ref = parseArtifactUri(uri.path, uri.query);
      if (!ref) return `Not a Baton artifact: ${uri.toString()}`;
      const a = await connection.artifact(ref.artifactId);
      return a ? a.content : `Artifact ${ref.artifactId} was not found in this workspace's Baton database.`;
    },
  });
}

/** `baton.openArtifact`: a tree node, an artifact id (from the panel), or a pick among recent artifacts. */
export async function openArtifact(s: Services, arg?: unknown): Promise<void> {
  const t = typeof arg === 'string' ? { artifactId: arg, executionId: undefined } : targetOf(arg);
  const artifactId = t.artifactId;
  let a: ArtifactRecord | undefined;
  if (artifactId) {
    a = await s.connection.artifact(artifactId);
    if (!a) throw new Error(`artifact ${artifactId} was not found`);
  } else {
    a = await pickArtifact(s.connection);
  }
  if (!a) return;
  const doc = await vscode.workspace.openTextDocument(artifactUri(a));
  const lang = artifactLanguage(a.type);
  const shown = doc.languageId === lang ? doc : await vscode.languages.setTextDocumentLanguage(doc, lang);
  await vscode.window.showTextDocument(shown, { preview: false });
}

async function pickArtifact(connection: BatonConnection): Promise<ArtifactRecord | undefined> {
  const { artifacts } = await connection.artifacts({ type: 'recent', limit: 100 });
  if (artifacts.length === 0) {
    void vscode.window.showInformationMessage(
      'Baton: no artifacts yet. A step\'s artifacts are kept once its agent submits it (or you do, with "Baton: Advance Step..."); ' +
        'start a run with "Baton: Start Workflow...".',
    );
    return undefined;
  }
  // Runs by their workflow and task, as the tree names them (an execution id told two runs apart for no one).
  const runs = new Map((await connection.listExecutions({ limit: 500 })).map((e) => [e.execution_id, runName(e.workflow ?? e.kind, e.task_description)]));
  const picked = await vscode.window.showQuickPick(
    artifacts.map((a) => ({
      label: a.title ?? a.type,
      description: [a.step_name, a.type, a.is_final ? 'final' : ''].filter(Boolean).join(' · '),
      detail: `${runs.get(a.execution_id) ?? `run ${a.execution_id}`} · ${a.created_at.slice(0, 16).replace('T', ' ')}`,
      a,
    })),
    { title: 'Baton: Open Artifact', placeHolder: 'Choose an artifact (newest first)', matchOnDescription: true, matchOnDetail: true },
  );
  return picked?.a;
}
