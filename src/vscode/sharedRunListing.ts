// One reading of the runs per refresh, shared by the views that list them. The tree and the status bar each listed
// every unfinished run on their own after each burst of core events, so with a thousand runs open the owner's event
// loop (the one that answers the agents) read them twice per refresh. Here one Coalescer paces both views: a refresh
// drops what was read and tells them; the first view to ask reads, the others get that same reading until the next
// refresh. An event after a reading began schedules the next refresh, so no view keeps a listing older than the
// events it was refreshed for. No 'vscode' import (unit-tested).
import type { ExecutionSummary } from '../core/api.js';
import type { BatonSource, SourceDisposable } from './batonSource.js';
import { Coalescer, type CoalescerTimes, REFRESH_TIMES } from './coalescer.js';
import { listUnfinished, mergeRuns, RECENT_RUNS, type RunListing } from './runListing.js';

/** What the shared listing reads and listens to (the editor's connection). */
export interface RunListingSource extends Pick<BatonSource, 'listExecutions'> {
  /** Core events (a step moved, a run started or ended). */
  onEvent(listener: () => void): SourceDisposable;
  /** The connection changed (started, failed, taken over): everything is read again at once. */
  onDidChange(listener: () => void): SourceDisposable;
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

  constructor(private readonly source: RunListingSource, times: CoalescerTimes = REFRESH_TIMES) {
    this.soon = new Coalescer(() => this.refresh(), times);
    this.subscriptions = [source.onEvent(() => this.refreshSoon()), source.onDidChange(() => this.refresh())];
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

  /** Drops what was read and tells every view now. */
  refresh(): void {
    this.soon.cancel();
    this.active = undefined;
    this.listing = undefined;
    this.startedAt = undefined;
    this.epoch++;
    for (const listener of [...this.listeners]) listener();
  }

  /** Every unfinished run, as read for this refresh (the status bar's reading; the tree's includes it). */
  unfinished(): Promise<ExecutionSummary[]> {
    return (this.active ??= this.timed(() => listUnfinished(this.source)));
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

  private timed<T>(read: () => Promise<T>): Promise<T> {
    const epoch = this.epoch;
    const started = (this.startedAt ??= Date.now());
    // A costly refresh runs less often (Coalescer.costs); a reading of an earlier refresh does not count.
    return read().finally(() => {
      if (epoch === this.epoch) this.soon.costs(Date.now() - started);
    });
  }
}
