// Rule: the panel page runs under a strict CSP — nothing by default, scripts and styles only by nonce or from the
// extension's own resources — with no inline script, and escapes whatever it interpolates. Its tab title names the run
// (workflow and task), so the tabs of two runs of one workflow differ.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { makeNonce, panelCsp, panelHtml, panelTitle } from '../../src/vscode/panels/panelHtml.js';

const input = {
  cspSource: 'https://x.vscode-cdn.net', nonce: 'abc123NONCE', scriptUri: 'https://x.vscode-cdn.net/dist/webview/main.js',
  codiconsUri: 'https://x.vscode-cdn.net/dist/codicons/codicon.css', title: 'Baton: <bug-fix>',
};

test('the CSP allows nothing by default and scripts only by nonce or from the webview source', () => {
  const csp = panelCsp(input.cspSource, input.nonce);
  assert.equal(csp, "default-src 'none'; script-src 'nonce-abc123NONCE' https://x.vscode-cdn.net; style-src https://x.vscode-cdn.net 'nonce-abc123NONCE'; font-src https://x.vscode-cdn.net; img-src https://x.vscode-cdn.net data:");
  assert.ok(!csp.includes('unsafe'));
});

test('the page has the CSP meta, one script with the nonce and a src, and no inline script or style', () => {
  const html = panelHtml(input);
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;nonce-abc123NONCE&#39;/);
  const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
  assert.equal(scripts.length, 1);
  assert.match(scripts[0]![1]!, /nonce="abc123NONCE"/);
  assert.match(scripts[0]![1]!, /src="https:\/\/x\.vscode-cdn\.net\/dist\/webview\/main\.js"/);
  assert.equal(scripts[0]![2]!.trim(), '', 'no inline script');
  assert.ok(!/<style|\sstyle=|\son\w+=/.test(html), 'no inline style or handler');
  assert.match(html, /<link rel="stylesheet" href="https:\/\/x\.vscode-cdn\.net\/dist\/codicons\/codicon\.css" id="vscode-codicon-stylesheet"/);
  assert.ok(html.includes('Baton: &#60;bug-fix&#62;') && !html.includes('<bug-fix>'), 'title escaped');
});

test('nonces are 32 alphanumeric characters and differ between loads', () => {
  const a = makeNonce((n) => randomBytes(n));
  const b = makeNonce((n) => randomBytes(n));
  assert.match(a, /^[A-Za-z0-9]{32}$/);
  assert.notEqual(a, b);
});

test('the tab title names the workflow and the task (clipped), so two runs of one workflow have different tabs', () => {
  const a = panelTitle({ workflow: 'bug-fix', executionId: 'e1', taskDescription: 'Fix the cart total rounding when a coupon applies twice' });
  const b = panelTitle({ workflow: 'bug-fix', executionId: 'e2', taskDescription: 'Fix the login redirect loop' });
  assert.equal(a, 'Baton: bug-fix “Fix the cart total rounding when a coup…”');
  assert.equal(b, 'Baton: bug-fix “Fix the login redirect loop”');
  assert.equal(panelTitle({ workflow: 'bug-fix', executionId: 'e1', taskDescription: null }), 'Baton: bug-fix');
  assert.equal(panelTitle({ workflow: null, executionId: 'e1', taskDescription: null }), 'Baton: e1');
});
