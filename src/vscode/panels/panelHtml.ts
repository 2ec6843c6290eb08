// The execution panel's HTML: a strict CSP with a per-load nonce, no inline script, the bundled script and codicons
// loaded from the extension. Pure (no 'vscode'), so the policy is unit-tested.
import { runName } from '../../shared/labels.js';
import type { PanelState } from '../../shared/protocol.js';

/** What the page needs from the webview host. */
export interface PanelHtmlInput {
  /** `webview.cspSource`. */
  cspSource: string;
  /** A fresh random nonce for this load. */
  nonce: string;
  /** `webview.asWebviewUri(dist/webview/main.js)`. */
  scriptUri: string;
  /** `webview.asWebviewUri(dist/codicons/codicon.css)`. */
  codiconsUri: string;
  /** Shown until the script renders. */
  title: string;
}

/** A nonce of 32 characters from [A-Za-z0-9], from the given random bytes source. */
export function makeNonce(randomBytes: (n: number) => Uint8Array): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(32), (b) => chars[b % chars.length]).join('');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The Content-Security-Policy of the panel. */
export function panelCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}' ${cspSource}`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
  ].join('; ');
}

/**
 * The page: CSP meta, the codicon stylesheet (id the elements' icon component looks for), a root, the live region the
 * script announces a run's changes in (there from the start, so a screen reader follows it), the script.
 */
export function panelHtml(input: PanelHtmlInput): string {
  const { cspSource, nonce, scriptUri, codiconsUri, title } = input;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(panelCsp(cspSource, nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeHtml(codiconsUri)}" id="vscode-codicon-stylesheet" nonce="${nonce}">
<title>${escapeHtml(title)}</title>
</head>
<body>
<main id="root" data-testid="panel-root" aria-busy="true"><p class="loading">Loading ${escapeHtml(title)}…</p></main>
<div id="announcer" data-testid="announcer" class="visually-hidden" role="status" aria-live="polite" aria-atomic="true"></div>
<script nonce="${nonce}" src="${escapeHtml(scriptUri)}"></script>
</body>
</html>
`;
}

/** How many characters of the task a panel's tab title shows. */
export const TITLE_TASK_CHARS = 40;

/** The panel's tab title: the workflow and the task it runs on (clipped), so the tabs of two runs differ. */
export function panelTitle(state: Pick<PanelState, 'workflow' | 'executionId' | 'taskDescription'>): string {
  return `Baton: ${state.workflow === null ? state.executionId : runName(state.workflow, state.taskDescription, TITLE_TASK_CHARS)}`;
}
