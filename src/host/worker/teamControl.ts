// The owner's /control operations for agent teams: start an instance here (for `baton run|start` in another
// process), list, stop, send, peek, and the events of an instance since a position (how a CLI follows a team the
// owner runs).
import { BatonError } from '../../core/errors.js';
import { TEAM_BACKENDS } from '../../core/worker/workflowFile.js';
import type { AgentDefinition } from '../../core/worker/types.js';
import { teamsOf, type TeamStart } from './teams.js';

/** A team control request. */
export type TeamControlRequest =
  | { op: 'team_start'; file: string; instance?: string; mode: 'run' | 'start'; cwd: string; max_invocations?: number; env?: Record<string, string> }
  | { op: 'team_list' }
  | { op: 'team_stop'; target?: string; reason?: string }
  | { op: 'team_send'; message: string; to: string }
  | { op: 'team_peek'; instance?: string }
  | { op: 'team_events'; instance: string; since?: number }
  | { op: 'team_new'; name: string; backend: string; model?: string; system_prompt?: string; command?: string[]; context?: string; cwd: string };

/** The team ops' names. */
export const TEAM_OPS = ['team_start', 'team_list', 'team_stop', 'team_send', 'team_peek', 'team_events', 'team_new'] as const;

/** Whether a control request is a team op. */
export function isTeamOp(req: { op: string }): req is TeamControlRequest {
  return (TEAM_OPS as readonly string[]).includes(req.op);
}

function str(body: Record<string, unknown>, key: string, required: boolean): string | undefined {
  const v = body[key];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || !v) throw new BatonError('invalid_input', `${key} must be a non-empty string`);
  return v;
}

/** Parses a team op's body; null when `body.op` is not one. */
export function parseTeamOp(body: Record<string, unknown>): TeamControlRequest | null {
  switch (body.op) {
    case 'team_start': {
      if (body.mode !== 'run' && body.mode !== 'start') throw new BatonError('invalid_input', 'mode must be "run" or "start"');
      const max = body.max_invocations;
      if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < 1)) throw new BatonError('invalid_input', 'max_invocations must be a whole number ≥ 1');
      const env = body.env;
      if (env !== undefined && (env === null || typeof env !== 'object' || Object.values(env).some((v) => typeof v !== 'string'))) {
        throw new BatonError('invalid_input', 'env must map names to strings');
      }
      return {
        op: 'team_start', file: str(body, 'file', true)!, instance: str(body, 'instance', false), mode: body.mode, cwd: str(body, 'cwd', true)!,
        max_invocations: max as number | undefined, env: env as Record<string, string> | undefined,
      };
    }
    case 'team_list':
      return { op: 'team_list' };
    case 'team_stop':
      return { op: 'team_stop', target: str(body, 'target', false), reason: str(body, 'reason', false) };
    case 'team_send':
      return { op: 'team_send', message: str(body, 'message', true)!, to: str(body, 'to', true)! };
    case 'team_peek':
      return { op: 'team_peek', instance: str(body, 'instance', false) };
    case 'team_events': {
      const since = body.since;
      if (since !== undefined && (typeof since !== 'number' || !Number.isInteger(since) || since < 0)) throw new BatonError('invalid_input', 'since must be a whole number ≥ 0');
      return { op: 'team_events', instance: str(body, 'instance', true)!, since: since as number | undefined };
    }
    case 'team_new': {
      const command = body.command;
      if (command !== undefined && (!Array.isArray(command) || command.some((c) => typeof c !== 'string'))) throw new BatonError('invalid_input', 'command must be a list of strings');
      const backend = str(body, 'backend', true)!;
      if (!(TEAM_BACKENDS as readonly string[]).includes(backend)) throw new BatonError('invalid_input', `backend must be one of ${TEAM_BACKENDS.join(', ')}`);
      return {
        op: 'team_new', name: str(body, 'name', true)!, backend, model: str(body, 'model', false), system_prompt: typeof body.system_prompt === 'string' ? body.system_prompt : undefined,
        command: command as string[] | undefined, context: str(body, 'context', false), cwd: str(body, 'cwd', true)!,
      };
    }
    default:
      return null;
  }
}

/** Runs a team op against the owner's teams; the body of the 200 answer. */
export async function runTeamOp(baton: object, req: TeamControlRequest): Promise<unknown> {
  const teams = teamsOf(baton);
  switch (req.op) {
    case 'team_start': {
      const start: TeamStart = { file: req.file, instance: req.instance, mode: req.mode, cwd: req.cwd, maxInvocations: req.max_invocations, env: req.env };
      const team = await teams.start(start);
      return { result: { run_id: team.runId, instance: team.instance, workflow: team.workflow, source: team.source, agents: Object.keys(team.runner.states()), pid: process.pid } };
    }
    case 'team_list':
      return { result: teams.list() };
    case 'team_stop':
      return { result: teams.stop(req.target, req.reason) };
    case 'team_send':
      return { result: await teams.send(req.message, req.to) };
    case 'team_peek':
      return { result: await teams.peek(req.instance) };
    case 'team_new': {
      if (req.backend === 'command' && !req.command?.length) throw new BatonError('invalid_input', 'the command backend needs --command PROGRAM (and its arguments after --)');
      const def: AgentDefinition = { backend: req.backend, model: req.model ?? '', system_prompt: req.system_prompt ?? '', ...(req.command ? { command: req.command } : {}) };
      return { result: { name: await teams.newAgent({ name: req.name, def, context: req.context, cwd: req.cwd }), pid: process.pid } };
    }
    case 'team_events': {
      const team = teams.get(req.instance);
      const from = Math.max(0, (req.since ?? 0) - team.dropped);
      return { result: { events: team.events.slice(from), next: team.dropped + team.events.length, end: team.end } };
    }
  }
}
