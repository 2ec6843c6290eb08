// `baton prune`: cancels the runs idle past a retention policy and deletes the finished runs past it, through the live
// owner or on the database directly.
import { describeIdle, describePolicy, mib, pruningOff, type PruneRequest, type PruneResult } from '../core/retention.js';
import { pruneViaOwner } from '../host/controlClient.js';
import { keptText, plural } from '../shared/labels.js';
import { cliLog, DB_OPTIONS, dbPathOf, missingDatabase, parse, refuseArguments, workspaceOf } from './common.js';
import { numberFlag } from './numberFlag.js';
import { PRUNE_USAGE } from './usage.js';
import { withCore } from './withCore.js';

/** Runs `baton prune`; returns the exit code. */
export async function pruneCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      ...DB_OPTIONS, days: { type: 'string' }, keep: { type: 'string' }, 'idle-days': { type: 'string' },
      'dry-run': { type: 'boolean' }, compact: { type: 'boolean' }, json: { type: 'boolean' },
    },
    PRUNE_USAGE,
  );
  if (values.help) {
    process.stdout.write(PRUNE_USAGE + '\n');
    return 0;
  }
  refuseArguments('prune', positionals, PRUNE_USAGE);
  const days = numberFlag(values.days, { flag: '--days', unit: 'days', min: 0, examples: ['30'] }, PRUNE_USAGE);
  const keep = numberFlag(values.keep, { flag: '--keep', unit: 'runs', min: 0, examples: ['1000'] }, PRUNE_USAGE);
  const idle = numberFlag(values['idle-days'], { flag: '--idle-days', unit: 'days', min: 0, examples: ['30'] }, PRUNE_USAGE);
  const request: PruneRequest = {
    ...(days === undefined ? {} : { days }), ...(keep === undefined ? {} : { max_runs: keep }), ...(idle === undefined ? {} : { idle_days: idle }),
    ...(values['dry-run'] ? { dry_run: true } : {}), ...(values.compact ? { compact: true } : {}),
  };
  const dbPath = dbPathOf(values);
  const result = await withCore(
    {
      dbPath, access: 'existing', workspace: workspaceOf(values), log: cliLog('warn'),
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
  const lines: string[] = [];
  if (r.cancelled) {
    lines.push(
      `${r.dry_run ? 'Would cancel' : 'Cancelled'} ${plural(r.cancelled, 'unfinished run')} ${describeIdle(r.policy)}; ` +
        `${r.cancelled === 1 ? 'it is pruned later, as a finished run' : 'they are pruned later, as finished runs'}.`,
      `  runs: ${r.cancelled_ids.join(', ')}${andMore(r.cancelled, r.cancelled_ids)}`,
    );
  }
  if (r.pruned === 0) {
    // None kept means none finished: there is nothing to prune, rather than "0 kept".
    if (r.kept === 0) lines.push(pruningOff(r.policy) ? 'No finished run is pruned: pruning is off (--days 0 --keep 0).' : 'There is no finished run to prune.');
    else lines.push(`No finished run is ${pruningOff(r.policy) ? 'pruned: pruning is off (--days 0 --keep 0)' : describePolicy(r.policy)}; ${keptText(r.kept, r.dry_run)}.`);
  } else {
    const tables = Object.entries(r.rows).map(([t, n]) => `${t} ${n}`).join(', ');
    lines.push(
      `${r.dry_run ? 'Would prune' : 'Pruned'} ${plural(r.pruned, 'finished run')} ${describePolicy(r.policy)}; ${keptText(r.kept, r.dry_run)}.`,
      `  runs: ${r.execution_ids.join(', ')}${andMore(r.pruned, r.execution_ids)}`,
      `  rows${r.dry_run ? ' that would be' : ''} deleted: ${tables}`,
    );
  }
  if (r.compacted) lines.push(compacted(r));
  if (r.dry_run && (r.pruned || r.cancelled)) lines.push('Nothing was cancelled or deleted (--dry-run).');
  return lines.join('\n');
}

/** ` and 12 more` when `shown` lists fewer than `count` ids. */
function andMore(count: number, shown: string[]): string {
  return count > shown.length ? ` and ${count - shown.length} more` : '';
}

function compacted(r: PruneResult): string {
  return `Compacted the database from ${mib(r.compacted!.beforeBytes)} to ${mib(r.compacted!.afterBytes)}.`;
}
