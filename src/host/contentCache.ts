// The build's parses of the bundled content (dist/content-cache.json, see CachedParse): read once per process, and
// handed to the core, which then parses only the files whose name or text differ from the build's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheableParses, type CachedParse, type ContentParseCache } from '../core/content/index.js';
import { nodeCrypto, nodeFileSystem } from './nodePorts.js';

/** The cache file the build writes beside the bundles. */
export const CONTENT_CACHE_FILE = 'content-cache.json';

const read = new Map<string, ContentParseCache | undefined>();

/** The cache at `path` (beside this bundle by default), or undefined when there is none (run from source) or it is not one. */
export function readContentCache(path = join(__dirname, CONTENT_CACHE_FILE)): ContentParseCache | undefined {
  if (read.has(path)) return read.get(path);
  let cache: ContentParseCache | undefined;
  try {
    const parses = (JSON.parse(readFileSync(path, 'utf8')) as { parses?: unknown }).parses;
    const valid = Array.isArray(parses) && parses.every((p) => Array.isArray(p) && typeof p[0] === 'string' && typeof p[1]?.item === 'object');
    cache = valid ? new Map(parses as Array<[string, CachedParse]>) : undefined;
  } catch {
    cache = undefined;
  }
  read.set(path, cache);
  return cache;
}

/** The cache file's text for the content folder `dir` (the build's bundled content). */
export async function buildContentCache(dir: string): Promise<string> {
  return `${JSON.stringify({ parses: await cacheableParses(nodeFileSystem, dir, nodeCrypto) })}\n`;
}
