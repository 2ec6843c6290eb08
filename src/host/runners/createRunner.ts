// The runners of spawned programs by kind (the `vscode-lm` runner lives with the editor, in src/vscode).
import { BatonError } from '../../core/errors.js';
import type { AgentRunner, RunnerKind } from '../../core/pipelines/runner.js';
import { claudeCli } from './claudeCli.js';
import { CliRunner, type CliDefinition, type CliRunnerOptions } from './cliRunner.js';
import { codexCli } from './codexCli.js';
import { commandCli } from './commandCli.js';
import { cursorAgentCli } from './cursorAgentCli.js';
import { geminiCli } from './geminiCli.js';
import { opencodeCli } from './opencodeCli.js';

/** The kinds a process runs. */
export type SpawnedRunnerKind = Exclude<RunnerKind, 'vscode-lm'>;

const DEFINITIONS: Record<SpawnedRunnerKind, CliDefinition> = {
  claude: claudeCli, codex: codexCli, gemini: geminiCli, opencode: opencodeCli, 'cursor-agent': cursorAgentCli, command: commandCli,
};

/** A runner of `kind`; the `command` runner needs `options.executable`. */
export function createAgentRunner(kind: SpawnedRunnerKind, options: CliRunnerOptions = {}): AgentRunner {
  const definition = DEFINITIONS[kind];
  if (!definition) {
    throw new BatonError('invalid_input', `unknown runner "${String(kind)}"; use one of ${[...Object.keys(DEFINITIONS), 'vscode-lm'].join(', ')}`);
  }
  if (kind === 'command' && !options.executable) {
    throw new BatonError('invalid_input', 'the command runner needs an executable (a program on PATH or a path) and, optionally, its arguments');
  }
  return new CliRunner(definition, options);
}
