// A fake of the few 'vscode' members the editor's tree provider and notifications touch, so a unit test can load
// src/vscode files that import 'vscode' (only the editor host provides it). Importing this file installs it: import
// it before any src/vscode file. A member the code under test reaches and this fake lacks fails the test loudly.
import Module from 'node:module';

/** One message the fake window showed, with its buttons. */
export interface ShownMessage {
  level: 'info' | 'warning' | 'error';
  message: string;
  items: string[];
}

/** What the fake window showed, and the person's answer to each message (undefined: dismissed). */
export const fakeWindow = {
  shown: [] as ShownMessage[],
  /** The items of each quick pick shown. */
  picks: [] as unknown[][],
  answer: (_shown: ShownMessage): string | undefined => undefined,
  /** The person's choice in a quick pick (undefined: dismissed). */
  choose: (_items: unknown[]): unknown => undefined,
  /** The options of each input box shown. */
  inputs: [] as Array<Record<string, unknown>>,
  /** What the person types in an input box (undefined: dismissed). */
  type: (_options: Record<string, unknown>): string | undefined => undefined,
  /** The status-bar items created, as they are now. */
  statusItems: [] as FakeStatusItem[],
};

/** A status-bar item: what it says and whether it is shown. */
export interface FakeStatusItem {
  text: string;
  tooltip?: string;
  name?: string;
  command?: unknown;
  visible: boolean;
  show(): void;
  hide(): void;
  dispose(): void;
}

function createStatusBarItem(): FakeStatusItem {
  const item: FakeStatusItem = {
    text: '', visible: false,
    show: () => void (item.visible = true), hide: () => void (item.visible = false), dispose: () => void (item.visible = false),
  };
  fakeWindow.statusItems.push(item);
  return item;
}

function show(level: ShownMessage['level']) {
  return async (message: string, ...items: unknown[]): Promise<string | undefined> => {
    const shown = { level, message, items: items.filter((i): i is string => typeof i === 'string') };
    fakeWindow.shown.push(shown);
    return fakeWindow.answer(shown);
  };
}

class Disposable {
  constructor(private readonly fn: () => void) {}
  static from(...ds: Array<{ dispose(): unknown }>): Disposable {
    return new Disposable(() => ds.forEach((d) => d.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

class EventEmitter<T> {
  private readonly listeners = new Set<(e: T) => void>();
  readonly event = (listener: (e: T) => void) => {
    this.listeners.add(listener);
    return new Disposable(() => this.listeners.delete(listener));
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

class TreeItem {
  id?: string;
  description?: string;
  tooltip?: string;
  accessibilityInformation?: { label: string };
  contextValue?: string;
  iconPath?: unknown;
  command?: unknown;
  constructor(public label: string, public collapsibleState: number) {}
}

/** A file URI (only `file:` ones: what the spec commands open). */
class Uri {
  readonly scheme = 'file';
  private constructor(readonly fsPath: string) {}
  static file(path: string): Uri {
    return new Uri(path);
  }
}

/** A range of lines and columns, 0-based. */
class Range {
  constructor(readonly startLine: number, readonly startCharacter: number, readonly endLine: number, readonly endCharacter: number) {}
}

/** One document the fake editor showed, with the options (the selection) it was shown with. */
export interface ShownDocument {
  path: string;
  options: { selection?: Range } | undefined;
}

const fake = {
  Disposable,
  Uri,
  Range,
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  EventEmitter,
  TreeItem,
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  ThemeIcon: class {
    constructor(public id: string, public color?: unknown) {}
  },
  ThemeColor: class {
    constructor(public id: string) {}
  },
  ViewColumn: { Active: -1, Beside: -2 },
  StatusBarAlignment: { Left: 1, Right: 2 },
  workspace: {
    workspaceFolders: undefined as Array<{ name: string; uri: { fsPath: string } }> | undefined,
    isTrusted: true,
    /** The user's `baton.*` settings, set by a test (key without the `baton.` prefix). */
    settings: {} as Record<string, unknown>,
    /** The documents opened so far (by path); opening one reads nothing. */
    opened: [] as string[],
    openTextDocument: async (uri: Uri) => {
      fake.workspace.opened.push(uri.fsPath);
      return { uri };
    },
    getConfiguration: (section: string) => ({
      get: <T>(key: string): T | undefined => (section === 'baton' ? (fake.workspace.settings[key] as T | undefined) : undefined),
    }),
  },
  window: {
    showInformationMessage: show('info'), showWarningMessage: show('warning'), showErrorMessage: show('error'),
    // An input box answered by fakeWindow.type (dismissed unless a test says); its options go to fakeWindow.inputs.
    showInputBox: async (options?: Record<string, unknown>) => {
      fakeWindow.inputs.push(options ?? {});
      return fakeWindow.type(options ?? {});
    },
    // A quick pick answered by fakeWindow.choose (dismissed unless a test says); its items go to fakeWindow.picks.
    showQuickPick: async (items: unknown) => {
      const list = await items as unknown[];
      fakeWindow.picks.push(list);
      return fakeWindow.choose(list);
    },
    createStatusBarItem,
    /** The documents shown in an editor so far. */
    shownDocuments: [] as ShownDocument[],
    showTextDocument: async (doc: { uri: Uri }, options?: { selection?: Range }) => {
      fake.window.shownDocuments.push({ path: doc.uri.fsPath, options });
      return {};
    },
    // The task runs at once; the notification's progress is not shown.
    withProgress: async <T>(_options: unknown, task: () => Promise<T>): Promise<T> => task(),
  },
  env: { clipboard: { text: '', writeText: async (text: string) => void (fake.env.clipboard.text = text) } },
  commands: {
    /** The commands run so far, with their arguments. */
    executed: [] as unknown[][],
    executeCommand: async (...args: unknown[]) => void fake.commands.executed.push(args),
  },
};

/** The fake module itself (its workspace folders can be set by a test). */
export const fakeVscode = fake;

// The tests run as CommonJS (tsx): every require('vscode') goes through Module._load.
const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
const load = loader._load;
loader._load = function (this: unknown, request: string, ...rest: unknown[]) {
  return request === 'vscode' ? fake : load.call(this, request, ...rest);
};
