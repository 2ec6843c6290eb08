// Rule: the editor's MCP client always learns Baton's current endpoint: when it moves (ownership changed hands), and
// when the editor was handed no server earlier (the database failed to open, or another process held it) and the
// connection is ready now, with no reload.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { before, beforeEach, describe, it } from 'node:test';
import type { Log } from '../../src/core/ports.js';
import type { BatonConnection, ConnectionState } from '../../src/vscode/ownership.js';
import { fakeVscode } from '../helpers/fakeVscode.js';

const log: Log = { debug() {}, info() {}, warn() {}, error() {} };

type Provider = {
  onDidChangeMcpServerDefinitions: (listener: () => void) => { dispose(): void };
  provideMcpServerDefinitions(): Promise<Array<{ uri: string }>>;
};

// The editor's MCP API (1.101+), which the shared fake lacks; set before mcpProvider.ts loads, which reads the module
// as it is then.
let provider: Provider | undefined;
Object.assign(fakeVscode, {
  lm: { registerMcpServerDefinitionProvider: (_id: string, p: Provider) => ((provider = p), { dispose() {} }) },
  McpHttpServerDefinition: class {
    constructor(readonly label: string, readonly uri: string) {}
  },
  Uri: { parse: (s: string) => s },
});
let registerMcpProvider: typeof import('../../src/vscode/mcpProvider.js').registerMcpProvider;

/** A connection as the provider sees it: a state, an endpoint, ready(), and its change event. */
interface FakeConnection {
  state: ConnectionState;
  url: string;
  waiters: Array<() => void>;
  endpoint(): { url: string; token: string };
  ready(): Promise<{ endpoint: () => { url: string; token: string } }>;
  onDidChange: unknown;
  become(state: ConnectionState, url?: string): void;
}

function fakeConnection(): FakeConnection {
  const changed = new fakeVscode.EventEmitter<void>();
  const c: FakeConnection = {
    state: 'starting' as ConnectionState,
    url: '',
    endpoint: () => ({ url: c.url, token: 't' }),
    waiters: [] as Array<() => void>,
    // As BatonConnection's: a source once ready, a wait while starting, the reason while it failed or waits.
    ready: async () => {
      if (c.state === 'starting') await new Promise<void>((r) => c.waiters.push(r));
      if (c.state !== 'ready') throw new Error('held by process 42');
      return { endpoint: c.endpoint };
    },
    onDidChange: changed.event,
    become(state: ConnectionState, url = c.url) {
      c.state = state;
      c.url = url;
      changed.fire();
      if (state !== 'starting') for (const w of c.waiters.splice(0)) w();
    },
  };
  return c;
}

describe('the MCP server definition provider', () => {
  before(async () => {
    ({ registerMcpProvider } = await import('../../src/vscode/mcpProvider.js'));
  });
  beforeEach(() => {
    provider = undefined;
  });

  it('announces the endpoint once ready when it handed out none while the database was held', async () => {
    const c = fakeConnection();
    const registration = registerMcpProvider(c as unknown as BatonConnection, '0.0.0-test', log);
    let announced = 0;
    provider!.onDidChangeMcpServerDefinitions(() => announced++);
    c.become('waiting');
    assert.deepEqual(await provider!.provideMcpServerDefinitions(), []);
    c.become('ready', 'http://127.0.0.1:5000/mcp');
    assert.equal(announced, 1, 'the editor is told to ask again');
    assert.deepEqual((await provider!.provideMcpServerDefinitions()).map((d) => d.uri), ['http://127.0.0.1:5000/mcp']);
    registration.dispose();
  });

  it('does not announce the first endpoint the editor already got, and announces one that moved', async () => {
    const c = fakeConnection();
    const registration = registerMcpProvider(c as unknown as BatonConnection, '0.0.0-test', log);
    let announced = 0;
    provider!.onDidChangeMcpServerDefinitions(() => announced++);
    const first = provider!.provideMcpServerDefinitions();
    c.become('ready', 'http://127.0.0.1:5000/mcp');
    assert.deepEqual((await first).map((d) => d.uri), ['http://127.0.0.1:5000/mcp']);
    assert.equal(announced, 0);
    c.become('starting');
    c.become('ready', 'http://127.0.0.1:6000/mcp');
    assert.equal(announced, 1);
    registration.dispose();
  });
});
