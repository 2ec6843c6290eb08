// `baton spec start FILE` and `baton spec status [ID]`: spec workflows from a terminal, through the live owner or the
// database.
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BatonError } from '../core/errors.js';
import type { SpecPhaseResult, SpecStatus, SpecWarning } from '../core/specTypes.js';
import { phaseNameShown, plural } from '../shared/labels.js';
import { nameSources, specSourcesIn, WRITE_TASKS_FILE } from '../core/specs/specWorkflows.js';
import { nodeFileSystem } from '../host/nodePorts.js';
import { specStartViaOwner, specStatusViaOwner } from '../host/controlClient.js';
import { CliError, cliLog, CONTENT_OPTION, DB_OPTIONS, dbFlagFor, dbPathOf, fileArgument, missingDatabase, parse, shellQuote, workspaceOf } from './common.js';
import { SPEC_USAGE } from './usage.js';
import { withCore } from './withCore.js';

const MARK: Record<string, string> = { completed: '✓', running: '▶', awaiting_approval: '⏸', failed: '✗', skipped: '–', pending: '·', ready: '○', active: '▶' };

/**
 * A FILE outside the workspace, in a terminal's terms: the path was given relative to the current folder (or absolute),
 * so the core's "pass a path relative to the workspace" does not apply; the way on is the file's place or --workspace.
 * A link that leads out is said as the core says it.
 */
function outsideWorkspace(ex: unknown, given: string, file: string): never {
  if (!BatonError.is(ex, 'source_outside_workspace') || ex.details.path !== file) throw ex;
  const shown = given === file ? file : `${given} (${file})`;
  throw new CliError(
    `${shown} is outside the workspace ${String(ex.details.workspace)}: a spec workflow reads a tasks.md inside its workspace. ` +
      'Move the file into it, or name the folder that holds it with --workspace DIR.',
    1,
  );
}

/** The workspace's tasks.md files as paths from the current folder, as they are typed here; '' for none. */
async function sourcesHere(workspace: string): Promise<string> {
  const found = await specSourcesIn(nodeFileSystem, workspace);
  return nameSources(found.map((source) => shellQuote(relative(process.cwd(), join(workspace, source)))));
}

/** What the parse found wrong in the file (a task id written twice), one line each. */
function warningLines(source: string, warnings: SpecWarning[] | undefined): string[] {
  return (warnings ?? []).map((w) => `⚠ ${source} line ${w.line}: ${w.message}`);
}

/** The way on when the workspace has no tasks.md: write one, then start on it. */
const WRITE_ONE = `${WRITE_TASKS_FILE}, then baton spec start specs/FEATURE/tasks.md`;

/** The text of `baton spec start`. */
export function renderStarted(r: SpecPhaseResult, dbFlag: string): string {
  return [
    `Started spec workflow ${r.session_id} on ${r.source}: ${r.total_phases} phases, Phase 0 (read the spec) and ${r.total_phases - 1} from the file.`,
    `An agent takes Phase 0 with workflow_next_step({"task_id": "${r.session_id}"}), or with get_current_phase({"session_id": "${r.session_id}"}) when its Baton has the specs tools (--tools broker,specs).`,
    `Follow it with: baton spec status ${r.session_id}${dbFlag}`,
    ...warningLines(r.source, r.warnings),
  ].join('\n');
}

