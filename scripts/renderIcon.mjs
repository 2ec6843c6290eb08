// `npm run icon`: renders media/icon.svg (the marketplace icon's source) to media/icon.png, 128×128 with a transparent
// background, in headless Chromium through playwright-core. `--preview FILE` also writes a sheet of the icon at 128 and
// 32 px on a light and a dark background, to check that it reads at both sizes on both themes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { editorHostPaths } from './editorHost.mjs';

const root = join(new URL('.', import.meta.url).pathname, '..');
const SIZE = 128;
const svgPath = join(root, 'media', 'icon.svg');
const pngPath = join(root, 'media', 'icon.png');

const args = process.argv.slice(2);
const previewAt = args.includes('--preview') ? args[args.indexOf('--preview') + 1] : undefined;
const executablePath = editorHostPaths().chromium;
if (!executablePath) {
  console.error('npm run icon: Chromium is needed (apt-get install -y chromium, or set BATON_CHROMIUM)');
  process.exit(1);
}

const svg = readFileSync(svgPath, 'utf8');
const dataUrl = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--font-render-hinting=none'] });
try {
  const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE }, deviceScaleFactor: 1 });
  await page.setContent(`<html><body style="margin:0;background:transparent"><img id="i" src="${dataUrl}" width="${SIZE}" height="${SIZE}"></body></html>`);
  await page.waitForFunction(() => document.getElementById('i').complete);
  writeFileSync(pngPath, await page.locator('#i').screenshot({ omitBackground: true }));
  console.log(`media/icon.png: ${SIZE}×${SIZE} from media/icon.svg`);

  if (previewAt) {
    // The PNG itself (not the SVG), scaled down the way the editor's extension list shows it.
    const png = `data:image/png;base64,${readFileSync(pngPath).toString('base64')}`;
    const tile = (bg) =>
      `<div style="background:${bg};padding:16px;display:flex;gap:24px;align-items:center">` +
      `<img src="${png}" width="128" height="128"><img src="${png}" width="32" height="32"><img src="${png}" width="24" height="24">` +
      `<canvas data-zoom width="32" height="32" style="width:128px;height:128px;image-rendering:pixelated"></canvas></div>`;
    await page.setViewportSize({ width: 640, height: 480 });
    await page.setContent(`<html><body style="margin:0">${tile('#ffffff')}${tile('#f3f3f3')}${tile('#1e1e1e')}</body></html>`);
    // The 32 px rendering, blown up pixel by pixel.
    await page.evaluate(async (src) => {
      const img = new Image();
      img.src = src;
      await img.decode();
      for (const canvas of document.querySelectorAll('canvas[data-zoom]')) canvas.getContext('2d').drawImage(img, 0, 0, 32, 32);
    }, png);
    await page.screenshot({ path: previewAt, fullPage: true });
    console.log(`preview: ${previewAt}`);
  }
} finally {
  await browser.close();
}
