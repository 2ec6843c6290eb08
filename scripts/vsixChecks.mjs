// The checks `npm run package` makes of a .vsix beyond its file list: a manifest the Marketplace accepts and that carries
// nothing of the tests, and a README whose images the package holds. Pure functions over the zip's bytes and entries,
// so the unit tests feed them bad manifests.
import { posix } from 'node:path';
import { inflateRawSync } from 'node:zlib';

export const ICON_SIZE = 128;
export const MAX_KEYWORDS = 30;
/** The Marketplace's categories: VS Code's EXTENSION_CATEGORIES (src/vs/platform/extensions/common/extensions.ts, 1.139). */
export const CATEGORIES = [
  'AI', 'Azure', 'Chat', 'Data Science', 'Debuggers', 'Extension Packs', 'Education', 'Formatters', 'Keymaps', 'Language Packs',
  'Linters', 'Machine Learning', 'Notebooks', 'Programming Languages', 'SCM Providers', 'Snippets', 'Testing', 'Themes',
  'Visualization', 'Other',
];

/**
 * What the Marketplace needs of the packaged manifest `m`, and what the product must not carry. `entries` are the paths
 * inside the package's extension/ folder; `readFile(path)` returns one of them. Returns the problems found.
 */
export function checkManifest(m, entries, readFile) {
  const found = [];
  if (typeof m.icon !== 'string' || !m.icon.endsWith('.png')) found.push(`manifest: icon must be a PNG (the Marketplace refuses SVG icons), got ${m.icon}`);
  else if (!entries.includes(posix.normalize(m.icon))) found.push(`manifest: the icon ${m.icon} is not in the vsix`);
  else {
    const { width, height } = pngSize(readFile(posix.normalize(m.icon)));
    if (width !== ICON_SIZE || height !== ICON_SIZE) found.push(`manifest: the icon is ${width}×${height}; it must be ${ICON_SIZE}×${ICON_SIZE}`);
  }
  const categories = m.categories ?? [];
  if (categories.length === 0) found.push('manifest: no categories');
  for (const c of categories) if (!CATEGORIES.includes(c)) found.push(`manifest: "${c}" is not a Marketplace category (${CATEGORIES.join(', ')})`);
  const keywords = m.keywords ?? [];
  if (keywords.length === 0 || keywords.length > MAX_KEYWORDS) found.push(`manifest: ${keywords.length} keywords; give 1 to ${MAX_KEYWORDS}`);
  if (new Set(keywords).size !== keywords.length) found.push('manifest: a keyword is listed twice');
  if (!/^#[0-9a-f]{6}$/i.test(m.galleryBanner?.color ?? '') || !['dark', 'light'].includes(m.galleryBanner?.theme)) {
    found.push(`manifest: galleryBanner needs a #rrggbb color and a dark or light theme, got ${JSON.stringify(m.galleryBanner)}`);
  }
  for (const key of ['repository', 'bugs', 'homepage']) {
    const value = m[key];
    if (value === undefined) continue;
    const url = typeof value === 'string' ? value : value?.url;
    if (!isPublicAddress(url)) found.push(`manifest: ${key} must be a real public https address or absent, got ${JSON.stringify(value)}`);
  }
  const text = JSON.stringify(m);
  if (/baton\.test\b/.test(text)) found.push('manifest: names a test command (baton.test.*): test hooks stay out of the product');
  const generated = (m.activationEvents ?? []).filter((e) => e.startsWith('onCommand:'));
  if (generated.length) found.push(`manifest: ${generated.join(', ')}: the editor generates onCommand: events from contributes.commands since 1.74`);
  return found;
}

/** The README's images must be files of the package (relative) or https addresses, and no SVG (the Marketplace refuses them). */
export function checkReadme(text, entries) {
  const found = [];
  const images = [...text.matchAll(/!\[[^\]]*\]\(([^)\s]+)[^)]*\)/g)].map((m) => m[1]);
  if (images.length === 0) found.push('readme: no screenshots');
  for (const src of images) {
    if (/\.svg$/i.test(src)) found.push(`readme: ${src} is an SVG; the Marketplace refuses SVG images`);
    if (/^https:\/\//.test(src)) continue;
    if (/^\w+:/.test(src)) found.push(`readme: ${src} is neither https nor a file of the package`);
    else if (!entries.includes(posix.normalize(src))) found.push(`readme: the image ${src} is not in the vsix`);
  }
  return found;
}

function isPublicAddress(url) {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' && !/(^|\.)(example\.(com|org|net)|localhost|invalid|test)$/i.test(u.hostname) && !/your|placeholder|todo|xxx/i.test(u.pathname);
  } catch {
    return false;
  }
}

/** Width and height from a PNG's IHDR chunk (0×0 when it is not a PNG). */
export function pngSize(buf) {
  if (buf.readUInt32BE(0) !== 0x89504e47 || buf.toString('ascii', 12, 16) !== 'IHDR') return { width: 0, height: 0 };
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

/** The central directory of a zip (the vsix is a plain zip): name, method, sizes and local header offset per entry. */
function centralDirectory(buf) {
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  if (eocd < 0) throw new Error('the vsix is not a zip file');
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const files = [];
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error('the vsix has a damaged central directory');
    const nameLength = buf.readUInt16LE(at + 28);
    const extraLength = buf.readUInt16LE(at + 30);
    const commentLength = buf.readUInt16LE(at + 32);
    files.push({
      name: buf.toString('utf8', at + 46, at + 46 + nameLength),
      method: buf.readUInt16LE(at + 10),
      compressedSize: buf.readUInt32LE(at + 20),
      offset: buf.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}

/** The names of a zip's entries. */
export function listZip(buf) {
  return centralDirectory(buf).map((f) => f.name);
}

/** One file of the zip, stored or deflated. */
export function readZipEntry(buf, name) {
  const file = centralDirectory(buf).find((f) => f.name === name);
  if (!file) throw new Error(`the vsix has no ${name}`);
  const header = file.offset;
  if (buf.readUInt32LE(header) !== 0x04034b50) throw new Error(`the vsix has a damaged entry: ${name}`);
  const start = header + 30 + buf.readUInt16LE(header + 26) + buf.readUInt16LE(header + 28);
  const data = buf.subarray(start, start + file.compressedSize);
  if (file.method === 0) return data;
  if (file.method === 8) return inflateRawSync(data);
  throw new Error(`the vsix stores ${name} with compression method ${file.method}`);
}
