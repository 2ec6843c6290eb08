// `baton blueprint list | new NAME --from BLUEPRINT`: blueprints (content/blueprints, .baton/blueprints) become
// pipeline systems in .baton/pipelines/NAME.yaml.
import { instantiateBlueprint } from '../core/pipelines/blueprint.js';
import { RUNNER_KINDS, type RunnerKind } from '../core/pipelines/runner.js';
import { bundledContentDir } from '../host/openBaton.js';
import { blueprintDirs, listBlueprints, loadBlueprint, writeSystem } from '../host/pipelines/systemFiles.js';
import { plural } from '../shared/labels.js';
import { CliError, dbPathOf, flagsFor, parse, workspaceOf } from './common.js';
import { BLUEPRINT_USAGE } from './usage.js';
import { printWarnings } from './warnings.js';


const OPTIONS = {
  workspace: { type: 'string' }, content: { type: 'string' }, help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' },
  from: { type: 'string' }, input: { type: 'string', multiple: true }, runner: { type: 'string' }, command: { type: 'string', multiple: true },
  force: { type: 'boolean' },
} as const;

/** Runs `baton blueprint …`; returns the exit code. */
export async function blueprintCommand(args: string[]): Promise<number> {
  // The subcommand is the first word that is no option, as in spec: `baton blueprint --json list` lists.
  const { values, positionals: words } = parse(args, OPTIONS, BLUEPRINT_USAGE);
  const [sub, ...positionals] = words;
  if (sub === 'help' || values.help) {
    process.stdout.write(BLUEPRINT_USAGE + '\n');
    return 0;
  }
  const workspace = workspaceOf(values);
  const dirs = blueprintDirs(values.content ?? bundledContentDir(), workspace);
  if (sub === 'list') {
    if (positionals.length) throw new CliError(`blueprint list takes no arguments (got "${positionals.join(' ')}")\n\n${BLUEPRINT_USAGE}`, 2);
    const all = listBlueprints(dirs);
    if (values.json) {
      process.stdout.write(JSON.stringify({ blueprints: all.map((b) => ({ id: b.id, path: b.path, name: b.blueprint?.name ?? null, description: b.blueprint?.description ?? null, requiredInputs: b.blueprint?.requiredInputs ?? [], problems: b.problems })) }) + '\n');
    } else {
      for (const b of all) {
        process.stdout.write(`${b.id}  ${b.blueprint ? `${b.blueprint.name}: ${b.blueprint.description}` : 'INVALID'}\n`);
        for (const i of b.blueprint?.requiredInputs ?? []) process.stdout.write(`    --input ${i.name}=…  ${i.description} (${i.type}${i.default !== undefined ? `, default ${i.default}` : ''})\n`);
      }
    }
    return 0;
  }
  if (sub !== 'new') throw new CliError(`${sub === undefined ? 'blueprint needs a subcommand' : `unknown blueprint subcommand "${sub}"`}: list or new (e.g. baton blueprint list)\n\n${BLUEPRINT_USAGE}`, 2);
  if (positionals.length !== 1) throw new CliError(`blueprint new needs exactly one NAME\n\n${BLUEPRINT_USAGE}`, 2);
  if (!values.from) throw new CliError(`blueprint new needs --from BLUEPRINT (see baton blueprint list)\n\n${BLUEPRINT_USAGE}`, 2);
  const name = positionals[0]!;
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(name)) throw new CliError(`NAME must be letters, digits, '_' or '-' (got "${name}")`, 2);
  if (values.runner !== undefined && !(RUNNER_KINDS as readonly string[]).includes(values.runner)) {
    throw new CliError(`--runner must be one of ${RUNNER_KINDS.join(', ')} (got "${values.runner}")`, 2);
  }
  const inputs: Record<string, string> = {};
  for (const kv of values.input ?? []) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new CliError(`--input must be KEY=VALUE (got "${kv}")`, 2);
    inputs[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const { blueprint: bp, warnings } = loadBlueprint(values.from, dirs);
  // What the blueprint's file has that is ignored (`requiredInput:` for `requiredInputs:`) is said before it is used.
  printWarnings(warnings);
  const system = instantiateBlueprint(bp, { name, inputs, runner: values.runner as RunnerKind | undefined, command: values.command });
  const file = writeSystem(system, workspace, values.force === true);
  process.stdout.write(`Wrote ${file} from blueprint ${bp.id} (${plural(system.agents.length, 'agent')}). Run it: baton pipeline run ${name} --input TEXT${flagsFor('baton pipeline run', dbPathOf(values), values.workspace)}\n`);
  return 0;
}
