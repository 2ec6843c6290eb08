// Registers the owner's HTTP endpoint with the editor's MCP client (Copilot agent mode sees Baton's tools).
import * as vscode from 'vscode';
import type { BatonConnection } from './ownership.js';

/** The provider id (matches `contributes.mcpServerDefinitionProviders`). */
export const MCP_PROVIDER_ID = 'baton';

/** The editor's definition of Baton's server for an endpoint. */
function definition(url: string, token: string, version: string): vscode.McpHttpServerDefinition {
  return new vscode.McpHttpServerDefinition('Baton', vscode.Uri.parse(url), { Authorization: `Bearer ${token}` }, version);
}

/** Registers the provider when the editor has the MCP API (1.101+); announces a new definition when the endpoint changes. */
export function registerMcpProvider(connection: BatonConnection, version: string): vscode.Disposable {
  if (typeof vscode.lm?.registerMcpServerDefinitionProvider !== 'function') return new vscode.Disposable(() => undefined);
  const changed = new vscode.EventEmitter<void>();
  let announced = '';
  const watch = connection.onDidChange(() => {
    const { url, token } = connection.endpoint();
    const key = `${url} ${token}`;
    if (connection.state !== 'ready' || key === announced) return;
    const first = announced === '';
    announced = key;
    if (!first) changed.fire();
  });
  const registration = vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
    onDidChangeMcpServerDefinitions: changed.event,
    async provideMcpServerDefinitions() {
      try {
        const { url, token } = (await connection.ready()).endpoint();
        return [definition(url, token, version)];
      } catch {
        return [];
      }
    },
    async resolveMcpServerDefinition(server) {
      // The endpoint may have moved since the definition was handed out (ownership changed hands).
      const { url, token } = (await connection.ready()).endpoint();
      return definition(url, token, version) ?? server;
    },
  });
  return vscode.Disposable.from(registration, watch, changed);
}
