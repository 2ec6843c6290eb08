// The shapes of ../shared/specs/agent-worker.md (workflow files of agent teams, the channel, inboxes and documents),
// with the spec's names. The workflow parser, the context providers, the `context` tool group, the team runner, the
// CLI and the editor all speak these; they are the contract between them.

/** A team workflow file (YAML), as the spec's `WorkflowFile`. */
export interface WorkflowFile {
  /** Workflow name (defaults to the file name without extension). */
  name?: string;
  /** Shared context: undefined/null → the file provider with defaults; false → disabled; else a provider config. */
  context?: ContextConfig | null;
  /** Agent definitions by name. */
  agents: Record<string, AgentDefinition>;
  /** Setup commands, run in order before the kickoff. */
  setup?: SetupTask[];
  /** Kickoff message (with `${{ }}` interpolation); agents wait for an external message when omitted. */
  kickoff?: string;
}

/** Context configuration: false to disable, or a provider's configuration. */
export type ContextConfig = false | FileContextConfig | MemoryContextConfig;

/** The file provider: the spec's on-disk layout under a context directory. */
export interface FileContextConfig {
  provider: 'file';
  config?: {
    /** Default `.workflow/${{ instance }}/`. */
    dir?: string;
    /** Default `channel.md`. */
    channel?: string;
    /** Default `notes.md` (the entry-point document). */
    document?: string;
    /**
     * Further documents (multi-file documents): the spec's list of files, created empty when missing; or one
     * directory under the context dir that holds them. Every file under the context dir is a document either way.
     */
    documents?: string | string[];
  };
}

/** The in-memory provider (tests, throwaway teams). */
export interface MemoryContextConfig {
  provider: 'memory';
}

/** One agent of a team. `backend` picks the runner (claude, codex, gemini, opencode, cursor-agent, command, …). */
export interface AgentDefinition {
  /** Runner kind; the spec's `model: backend/model` form is also accepted by the parser. */
  backend?: string;
  /** Model identifier, in the backend's own naming. */
  model: string;
  /** System prompt: inline text, or a path (relative to the workflow file) to a file holding it. */
  system_prompt: string;
  /** Tool names to enable. */
  tools?: string[];
  /** For the `command` backend: the executable and its arguments (never a shell string). */
  command?: string[];
}

/** A setup command; its trimmed standard output becomes `${{ as }}` when `as` is set. */
export interface SetupTask {
  shell: string;
  as?: string;
}

/** A single channel entry. */
export interface ChannelEntry {
  /** ISO timestamp; strictly increasing within a channel. */
  timestamp: string;
  /** Author agent name, or 'system', or a person ('user' unless named). */
  from: string;
  message: string;
  /** Extracted @mentions of valid agents, in order, without repeats. */
  mentions: string[];
}

/** @mention notification. */
export interface MentionNotification {
  from: string;
  target: string;
  message: string;
  timestamp: string;
}

/** Inbox message (derived from channel @mentions). */
export interface InboxMessage {
  entry: ChannelEntry;
  unread: boolean;
  priority: 'normal' | 'high';
}

/**
 * The storage of a team's context, as the spec's `ContextProvider`. `file` defaults to the entry-point document;
 * document paths are relative to the context directory and never leave it.
 */
export interface ContextProvider {
  appendChannel(from: string, message: string): Promise<ChannelEntry>;
  readChannel(since?: string, limit?: number): Promise<ChannelEntry[]>;
  /** Unread mentions of `agent` (after its read cursor). */
  getInbox(agent: string): Promise<InboxMessage[]>;
  /** Moves `agent`'s read cursor to `until` (never backwards); persisted by durable providers. */
  ackInbox(agent: string, until: string): Promise<void>;
  /** As getInbox, without side effects. */
  peekInbox(agent: string): Promise<InboxMessage[]>;
  readDocument(file?: string): Promise<string>;
  writeDocument(content: string, file?: string): Promise<void>;
  appendDocument(content: string, file?: string): Promise<void>;
  listDocuments(): Promise<string[]>;
  createDocument(file: string, content: string): Promise<void>;
  deleteDocument(file: string): Promise<void>;
}