/** The text of `baton spec status`. */
export function renderSpecStatus(s: SpecStatus, dbFlag: string): string {
  const lines = [
    `${s.execution_id}  ${s.workflow}  ${s.status}  ${s.progress}%  ${s.source} (${s.parser})`,
    s.current_phase === null ? 'No phase in progress.' : `Current phase: ${s.current_phase} of ${s.total_phases - 1}`,
  ];
  if (s.drift.state === 'drifted') lines.push(`⚠ ${s.source} changed since the workflow started (first at line ${s.drift.first_difference?.line}); the workflow keeps its snapshot.`);
  if (s.drift.state === 'missing') lines.push(`⚠ ${s.source} is missing; the workflow keeps its snapshot.`);
  lines.push(...warningLines(s.source, s.warnings));
  for (const p of s.phases) {
    lines.push(`${MARK[p.status] ?? '?'} Phase ${p.phase}: ${phaseNameShown(p.name, p.source_label)} (${p.status}${p.human_signoff ? ', signed off by a person' : ''})`);
    // A box already ticked in tasks.md when the workflow started says so, as the tree and the agent's phase text do.
    for (const t of p.tasks) lines.push(`    ${MARK[t.state] ?? '?'} ${t.id} ${t.name}${t.done_in_source ? ' (ticked in source)' : ''}`);
    for (const g of p.gate) if (g.evidence) lines.push(`    evidence · ${g.text}: ${g.evidence}`);
    if (p.last_refusal) lines.push(`    refused at ${p.last_refusal.at}, missing: ${p.last_refusal.missing.join('; ')}`);
    if (p.status === 'awaiting_approval') lines.push(`    → baton approve ${s.execution_id}${dbFlag}   or   baton reject ${s.execution_id}${dbFlag} --feedback TEXT`);
  }
  for (const w of s.write_backs) {
    // Each box left unticked with its line and why (edited since the start, or there twice): the person ticks it.
    const refused = w.refused.map((r) => `\n    left unticked, line ${r.line}: ${r.reason}`).join('');
    lines.push(`Wrote back Phase ${w.phase}: ${plural(w.ticked, 'box', 'boxes')} ticked${w.refused.length ? `, ${w.refused.length} left unticked` : ''}${w.error ? ` (${w.error})` : ''}${refused}`);
  }
  return lines.join('\n');
}

/** Runs `baton spec …`; returns the exit code. */
export async function specCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...DB_OPTIONS, ...CONTENT_OPTION, json: { type: 'boolean' }, description: { type: 'string' } }, SPEC_USAGE);
  if (values.help) {
    process.stdout.write(SPEC_USAGE + '\n');
    return 0;
  }
  const [sub, ...rest] = positionals;
  const dbPath = dbPathOf(values);
  const dbFlag = dbFlagFor(dbPath);
  const log = cliLog('warn');
  if (sub === 'start') {
    const workspace = workspaceOf(values);
    if (rest.length !== 1) {
      const found = rest.length ? '' : await sourcesHere(workspace);
      const which = rest.length ? '' : found ? `; in this workspace: ${found}` : `; there is none in the workspace ${workspace}. ${WRITE_ONE}`;
      throw new CliError(`spec start needs exactly one FILE (a tasks.md)${which}\n\n${SPEC_USAGE}`, 2);
    }
    const file = fileArgument(rest[0]!, values.workspace);
    // The core's own words ("pass the path relative to the workspace") fit an agent, not a path typed here.
    if (!existsSync(file)) {
      const found = await sourcesHere(workspace);
      const message = `no file ${file}; ${found ? `tasks.md files in the workspace: ${found}` : `no tasks.md was found in the workspace ${workspace}. ${WRITE_ONE}`}`;
      throw new BatonError('source_not_found', message, { path: file, workspace });
    }
    const r = await withCore(
      { dbPath, access: 'create', contentDir: values.content, workspace: workspaceOf(values), log, missing: () => missingDatabase(dbPath, values, 'Nothing was started.') },
      (owner) => specStartViaOwner(owner, file, values.description),
      (baton) => baton.specs.start({ source: file, task_description: values.description }),
    ).catch((ex: unknown) => outsideWorkspace(ex, rest[0]!, file));
    process.stdout.write((values.json ? JSON.stringify(r) : renderStarted(r, dbFlag)) + '\n');
    return 0;
  }
  if (sub === 'status') {
    if (rest.length > 1) throw new CliError(`spec status takes at most one ID\n\n${SPEC_USAGE}`, 2);
    if (rest[0] === '') throw new CliError(`spec status got an empty ID; give a spec workflow's id, or none for the latest\n\n${SPEC_USAGE}`, 2);
    if (values.description !== undefined) throw new CliError(`--description is for spec start\n\n${SPEC_USAGE}`, 2);
    const s = await withCore(
      { dbPath, access: 'read', workspace: workspaceOf(values), log, missing: () => missingDatabase(dbPath, values, 'Spec status only reads, so nothing was created.') },
      (owner) => specStatusViaOwner(owner, rest[0]),
      (baton) => baton.specs.status(rest[0]),
    );
    process.stdout.write((values.json ? JSON.stringify(s) : renderSpecStatus(s, dbFlag)) + '\n');
    return 0;
  }
  throw new CliError(`${sub === undefined ? 'spec needs a subcommand' : `unknown spec subcommand "${sub}"`}: start or status\n\n${SPEC_USAGE}`, 2);
}
