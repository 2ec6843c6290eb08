// Caches of what the database holds (rows seen stored, rows as last written) stay right only while the store has
// undone none of its writes: the writes they took as made may be among those undone (see Store.rollbacks).
import type { Store } from './ports.js';

/**
 * Tells a cache of what the store holds whether it still does. Once the store has undone writes since the last look,
 * `onUndo` empties the cache first. A store that does not count its undone writes is never trusted.
 */
export class UndoWatch {
  private seen: number | undefined;

  constructor(private readonly store: Store, private readonly onUndo: () => void) {}

  /** Whether the cache holds (emptied first if the store undid writes since the last look). */
  holds(): boolean {
    const rollbacks = this.store.rollbacks?.();
    if (rollbacks === undefined) return false;
    if (rollbacks !== this.seen) {
      this.onUndo();
      this.seen = rollbacks;
    }
    return true;
  }
}
