// Types for scripts/installLock.mjs, so the TypeScript tests can import it.
export interface InstallLockOptions {
  /** Names the installer in messages ("editor host"). */
  label: string;
  /** Said once while another process holds the lock. */
  waiting: string;
  maxWaitMs: number;
  log: (line: string) => void;
  pollMs?: number;
}
export function takeInstallLock(lockDir: string, options: InstallLockOptions): Promise<() => void>;
export function lockIsStale(lockDir: string): boolean;
/** process.env without what an enclosing `npm run` sets (npm_*, INIT_CWD, NODE), for a child npm. */
export function cleanEnv(): NodeJS.ProcessEnv;
