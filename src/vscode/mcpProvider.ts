// Registers the owner's HTTP endpoint with the editor's MCP client (Copilot agent mode sees Baton's tools).
import * as vscode from 'vscode';
import type { Log } from '../core/ports.js';
import type { BatonConnection } from './ownership.js';

/** The provider id (matches `contributes.mcpServerDefinitionProviders`). */
export const MCP_PROVIDER_ID = 'baton';

/** The editor's definition of Baton's server for an endpoint. */
function definition(url: string, token: string, version: string): vscode.McpHttpServerDefinition {
  return new vscode.McpHttpServerDefinition('Baton', vscode.Uri.parse(url), { Authorization: `Bearer ${token}` }, version);
}

/** Registers the provider when the editor has the MCP API (1.101+); announces a new definition when the endpoint changes; `onProvided` hears each definition handed out. */
export function registerMcpProvider(connection: BatonConnection, version: string, log: Log, onProvided: (url: string) => void = () => undefined): vscode.Disposable {
  if (typeof vscode.lm?.registerMcpServerDefinitionProvider !== 'function') {
    log.info('this editor has no MCP server provider API (VS Code 1.101+); agents connect with "Copy MCP Config"');
    return new vscode.Disposable(() => undefined);
  }
  const changed = new vscode.EventEmitter<void>();
  let announced = '';
  // Whether the editor was told there is no server (the database failed, or another process held it): once ready, the
  // editor must hear of the endpoint, or it lists no Baton server until a reload.
  let providedNone = false;
  const watch = connection.onDidChange(() => {
    const { url, token } = connection.endpoint();
    const key = `${url} ${token}`;
    if (connection.state !== 'ready' || key === announced) return;
    const first = announced === '' && !providedNone;
    announced = key;
    providedNone = false;
    if (!first) {
      log.info(`MCP endpoint changed to ${url}; telling the editor`);
      changed.fire();
    }
  });
  const registration = vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
    onDidChangeMcpServerDefinitions: changed.event,
    async provideMcpServerDefinitions() {
      try {
        const { url, token } = (await connection.ready()).endpoint();
        log.info(`MCP server definition provided: ${url}`);
        onProvided(url);
        return [definition(url, token, version)];
      } catch (ex) {
        log.warn('no MCP server definition: Baton did not start', ex);
        providedNone = true;
        return [];
      }
    },
    async resolveMcpServerDefinition(server) {
      // The endpoint may have moved since the definition was handed out (ownership changed hands).
      const { url, token } = (await connection.ready()).endpoint();
      log.info(`the editor starts Baton's MCP server (${server.label}) at ${url}`);
      return definition(url, token, version);
    },
  });
  return vscode.Disposable.from(registration, watch, changed);
}
