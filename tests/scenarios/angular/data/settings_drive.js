// Drives the generated ToDo example in headless Chromium (playwright-core) to see the manifest's
// settings at work (tests/scenarios/angular/test_angular_settings_browser.py):
//   - the page's <meta name="description"> (the application's description);
//   - a ToDoTask created on its create page: the body the app POSTs (its keys on the wire:
//     fieldMappings), then the task found on the search page (read back through them);
//   - a ToDoArea created on its create page: the body the app POSTs (its ID member under the
//     backend's identifier key) and the message it shows (the record named by its BusinessID);
//   - a ToDoArea deleted from the search page (its row's delete action, then the runtime's
//     "Continue"): the requests the app makes (deleteStrategy), the message it shows and the
//     result table's rows after it.
//
//   node settings_drive.js <scenario.json>
//   {"baseUrl", "shots", "chromium",
//    "create": {"fields": [{"label", "value"|"option"}], "expect": "<text in the result table>"},
//    "createArea": {"fields": [...]},
//    "deleteArea": {"row": "<text of the area's row in the result table>", "url": "<its URL's end>"}}
// Prints one JSON object: {"ok": true, "description", "createdBody", "found", "createdArea",
// "createAreaMessage", "deleteRequests", "deleteMessage", "rowsAfterDelete", "backend": [...]} or {"ok": false, "error", "shots"} (exit code 1).
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
  const shots = [];
  const browser = await chromium.launch({
    executablePath: scenario.chromium || '/usr/bin/chromium', args: ARGS, headless: true,
  });
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  page.setDefaultTimeout(scenario.timeoutMs || 60000);
  await page.route((url) => !['127.0.0.1', 'localhost'].includes(url.hostname), (r) => r.abort());
  const shot = async (name) => {
    const file = path.join(scenario.shots, `${String(shots.length + 1).padStart(2, '0')}-${name}.png`);
    await page.screenshot({ path: file });
    shots.push(file);
  };
  // inside the running app, as its menu links do (see tests/browser/drive.js)
  const navigate = async (route) => {
    await page.evaluate((r) => {
      window.history.pushState(null, '', r);
      window.dispatchEvent(new PopStateEvent('popstate', { state: null }));
    }, route);
    await page.waitForURL(`**${route}`);
  };
  const base = scenario.baseUrl.replace(/\/$/, '');
  const result = { ok: true, shots, backend: [] };
  page.on('requestfinished', async (r) => {
    if (r.url().startsWith(base)) return;
    const response = await r.response();
    result.backend.push(`${r.method()} ${r.url()} -> ${response ? response.status() : '?'}`);
  });
  try {
    await page.goto(`${base}/public`);
    await page.waitForLoadState('networkidle');
    result.description = await page.$eval('meta[name=description]', (m) => m.content).catch(() => null);
    const fill = async (fields) => {
      for (const f of fields) {
        const ff = page.locator(`mat-form-field:has(mat-label:text-is("${f.label}"))`).first();
        if (f.option !== undefined) {
          await ff.locator('mat-select').click();
          await page.locator('mat-option', { hasText: f.option }).first().click();
        } else {
          await ff.locator('input, textarea').first().fill(String(f.value));
        }
      }
    };
    if (scenario.createArea) {
      await navigate('/todoareas/create');
      await fill(scenario.createArea.fields);
      const posted = page.waitForRequest((r) => r.method() === 'POST' && !r.url().startsWith(base));
      posted.catch(() => {});
      await page.getByRole('button', { name: 'Save' }).click();
      result.createdArea = (await posted).postDataJSON();
      const message = page.getByText('has been created successfully').first();
      await message.waitFor();
      result.createAreaMessage = (await message.textContent()).replace(/\s+/g, ' ').trim();
      await shot('area-created');
      await page.getByRole('button', { name: 'Ok', exact: true }).click();
    }
    if (scenario.create) {
      await navigate('/todotasks/create');
      await fill(scenario.create.fields);
      const posted = page.waitForRequest((r) => r.method() === 'POST' && !r.url().startsWith(base));
      posted.catch(() => {});
      await page.getByRole('button', { name: 'Save' }).click();
      result.createdBody = (await posted).postDataJSON();
      await page.getByText('has been created successfully').waitFor();
      await shot('created');
      await page.getByRole('button', { name: 'Ok', exact: true }).click();
      await navigate('/todotasks/search');
      await page.getByRole('button', { name: /search/i }).last().click();
      await page.locator('mat-cell, td', { hasText: scenario.create.expect }).first().waitFor();
      result.found = true;
      await shot('found');
    }
    if (scenario.deleteArea) {
      await navigate('/todoareas/search');
      await page.getByRole('button', { name: /search/i }).last().click();
      const row = page.locator('tr', { hasText: scenario.deleteArea.row }).first();
      await row.waitFor();
      await shot('areas');
      const before = result.backend.length;
      await row.locator('button:has(mat-icon:text-is("delete"))').click();
      const deleted = page.waitForResponse(
        (r) => r.request().method() === 'DELETE' && r.url().endsWith(scenario.deleteArea.url));
      deleted.catch(() => {});
      await page.getByRole('button', { name: 'Continue' }).click(); // the runtime's confirmation
      await deleted;
      await page.waitForLoadState('networkidle');
      // requestfinished is recorded asynchronously (it awaits the response): wait for the last
      for (let i = 0; i < 100; i += 1) {
        if (result.backend.slice(before).some((r) => r.startsWith('DELETE') && r.includes(scenario.deleteArea.url))) break;
        await page.waitForTimeout(100);
      }
      result.deleteRequests = result.backend.slice(before);
      // what the user sees: the page's message (the record named by its BusinessID), in the
      // runtime's dialog ...
      const message = page.locator('mat-dialog-container', { hasText: 'successfully' }).first();
      await message.waitFor();
      result.deleteMessage = (await message.textContent()).replace(/\s+/g, ' ').trim();
      await shot('deleted');
      await page.getByRole('button', { name: 'Ok', exact: true }).click();
      // ... and the result table without the record's row
      await row.waitFor({ state: 'detached', timeout: 15000 }).catch(() => {}); // the test asserts
      result.rowsAfterDelete = (await page.locator('tr').allTextContents())
        .map((t) => t.replace(/\s+/g, ' ').trim());
    }
  } catch (err) {
    result.ok = false;
    result.error = String((err && err.message) || err).split('\n').slice(0, 6).join('\n');
    result.url = page.url();
    try { await shot('failure'); } catch (_) { /* the page is gone */ }
  }
  await browser.close();
  process.stdout.write(JSON.stringify(result) + '\n');
  process.exitCode = result.ok ? 0 : 1;
}

main().catch((err) => {
  process.stdout.write(JSON.stringify({ ok: false, error: String(err && err.stack || err) }) + '\n');
  process.exitCode = 1;
});
