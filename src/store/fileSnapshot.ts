// What a checkpoint writes: the committed database as it was when the checkpoint began, read in chunks while calls
// go on changing it. With the bundle's patched sql.js (scripts/sqljsPatch.mjs) the chunks come straight from its
// in-memory file, and a page that is about to change before its chunk was read is copied aside first (copy on
// write); the event loop pays a memcpy per chunk instead of writing the whole file synchronously. Without the patch
// (tests and tools running the TypeScript sources) the source is a copy made by export().

/** A database snapshot to read once, front to back. */
export interface SnapshotSource {
  readonly size: number;
  /**
   * Bytes [offset, offset + length) of the snapshot. Reads go front to back; the bytes returned stay valid until
   * the next read or `close()`.
   */
  read(offset: number, length: number): Uint8Array;
  /** Stops preserving pages (call once written, or on failure). */
  close(): void;
}

/** The fields of an Emscripten MEMFS file node used here, and the hooks the patch calls. */
export interface MemfsFileNode {
  /** The file's array (replaced when the file grows or is resized). */
  Ua: Uint8Array | null;
  /** The file's length in bytes. */
  Wa: number;
  batonBeforeWrite?: ((position: number, length: number) => void) | undefined;
  batonBeforeResize?: ((size: number) => void) | undefined;
}

/** Pages are preserved in units of this many bytes (SQLite's default page size; any alignment works). */
const PAGE = 4096;
/** Bytes handed to one write; also the one buffer reads are copied into. */
export const SNAPSHOT_CHUNK = 1024 * 1024;

/** A snapshot of `bytes`, which nothing changes meanwhile (export()'s copy). */
export function bufferSnapshot(bytes: Uint8Array): SnapshotSource {
  return {
    size: bytes.length,
    read: (offset, length) => bytes.subarray(offset, offset + length),
    close: () => undefined,
  };
}

/** A copy-on-write snapshot of a patched sql.js's in-memory database file, taken outside any transaction. */
export function memfsSnapshot(node: MemfsFileNode): SnapshotSource {
  if (node.batonBeforeWrite || node.batonBeforeResize) throw new Error('a snapshot of this database is already being written');
  const size = node.Wa;
  /** Everything before this offset was read already; a change there no longer matters. */
  let copied = 0;
  /** Original bytes of pages changed since the snapshot began and not yet read, by page index. */
  const saved = new Map<number, Uint8Array>();
  let buffer: Uint8Array | null = null;

  const preserve = (from: number, to: number) => {
    const start = Math.max(from, copied);
    const end = Math.min(to, size);
    if (start >= end) return;
    const file = node.Ua!;
    for (let page = Math.floor(start / PAGE); page * PAGE < end; page++) {
      if (saved.has(page)) continue;
      const at = page * PAGE;
      // A copy: the array may be a Buffer (a database opened from a file), whose slice() is a view.
      saved.set(page, new Uint8Array(file.subarray(at, Math.min(at + PAGE, size))));
    }
  };
  node.batonBeforeWrite = (position, length) => preserve(position, position + length);
  // A resize keeps the bytes below the new size; the ones above it are lost (shrink) or zeroed later (extend).
  node.batonBeforeResize = (newSize) => preserve(newSize, size);

  return {
    size,
    read(offset, length) {
      if (offset !== copied) throw new Error(`snapshot reads go front to back: asked for ${offset}, at ${copied}`);
      const end = Math.min(offset + length, size);
      const n = end - offset;
      if (!buffer || buffer.length < n) buffer = new Uint8Array(Math.max(n, SNAPSHOT_CHUNK));
      const out = buffer.subarray(0, n);
      const file = node.Ua;
      // The part the file still holds (it may have shrunk; those pages are in `saved`).
      const live = Math.max(0, Math.min(end, node.Wa) - offset);
      if (live > 0) out.set(file!.subarray(offset, offset + live));
      for (let page = Math.floor(offset / PAGE); page * PAGE < end; page++) {
        const original = saved.get(page);
        if (!original) continue;
        const at = page * PAGE;
        // A page straddling the chunk's start was read with the chunk before; only its part in this chunk counts.
        const from = Math.max(at, offset);
        out.set(original.subarray(from - at, Math.min(at + original.length, end) - at), from - offset);
        if (at + original.length <= end) saved.delete(page);
      }
      copied = end;
      return out;
    },
    close() {
      node.batonBeforeWrite = undefined;
      node.batonBeforeResize = undefined;
      saved.clear();
      buffer = null;
    },
  };
}
