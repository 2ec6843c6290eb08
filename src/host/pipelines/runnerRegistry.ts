// The runner registry: the one seam through which an agent's runner kind becomes an AgentRunner. The spawned CLIs
// and `command` (src/host/runners: one runner for every spawned program, `command` speaking the JSON-lines protocol of
// src/core/pipelines/streams/commandStream.ts) are registered here; the editor registers `vscode-lm`.
import { BatonError } from '../../core/errors.js';
import { RUNNER_KINDS, type AgentRunner, type RunnerKind } from '../../core/pipelines/runner.js';
import type { SystemAgent } from '../../core/pipelines/types.js';
import { createAgentRunner } from '../runners/createRunner.js';

/** Builds the runner of one agent. */
export type RunnerFactory = (agent: SystemAgent) => AgentRunner;

const factories = new Map<RunnerKind, RunnerFactory>([
  ['command', (agent) => createAgentRunner('command', { executable: agent.command?.[0], args: agent.command?.slice(1) })],
  ...(['claude', 'codex', 'gemini', 'opencode', 'cursor-agent'] as const).map((kind): [RunnerKind, RunnerFactory] => [kind, (agent) => createAgentRunner(kind, agent.cliConfig ? { config: agent.cliConfig } : {})]),
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
    throw new BatonError('runner_unavailable', `Agent ${agent.id} uses the ${agent.runner} runner, which runs only inside the editor (its language models); give this agent another runner (claude, codex, gemini, opencode, cursor-agent or command). Runners available: ${[...factories.keys()].join(', ')}.`);
  }
  return factory(agent);
}
