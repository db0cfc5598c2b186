// SPDX-License-Identifier: MIT
// The browser consumers in Debian's chromium, headless, driven by playwright-core (no browser download): serves
// this folder (serve.js) and opens each built page, and 'vite-dev' the vite consumer from vite's dev server; each must
// report OK from its main thread and its Web Worker with no console error, no failed request and no HTTP error.
// Saves a screenshot of each page into SCREENSHOTS (default ./out/screenshots). CHROMIUM: another Chromium binary.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { serve } from './serve.js';

const pages = process.argv.slice(2); // e.g. out/esbuild-web/ out/vite/ plain/ vite-dev
const shots = process.env.SCREENSHOTS || 'out/screenshots';
mkdirSync(shots, { recursive: true });
const server = await serve('.');
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'] });
let failed = false;
try {
  console.log(`browser: ${browser.version()}`);
  for (const where of pages) {
    const page = await browser.newPage({ viewport: { width: 900, height: 620 } });
    const problems = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
    page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
    const wasm = [];
    page.on('response', (r) => {
      if (r.url().endsWith('.wasm')) wasm.push(`${new URL(r.url()).pathname} (${r.headers()['content-type']})`);
    });
    let dev = null;
    if (where === 'vite-dev') {
      const { createServer } = await import('vite');
      dev = await createServer({ root: 'vite', logLevel: 'warn', server: { host: '127.0.0.1', port: 0 } });
      await dev.listen();
      await page.goto(dev.resolvedUrls.local[0]);
    } else {
      await page.goto(base + where);
    }
    let result = 'timeout';
    try {
      await page.waitForSelector('body[data-result]', { timeout: 30000 });
      result = await page.evaluate(() => document.body.dataset.result);
    } catch (e) {
      problems.push(`no result in 30 s: ${e.message.split('\n')[0]}`);
    }
    const lines = await page.evaluate(() => [...document.querySelectorAll('#log p')].map((p) => p.textContent));
    for (const line of lines) console.log(`  ${line}`);
    console.log(`  .wasm fetched: ${wasm.join(', ') || 'none'}`);
    const shot = path.join(shots, `${where.replace(/^out\//, '').replace(/\/$/, '').replace(/\//g, '-')}.png`);
    await page.screenshot({ path: shot });
    if (result !== 'OK' || problems.length > 0 || wasm.length === 0) {
      failed = true;
      console.log(`browser: ${where}: FAIL (${result}) ${problems.join('; ')}`);
    } else {
      console.log(`browser: ${where}: OK (screenshot ${shot})`);
    }
    await page.close();
    await dev?.close();
  }
} finally {
  await browser.close();
  server.close();
}
process.exit(failed ? 1 : 0);
