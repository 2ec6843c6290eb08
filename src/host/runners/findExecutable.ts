// Finds an executable the way a shell would (without running one): a path as given, else each folder of PATH.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** The absolute path of `command` (a name looked up on `pathEnv`, or a path relative to `cwd`), or null. */
export function findExecutable(command: string, pathEnv: string | undefined, cwd: string): string | null {
  if (command.includes('/') || command.includes('\\')) {
    const path = isAbsolute(command) ? command : resolve(cwd, command);
    return isExecutableFile(path) ? path : null;
  }
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, command);
    if (isExecutableFile(path)) return path;
  }
  return null;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why `command`, a path (relative to `cwd`), is no executable to run: a file without the execute permission or a
 * folder said as such, else not found.
 */
export function whyNotExecutable(command: string, cwd: string): string {
  const path = isAbsolute(command) ? command : resolve(cwd, command);
  try {
    const stat = statSync(path);
    if (stat.isDirectory()) return `is a folder (${path}), not a program`;
    return `is not executable (${path}): make it so with chmod +x, or name its interpreter first, as in [sh, ${command}]`;
  } catch {
    return `was not found (looked for ${path})`;
  }
}
