// `baton prune`: deletes finished runs past a retention policy, through the live owner or on the database directly.
import { describePolicy, mib, type PruneRequest, type PruneResult } from '../core/retention.js';
import { pruneViaOwner } from '../host/controlClient.js';
import { cliLog, DB_OPTIONS, dbPathOf, missingDatabase, parse, refuseArguments } from './common.js';
import { wholeNumber } from './engineOptions.js';
import { PRUNE_USAGE } from './usage.js';
import { withCore } from './withCore.js';

/** Runs `baton prune`; returns the exit code. */
export async function pruneCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(
    args,
    { ...DB_OPTIONS, days: { type: 'string' }, keep: { type: 'string' }, 'dry-run': { type: 'boolean' }, compact: { type: 'boolean' }, json: { type: 'boolean' } },
    PRUNE_USAGE,
  );
  if (values.help) {
    process.stdout.write(PRUNE_USAGE + '\n');
    return 0;
  }
  refuseArguments('prune', positionals, PRUNE_USAGE);
  const days = wholeNumber(values.days, '--days', PRUNE_USAGE);
  const keep = wholeNumber(values.keep, '--keep', PRUNE_USAGE);
  const request: PruneRequest = {
    ...(days === undefined ? {} : { days }), ...(keep === undefined ? {} : { max_runs: keep }),
    ...(values['dry-run'] ? { dry_run: true } : {}), ...(values.compact ? { compact: true } : {}),
  };
  const dbPath = dbPathOf(values);
  const result = await withCore(
    {
      dbPath, access: 'existing', workspace: values.workspace, log: cliLog('warn'),
      missing: () => missingDatabase(dbPath, values, 'There is nothing to prune, and nothing was created.'),
    },
    (owner) => pruneViaOwner(owner, request),
    (baton) => baton.prune(request),
  );
  process.stdout.write((values.json ? JSON.stringify(result) : renderPrune(result)) + '\n');
  return 0;
}

/** What a prune did, for a person. */
export function renderPrune(r: PruneResult): string {
  const policy = describePolicy(r.policy);
  if (r.pruned === 0) {
    const off = r.policy.days === 0 && r.policy.maxRuns === 0;
    const lines = [`No finished run is ${off ? 'pruned: retention is off (--days 0 --keep 0)' : policy}; ${r.kept} kept.`];
    if (r.compacted) lines.push(compacted(r));
    return lines.join('\n');
  }
  const tables = Object.entries(r.rows).map(([t, n]) => `${t} ${n}`).join(', ');
  const more = r.pruned > r.execution_ids.length ? ` and ${r.pruned - r.execution_ids.length} more` : '';
  const lines = [
    `${r.dry_run ? 'Would prune' : 'Pruned'} ${r.pruned} finished run(s) ${policy}; ${r.kept} ${r.dry_run ? 'would be kept' : 'kept'}.`,
    `  runs: ${r.execution_ids.join(', ')}${more}`,
    `  rows${r.dry_run ? ' that would be' : ''} deleted: ${tables}`,
  ];
  if (r.compacted) lines.push(compacted(r));
  if (r.dry_run) lines.push('Nothing was deleted (--dry-run).');
  return lines.join('\n');
}

function compacted(r: PruneResult): string {
  return `Compacted the database from ${mib(r.compacted!.beforeBytes)} to ${mib(r.compacted!.afterBytes)}.`;
}
