// One reading of the runs per refresh, shared by the views that list them. The tree and the status bar each listed
// every unfinished run on their own after each burst of core events, so with a thousand runs open the owner's event
// loop (the one that answers the agents) read them twice per refresh. Here one Coalescer paces both views: a refresh
// drops what was read and tells them; the first view to ask reads, the others get that same reading until the next
// refresh. An event after a reading began schedules the next refresh, so no view keeps a listing older than the
// events it was refreshed for.
// Where listing every unfinished run is costly (thousands of runs waiting at their gates: 38 ms for 2,752), a refresh
// reads again only the runs that events named since the last reading, and the whole list every ten seconds (what no
// event announces, such as a pipeline's driver gone, is then seen), when the connection changed, or on Refresh.
// No 'vscode' import (unit-tested).
import type { ExecutionSummary } from '../core/api.js';
import { MAX_LISTED_IDS } from '../core/api.js';
import type { BatonEvent } from '../core/types.js';
import type { BatonSource, SourceDisposable } from './batonSource.js';
import { Coalescer, type CoalescerTimes, REFRESH_TIMES } from './coalescer.js';
import { listUnfinished, mergeRuns, RECENT_RUNS, type RunListing } from './runListing.js';

/** What the shared listing reads and listens to (the editor's connection). */
export interface RunListingSource extends Pick<BatonSource, 'listExecutions'> {
  /** Core events (a step moved, a run started or ended). */
  onEvent(listener: (event: BatonEvent) => void): SourceDisposable;
  /** The connection changed (started, failed, taken over): everything is read again at once. */
  onDidChange(listener: () => void): SourceDisposable;
}

/** When a refresh lists every unfinished run rather than only those that events named (see the file's comment). */
export interface WholeListing {
  /** While fewer runs than this are unfinished, they are all read every time (200 take about 3 ms). */
  belowRuns: number;
  /** The longest time the unfinished runs are read in parts between two whole readings. */
  everyMs: number;
}

export const WHOLE_LISTING: WholeListing = { belowRuns: 200, everyMs: 10_000 };

/** The unfinished runs as last read whole, kept up to date by reading again the runs that events named. */
interface KnownRuns {
  runs: Map<string, ExecutionSummary>;
  /** When the whole listing was read. */
  readAt: number;
}

/** The runs of the current refresh, read once for every view that lists them (see the file's comment). */
export class SharedRunListing {
  private active: Promise<ExecutionSummary[]> | undefined;
  private listing: Promise<RunListing> | undefined;
  /** When this refresh's first reading began: the time until its last one ends paces the refreshes. */
  private startedAt: number | undefined;
  /** Bumped by every refresh, so a reading of an earlier one does not count as this one's cost. */
  private epoch = 0;
  private readonly listeners = new Set<() => void>();
  private readonly subscriptions: SourceDisposable[];
  private readonly soon: Coalescer;
  private known: KnownRuns | undefined;
  /** The runs that events named since the last reading began. */
  private readonly named = new Set<string>();
  /** The unfinished runs' readings, one after the other (a part read applies to what the reading before left). */
  private reading: Promise<void> | undefined;

  constructor(
    private readonly source: RunListingSource, times: CoalescerTimes = REFRESH_TIMES, private readonly whole: WholeListing = WHOLE_LISTING,
  ) {
    this.soon = new Coalescer(() => this.refresh(), times);
    this.subscriptions = [
      source.onEvent((event) => {
        this.note(event);
        this.refreshSoon();
      }),
      source.onDidChange(() => this.refresh({ whole: true })),
    ];
  }

  /** Calls `listener` on every refresh (it then asks for the runs it shows). */
  onRefresh(listener: () => void): SourceDisposable {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  }

  /** Coalesces a burst of changes into one refresh (and a steady stream into one per maxWaitMs). */
  refreshSoon(): void {
    this.soon.schedule();
  }

  /** Drops what was read and tells every view now; `whole`: every unfinished run is read again (Refresh). */
  refresh(opts: { whole?: boolean } = {}): void {
    if (opts.whole) this.known = undefined;
    this.soon.cancel();
    this.active = undefined;
    this.listing = undefined;
    this.startedAt = undefined;
    this.epoch++;
    for (const listener of [...this.listeners]) listener();
  }

