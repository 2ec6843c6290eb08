// Watches what this process asks of the file system about names: each file created (open with O_CREAT), each
// folder made, each rename, and each folder fsynced, in order. The store's modules call node:fs through its module
// object, so replacing the functions on it (and syncing the ESM view of it) sees every call; `stop()` puts them back.
import { constants } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

type Fs = typeof import('node:fs');

/** One event: `create PATH`, `mkdir PATH`, `rename FROM -> TO`, or `sync FOLDER`. */
export type NameEvent = string;

/** Starts watching; `events` grows as the process works. */
export function watchNames(): { events: NameEvent[]; stop(): void } {
  const fs = require('node:fs') as Fs;
  const promises = require('node:fs/promises') as typeof import('node:fs/promises');
  const real = { openSync: fs.openSync, fsyncSync: fs.fsyncSync, closeSync: fs.closeSync, renameSync: fs.renameSync, mkdirSync: fs.mkdirSync };
  const realRename = promises.rename;
  const folders = new Map<number, string>();
  const events: NameEvent[] = [];
  const creates = (flags: unknown) =>
    typeof flags === 'number' ? (flags & constants.O_CREAT) !== 0 : typeof flags === 'string' && /[wa]/.test(flags);
  fs.openSync = ((path: string, flags?: unknown, mode?: unknown) => {
    const fd = (real.openSync as (...a: unknown[]) => number)(path, flags, mode);
    if (fs.fstatSync(fd).isDirectory()) folders.set(fd, String(path));
    else if (creates(flags)) events.push(`create ${String(path)}`);
    return fd;
  }) as Fs['openSync'];
  fs.fsyncSync = ((fd: number) => {
    const folder = folders.get(fd);
    if (folder !== undefined) events.push(`sync ${folder}`);
    real.fsyncSync(fd);
  }) as Fs['fsyncSync'];
  fs.closeSync = ((fd: number) => {
    folders.delete(fd);
    real.closeSync(fd);
  }) as Fs['closeSync'];
  fs.renameSync = ((from: string, to: string) => {
    real.renameSync(from, to);
    events.push(`rename ${String(from)} -> ${String(to)}`);
  }) as Fs['renameSync'];
  fs.mkdirSync = ((path: string, options?: unknown) => {
    const made = (real.mkdirSync as (...a: unknown[]) => string | undefined)(path, options);
    events.push(`mkdir ${String(path)}`);
    return made;
  }) as Fs['mkdirSync'];
  promises.rename = async (from, to) => {
    await realRename(from, to);
    events.push(`rename ${String(from)} -> ${String(to)}`);
  };
  syncBuiltinESMExports();
  return {
    events,
    stop() {
      Object.assign(fs, real);
      promises.rename = realRename;
      syncBuiltinESMExports();
    },
  };
}
