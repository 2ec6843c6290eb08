// The runner registry: the one seam through which an agent's runner kind becomes an AgentRunner. This branch
// registers `command`; the runners (claude, codex, gemini, opencode, cursor-agent, vscode-lm) register here too.
import { BatonError } from '../../core/errors.js';
import { RUNNER_KINDS, type AgentRunner, type RunnerKind } from '../../core/pipelines/runner.js';
import type { SystemAgent } from '../../core/pipelines/types.js';
import { CommandRunner } from './commandRunner.js';

/** Builds the runner of one agent. */
export type RunnerFactory = (agent: SystemAgent) => AgentRunner;

/** What to install for each CLI runner, named when one is missing. */
export const RUNNER_PACKAGES: Partial<Record<RunnerKind, string>> = {
  claude: '@anthropic-ai/claude-code', codex: '@openai/codex', gemini: '@google/gemini-cli', opencode: 'opencode-ai',
};

const factories = new Map<RunnerKind, RunnerFactory>([
  ['command', (agent) => new CommandRunner(agent.command ?? [])],
]);

/** Registers (or replaces) the factory of a runner kind. */
export function registerRunner(kind: RunnerKind, factory: RunnerFactory): void {
  if (!RUNNER_KINDS.includes(kind)) throw new Error(`unknown runner kind ${kind}`);
  factories.set(kind, factory);
}

/** The runner of an agent; `runner_unavailable` naming what is missing when this build has no such runner. */
export function runnerFor(agent: SystemAgent): AgentRunner {
  const factory = factories.get(agent.runner);
  if (!factory) {
    const pkg = RUNNER_PACKAGES[agent.runner];
    throw new BatonError('runner_unavailable', `Agent ${agent.id} uses the ${agent.runner} runner, which this build of Baton does not include yet${pkg ? ` (it drives the CLI from npm package ${pkg})` : ''}. Runners available: ${[...factories.keys()].join(', ')}.`);
  }
  return factory(agent);
}
