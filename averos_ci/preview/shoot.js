// Screenshots of a generated Averos application's entity pages, for `averos-ci preview
// --screenshot DIR`: headless Chromium (the system's) through playwright-core.
//
//   node shoot.js <spec.json>
//
// spec: {"baseUrl", "chromium", "shots" (dir), "pages": [{"name", "kind": "create"|"search",
//        "path"}], "login": {"user", "password"}, "hostRules": "MAP locahost 127.0.0.1",
//        "allowHosts": ["127.0.0.1", ...], "timeoutMs": 60000}
// Prints one JSON line: {"loggedIn": bool, "pages": [{"name", "path", "url", "png", "text",
// "ok", "error"?}], "errors": [...]}. A page fails when its content does not render: a create
// page without a form field, a search page whose search lists no record.
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

// Without the background-networking flags Chromium's own connections (component updates,
// safe browsing, ...) get refused en masse on hosts without a route to the internet.
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

async function main() {
  const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const args = [...ARGS];
  if (spec.hostRules) args.push(`--host-resolver-rules=${spec.hostRules}`);
  // launch() gives Chromium a fresh temporary --user-data-dir of its own.
  const browser = await chromium.launch({ executablePath: spec.chromium, args, headless: true });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  page.setDefaultTimeout(spec.timeoutMs || 60000);
  const allow = new Set(spec.allowHosts || ['127.0.0.1', 'localhost']);
  // The app asks Google Fonts for its icon font; only the app and its backend are reached.
  await page.route((url) => !allow.has(url.hostname), (r) => r.abort());
  const base = spec.baseUrl.replace(/\/$/, '');
  const result = { loggedIn: false, pages: [], errors: [] };
  page.on('pageerror', (e) => result.errors.push(String(e).slice(0, 300)));

  // Pages are reached inside the running app (the Angular router, as its menu links do): a
  // full load of an entity page sometimes renders it empty in @wiforge/averos 1.4.1.
  const navigate = async (route) => {
    await page.evaluate((r) => {
      window.history.pushState(null, '', r);
      window.dispatchEvent(new PopStateEvent('popstate', { state: null }));
    }, route);
    await page.waitForLoadState('networkidle');
  };
  const logIn = async () => {
    await page.goto(`${base}/login`);
    await page.waitForLoadState('networkidle');
    await page.fill('input[formcontrolname=userName]', spec.login.user);
    await page.fill('input[formcontrolname=password]', spec.login.password);
    await page.click('form button[type=submit]');
    await page.waitForURL((u) => !u.pathname.startsWith('/login'));
    await page.waitForLoadState('networkidle');
    result.loggedIn = true;
  };

  if (spec.login) {
    await logIn(); // the entity routes sit behind AuthenticationGuard
  } else {
    await page.goto(`${base}/`);
    await page.waitForLoadState('networkidle');
  }
  for (const p of spec.pages) {
    const entry = { name: p.name, kind: p.kind, path: p.path, png: `${p.name}.png`, ok: true };
    try {
      await navigate(p.path);
      if (p.kind === 'create') {
        await page.locator('router-outlet ~ * mat-form-field').first().waitFor();
      } else {
        await page.getByRole('button', { name: /search/i }).last().click();
        await page.locator('mat-row, tr.mat-row, tr.mat-mdc-row').first().waitFor();
        await page.waitForLoadState('networkidle');
      }
      const at = new URL(page.url()).pathname;
      if (!at.startsWith(p.path)) throw new Error(`${p.path} redirected to ${at}`);
    } catch (err) {
      entry.ok = false;
      entry.error = String((err && err.message) || err).split('\n').slice(0, 4).join('\n');
    }
    entry.url = page.url();
    try {
      await page.screenshot({ path: path.join(spec.shots, entry.png), fullPage: true });
      entry.text = await page.evaluate(() => document.body.innerText);
    } catch (err) {
      entry.ok = false;
      entry.error = `${entry.error || ''}\nscreenshot: ${String(err && err.message)}`.trim();
      entry.text = entry.text || '';
    }
    if (entry.ok && !entry.text.trim()) {
      entry.ok = false;
      entry.error = 'the page is blank';
    }
    result.pages.push(entry);
  }
  await browser.close();
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((err) => {
  process.stdout.write(JSON.stringify({ fatal: String((err && err.stack) || err) }) + '\n');
  process.exitCode = 1;
});