  /** Every unfinished run, as read for this refresh (the status bar's reading; the tree's includes it). */
  unfinished(): Promise<ExecutionSummary[]> {
    return (this.active ??= this.timed(() => this.readUnfinished()));
  }

  /** Every unfinished run and the newest RECENT_RUNS, as read for this refresh (the tree's listing). */
  runs(): Promise<RunListing> {
    this.listing ??= Promise.all([this.unfinished(), this.timed(() => this.source.listExecutions({ limit: RECENT_RUNS }))])
      .then(([active, newest]) => mergeRuns(active, newest, RECENT_RUNS));
    return this.listing;
  }

  dispose(): void {
    this.soon.cancel();
    this.listeners.clear();
    for (const s of this.subscriptions) s.dispose();
  }

  /** Which run an event says changed; an event of a kind this build does not know (a newer owner's) has all read again. */
  private note(event: BatonEvent): void {
    if ('execution_id' in event) this.named.add(event.execution_id);
    else if (event.type === 'pruned') for (const id of event.execution_ids) this.named.add(id);
    else if (event.type !== 'content' && event.type !== 'project') this.known = undefined;
  }

  /** Every unfinished run: read whole, or the last whole reading with the runs events named read again. */
  private readUnfinished(): Promise<ExecutionSummary[]> {
    const go = () => {
      const known = this.known;
      const named = [...this.named];
      this.named.clear();
      const wholeNow = !known || known.runs.size < this.whole.belowRuns || Date.now() - known.readAt >= this.whole.everyMs || named.length > MAX_LISTED_IDS;
      return (wholeNow ? this.readWhole() : this.readNamed(known, named)).catch((ex: unknown) => {
        this.known = undefined; // read whole next time: what failed to be read is not known
        throw ex;
      });
    };
    const read = this.reading ? this.reading.then(go) : go();
    const done = read.then(() => undefined, () => undefined).finally(() => {
      if (this.reading === done) this.reading = undefined;
    });
    this.reading = done;
    return read;
  }

  private async readWhole(): Promise<ExecutionSummary[]> {
    const readAt = Date.now();
    const runs = await listUnfinished(this.source);
    this.known = { runs: new Map(runs.map((e) => [e.execution_id, e])), readAt };
    return runs;
  }

  /**
   * The known runs with those of `named` read again: the unfinished ones replace (or join) what was known, the others
   * (finished, or deleted) leave. An owner that predates `ids` answers with its newest unfinished runs instead: one
   * that was not asked for has the list read whole.
   */
  private async readNamed(known: KnownRuns, named: string[]): Promise<ExecutionSummary[]> {
    if (named.length) {
      const asked = new Set(named);
      const runs = await this.source.listExecutions({ active_only: true, ids: named, limit: named.length });
      // Read whole when a run came that was not asked for, or the connection changed meanwhile.
      if (this.known !== known || runs.some((e) => !asked.has(e.execution_id))) return this.readWhole();
      const answered = new Map(runs.map((e) => [e.execution_id, e]));
      for (const id of named) {
        const e = answered.get(id);
        if (!e) known.runs.delete(id);
        else if (known.runs.has(id)) known.runs.set(id, e); // in its place: among runs started in the same ms, the core's order
      }
      // New runs come before the known ones started in the same ms, as the core lists them (the newest row first).
      const fresh = runs.filter((e) => !known.runs.has(e.execution_id)).map((e) => [e.execution_id, e] as const);
      if (fresh.length) known.runs = new Map([...fresh, ...known.runs]);
    }
    return [...known.runs.values()].sort(newestFirst);
  }

  private timed<T>(read: () => Promise<T>): Promise<T> {
    const epoch = this.epoch;
    const started = (this.startedAt ??= Date.now());
    // A costly refresh runs less often (Coalescer.costs); a reading of an earlier refresh does not count.
    return read().finally(() => {
      if (epoch === this.epoch) this.soon.costs(Date.now() - started);
    });
  }
}

/** The core's order of a listing: the newest started first (ties in the order they were read). */
function newestFirst(a: ExecutionSummary, b: ExecutionSummary): number {
  return a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : 0;
}
