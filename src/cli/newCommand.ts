// `baton new NAME --backend B [--context @instance]`: a standalone agent. With --context it joins a running team's
// channel (it wakes on @NAME there); without, it runs alone as NAME with its own context (`baton send "…" --to NAME`).
// Runs in the live owner, or in this process, which then serves until the agent is stopped (or Ctrl-C).
import { callControl } from '../host/controlClient.js';
import { readDiscovery } from '../host/discovery.js';
import { teamsOf } from '../host/worker/teams.js';
import { TEAM_BACKENDS } from '../core/worker/workflowFile.js';
import type { AgentDefinition } from '../core/worker/types.js';
import { CliError, dbFlagFor, dbPathOf, flagsFor, parse, workspaceOf } from './common.js';
import { serveTeams, TEAM_OWNER_OPTIONS } from './teamCommon.js';
import { ownerTaking } from './ownDatabase.js';
import { NEW_USAGE } from './usage.js';

const OPTIONS = { ...TEAM_OWNER_OPTIONS, backend: { type: 'string' }, model: { type: 'string' }, 'system-prompt': { type: 'string' }, context: { type: 'string' } } as const;

/** Runs `baton new`; returns the exit code. */
export async function newCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS, NEW_USAGE);
  if (values.help) {
    process.stdout.write(`${NEW_USAGE}\n`);
    return 0;
  }
  const [name, ...command] = positionals;
  if (!name) throw new CliError(`new needs a NAME\n\n${NEW_USAGE}`, 2);
  const backend = values.backend;
  if (!backend || !(TEAM_BACKENDS as readonly string[]).includes(backend)) {
    const why = backend ? `--backend "${backend}" is not a backend: use` : 'new needs --backend,';
    throw new CliError(`${why} one of ${TEAM_BACKENDS.join(', ')}\n\n${NEW_USAGE}`, 2);
  }
  if ((backend === 'command') !== command.length > 0) throw new CliError(`${backend === 'command' ? 'the command backend needs its program after --' : 'only the command backend takes a program after --'}\n\n${NEW_USAGE}`, 2);
  if (values.context !== undefined && !/^@.+/.test(values.context)) throw new CliError(`--context takes @instance (e.g. @pr-123), got "${values.context}"\n\n${NEW_USAGE}`, 2);
  const instance = values.context?.slice(1);
  // A team runs only in an owner that has published its endpoint: with none, there is none to join, and becoming the
  // owner only to refuse would leave a new database behind.
  if (instance !== undefined && readDiscovery(dbPathOf(values)) === null) throw noTeam(instance, values);
  const def: AgentDefinition = { backend, model: values.model ?? '', system_prompt: values['system-prompt'] ?? '', ...(command.length ? { command } : {}) };
  // An owner that stops before it takes the agent is no owner: this process or the next one is (see ownerTaking).
  const where = await ownerTaking(values, async (remote) => {
    const r = (await callControl(remote, {
      op: 'team_new', name, backend, model: values.model, system_prompt: values['system-prompt'], command: command.length ? command : undefined, context: instance, cwd: workspaceOf(values),
    }, 60_000)) as { result: { name: string; pid: number } };
    return created(r.result.name, r.result.pid, dbFlagFor(dbPathOf(values)));
  });
  if ('follow' in where) {
    process.stdout.write(`${where.follow}\n`);
    return 0;
  }
  const { owner } = where;
  try {
    if (instance !== undefined) throw noTeam(instance, values);
    const teams = teamsOf(owner.opened.baton);
    await serveTeams(teams, async () => {
      const full = await teams.newAgent({ name, def, cwd: workspaceOf(values) });
      process.stdout.write(`${created(full, process.pid, dbFlagFor(dbPathOf(values)))}\n`);
    });
    return 0;
  } finally {
    await owner.close();
  }
}

/** The refusal of --context @instance when no Baton process owns the database, so no team runs. */
function noTeam(instance: string, values: { db?: string; workspace?: string }): CliError {
  const start = `baton start FILE --instance ${instance}${flagsFor('baton start', dbPathOf(values), values.workspace)}`;
  return new CliError(`no team instance @${instance} is running (no Baton process owns the database); start it with ${start}`, 1);
}

/** What `new` prints: where the agent runs, and how to talk to it and stop it (`db`: dbFlagFor's). */
function created(full: string, pid: number, db: string): string {
  const [agent, instance] = full.split('@') as [string, string];
  const to = agent === instance ? agent : full;
  return `${full === `${agent}@${agent}` ? `standalone agent ${agent}` : `agent ${full}`} runs in Baton process ${pid}; talk to it: baton send "…" --to ${to}${db}; stop: baton stop ${to}${db}`;
}
