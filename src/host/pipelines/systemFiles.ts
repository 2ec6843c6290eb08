// Finding and reading pipeline systems (`.baton/pipelines/*.yaml` of the workspace, or any file) and blueprints
// (`content/blueprints/*.yaml`, then the workspace's `.baton/blueprints/`, which wins by id).
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { stringify } from 'yaml';
import type { ContentProblem } from '../../core/api.js';
import { withEncodingProblem } from '../../core/content/loadContent.js';
import { BatonError } from '../../core/errors.js';
import { formatProblems, parseBlueprintFile, parseSystemFile, type Parsed } from '../../core/pipelines/systemFile.js';
import type { System, SystemBlueprint } from '../../core/pipelines/types.js';

/** A system file as listed. */
export interface SystemListing {
  name: string;
  path: string;
  system: System | undefined;
  problems: ContentProblem[];
}

/** The workspace's pipelines folder. */
export function pipelinesDir(workspace: string): string {
  return join(workspace, '.baton', 'pipelines');
}

function yamlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => join(dir, f));
}

/**
 * A system or blueprint file parsed; one that cannot be read (a folder named `x.yaml`, no permission, a broken link)
 * is a problem of that file, not an exception that hides the others.
 */
function parseFile<T>(path: string, parse: (raw: string, path: string, fallback: string) => Parsed<T>): Parsed<T> {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (ex) {
    const code = (ex as NodeJS.ErrnoException).code;
    const why = code === 'EISDIR' ? 'it is a folder, not a file' : code ?? (ex as Error).message;
    return { value: undefined, problems: [{ path, line: null, message: `cannot read the file (${why})` }] };
  }
  return withEncodingProblem(parse(raw, path, basename(path).replace(/\.ya?ml$/, '')), raw, path);
}

/** Every system file of the workspace, parsed. */
export function listSystems(workspace: string): SystemListing[] {
  const listed = yamlFiles(pipelinesDir(workspace)).map((path) => {
    const fallback = basename(path).replace(/\.ya?ml$/, '');
    const parsed = parseFile(path, parseSystemFile);
    return { name: parsed.value?.name ?? fallback, path, system: parsed.value, problems: parsed.problems };
  });
  // Two files with one name: `pipeline run NAME` takes the one named NAME.yaml, else the first; each says so.
  for (const l of listed) {
    const same = listed.filter((o) => o.name === l.name);
    if (same.length < 2) continue;
    const runs = same.find((o) => basename(o.path).replace(/\.ya?ml$/, '') === l.name) ?? same[0]!;
    const others = same.filter((o) => o !== l).map((o) => basename(o.path)).join(', ');
    l.problems.push({ path: l.path, line: null, message: `${others} ${same.length > 2 ? 'have' : 'has'} the same name '${l.name}'; \`baton pipeline run ${l.name}\` runs ${basename(runs.path)} (rename one)` });
  }
  return listed;
}

/**
 * The system NAME (a file of .baton/pipelines by file name or `name:`) or FILE (a path, from `base`: the workspace
 * unless given, the current folder in a terminal); `not_found` lists the systems there are, `content_invalid` gives
 * every problem as file:line: field: message.
 */
export function loadSystem(nameOrFile: string, workspace: string, base = workspace): { system: System; path: string; warnings: ContentProblem[] } {
  const asPath = resolve(base, nameOrFile);
  const isFile = /\.ya?ml$/.test(nameOrFile);
  let path: string | undefined;
  if (isFile && existsSync(asPath)) path = asPath;
  else {
    const listed = listSystems(workspace);
    path = listed.find((l) => basename(l.path).replace(/\.ya?ml$/, '') === nameOrFile)?.path ?? listed.find((l) => l.name === nameOrFile)?.path;
    if (!path) {
      const names = listed.map((l) => l.name);
      // A file of another kind (README.md, p.json) is a file: say what a pipeline file is, not "not a file".
      const otherFile = !isFile && statSync(asPath, { throwIfNoEntry: false })?.isFile() === true;
      const file = isFile ? `no file ${asPath}` : otherFile ? `${asPath} is not a .yaml file (a pipeline is YAML in NAME.yaml or NAME.yml)` : 'not a file';
      throw new BatonError('not_found', `No pipeline "${nameOrFile}": ${file}, and not in ${pipelinesDir(workspace)} (${names.length ? `pipelines: ${names.join(', ')}` : 'which has none'}). Create one with \`baton blueprint new NAME --from BLUEPRINT\`.`);
    }
  }
  const parsed = parseFile(path, parseSystemFile);
  if (!parsed.value) throw new BatonError('content_invalid', `Pipeline ${path} is not valid:\n${formatProblems(parsed.problems)}`, { problems: parsed.problems });
  return { system: parsed.value, path, warnings: parsed.problems };
}

/** Blueprint folders in increasing precedence. */
export function blueprintDirs(contentDir: string, workspace: string): string[] {
  return [join(contentDir, 'blueprints'), join(workspace, '.baton', 'blueprints')];
}

/** Every blueprint (valid ones; invalid ones with their problems). */
export function listBlueprints(dirs: string[]): Array<{ id: string; path: string; blueprint: SystemBlueprint | undefined; problems: ContentProblem[] }> {
  const byId = new Map<string, { id: string; path: string; blueprint: SystemBlueprint | undefined; problems: ContentProblem[] }>();
  for (const dir of dirs) {
    for (const path of yamlFiles(dir)) {
      const fallback = basename(path).replace(/\.ya?ml$/, '');
      const parsed = parseFile(path, parseBlueprintFile);
      const id = parsed.value?.id ?? fallback;
      byId.set(id, { id, path, blueprint: parsed.value, problems: parsed.problems });
    }
  }
  return [...byId.values()];
}

/**
 * One blueprint by id, with the problems that do not stop it (an unknown field, ignored) to print as warnings;
 * `not_found` lists the ids, `content_invalid` its problems.
 */
export function loadBlueprint(id: string, dirs: string[]): { blueprint: SystemBlueprint; warnings: ContentProblem[] } {
  const all = listBlueprints(dirs);
  const found = all.find((b) => b.id === id);
  if (!found) throw new BatonError('not_found', `No blueprint "${id}". Blueprints: ${all.map((b) => b.id).join(', ') || '(none)'}.`);
  if (!found.blueprint) throw new BatonError('content_invalid', `Blueprint ${found.path} is not valid:\n${formatProblems(found.problems)}`);
  return { blueprint: found.blueprint, warnings: found.problems };
}

/** Writes a system as `.baton/pipelines/NAME.yaml`; refuses to overwrite unless `force`. Returns the path. */
export function writeSystem(system: System, workspace: string, force: boolean): string {
  const dir = pipelinesDir(workspace);
  const file = join(dir, `${system.name.replace(/[^A-Za-z0-9_-]+/g, '-')}.yaml`);
  if (existsSync(file) && !force) throw new BatonError('invalid_input', `${file} already exists; pick another name or pass --force to replace it.`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `# Pipeline system made by \`baton blueprint new\`; run it with \`baton pipeline run ${system.name} --input TEXT\`.\n${stringify(system, { lineWidth: 0, aliasDuplicateObjects: false })}`);
  return file;
}
