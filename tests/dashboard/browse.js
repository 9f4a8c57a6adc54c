// Opens the dashboard in headless Chromium (Debian's /usr/bin/chromium) through
// playwright-core, as a reader would: the overview, then a project's history page reached by
// clicking its link. Records every request the pages make (none may leave 127.0.0.1: such a
// request is recorded, then aborted) and every dialog (a script that ran would open one).
//
//   node browse.js <scenario.json>
//   {"baseUrl": "http://127.0.0.1:PORT", "chromium": "/usr/bin/chromium", "shots": "/dir",
//    "project": "default"}
// Prints one JSON object: {"ok": true, "index": {...}, "history": {...}, "requests": [...],
//  "offsite": [...], "dialogs": [...], "shots": [...]} or {"ok": false, "error": "..."}.
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

async function main() {
  const scenario = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const result = { ok: true, requests: [], offsite: [], dialogs: [], shots: [] };
  const browser = await chromium.launch({
    executablePath: scenario.chromium || '/usr/bin/chromium', args: ARGS, headless: true,
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).hostname !== '127.0.0.1') {
        result.offsite.push(url);
        return route.abort();
      }
      return route.continue();
    });
    const page = await context.newPage();
    page.setDefaultTimeout(scenario.timeoutMs || 30000);
    page.on('request', (r) => result.requests.push(r.url()));
    page.on('dialog', async (d) => { result.dialogs.push(d.message()); await d.dismiss(); });
    const shot = async (name) => {
      const file = path.join(scenario.shots, `${result.shots.length + 1}-${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      result.shots.push(file);
    };
    const read = async () => ({
      url: page.url(),
      title: await page.title(),
      text: await page.innerText('main'),
      headings: await page.$$eval('h1, h2, h3', (hs) => hs.map((h) => `${h.tagName} ${h.textContent.trim()}`)),
      captions: await page.$$eval('caption', (cs) => cs.map((c) => c.textContent.trim())),
      // the stylesheet is applied (loaded from the site itself)
      collapse: await page.$eval('table', (t) => getComputedStyle(t).borderCollapse).catch(() => null),
    });
    await page.goto(`${scenario.baseUrl}/index.html`);
    await page.waitForLoadState('networkidle');
    result.index = await read();
    result.index.rows = await page.$$eval('#projects + table tbody tr', (rows) =>
      rows.map((r) => Array.from(r.children, (c) => c.innerText.trim())));
    await shot('index');
    await page.locator('#projects + table').getByRole('link', { name: scenario.project, exact: true }).click();
    await page.waitForLoadState('networkidle');
    result.history = await read();
    await shot('history');
  } catch (err) {
    result.ok = false;
    result.error = String(err && err.stack || err);
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(result));
  process.exit(result.ok ? 0 : 1);
}

main();
