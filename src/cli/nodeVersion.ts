// The Node versions Baton's CLI runs on. Its journal checksums each record with node:zlib's crc32, which came in Node
// 20.15 and 22.2 (never in 21): on an older Node, `baton mcp` answered the handshake and then died on the first write
// with a page of minified source, and the agent saw only its server gone.

/** What the CLI needs, in words (package.json's engines.node says the same). */
export const NODE_WANTED = '20.15 or newer (on the 22 line, 22.2 or newer)';

/** Why the Node running this process cannot run Baton's CLI, naming the fix; null when it can. */
export function nodeTooOld(version: string = process.versions.node, execPath: string = process.execPath): string | null {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if ((major === 20 && minor >= 15) || (major === 22 && minor >= 2) || major > 22) return null;
  return `this Node.js (${version}, ${execPath}) is too old for Baton, which needs Node.js ${NODE_WANTED}: install a newer `
    + 'Node (nodejs.org, or nvm install 22) and run Baton with it; in an agent\'s MCP config, give that node\'s full path as '
    + 'the command.';
}
