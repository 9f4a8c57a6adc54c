// Drives a generated Averos application in headless Chromium (Debian's /usr/bin/chromium by
// default) through playwright-core, as a user would: log in, fill the entity's create page
// and save, list it on the search page, switch the language. Used by
// tests/scenarios/angular/test_angular_browser.py, which checks the backend's data itself.
//
//   node drive.js <scenario.json>
//
// The scenario (all steps optional except baseUrl and shots):
//   {"baseUrl": "http://127.0.0.1:4200", "shots": "/dir", "chromium": "/usr/bin/chromium",
//    "login": {"user": "u", "password": "p"},
//    "open": {"path": "/todotasks/create"},   (a full page load, no login: openedUrl says where
//                                              the app ended up, e.g. /login behind a guard)
//    "create": {"path": "/books/create", "fields": [{"label": "Title", "value": "Dune"},
//               {"label": "Genre", "option": "Novel"}]},
//    "search": {"path": "/books/search", "expect": "Dune"},
//    "language": {"code": "fr", "path": "/books/create", "expectLabel": "Titre"},
//    "menu": {"path": "/public", "visit": ["/books/search", "/shelfs/search"]}}
//   (menu: the side menu's entries and links, then each route of `visit` reached inside the
//    app: the path the router ended at and the elements rendered next to its outlets)
// Prints one JSON object: {"ok": true, "labels": [...], "shots": [...], "requests": [...],
// "menu": {"entries": [...], "links": [...], "routes": {"/route": {"path", "rendered"}}}}
// (requests: the URL of every request the page made, aborted ones included) or
// {"ok": false, "error": "...", "shots": [...]} (exit code 1).
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
  const scenario = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const shots = [];
  // launch() runs Chromium with a fresh temporary --user-data-dir of its own; a persistent
  // profile (launchPersistentContext) made the app's first render flaky here (disk cache).
  const browser = await chromium.launch({
    executablePath: scenario.chromium || '/usr/bin/chromium',
    args: ARGS,
    headless: true,
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  page.setDefaultTimeout(scenario.timeoutMs || 60000); // a loaded CI machine
  // The app asks Google Fonts for its icon font; only the app and its backend are local.
  await page.route((url) => !['127.0.0.1', 'localhost'].includes(url.hostname), (r) => r.abort());
  const shot = async (name) => {
    const file = path.join(scenario.shots, `${String(shots.length + 1).padStart(2, '0')}-${name}.png`);
    await page.screenshot({ path: file });
    shots.push(file);
  };
  const open = async (url) => {
    await page.goto(url);
    await page.waitForLoadState('networkidle');
  };
  // Entity pages are reached inside the running app (the Angular router, as its menu links
  // do), not by a full page load: loading one directly sometimes renders it empty in
  // @wiforge/averos 1.4.1 (its view-layout registration races the component; seen in 2 of 3
  // loads here with a warm cache).
  const navigate = async (route) => {
    await page.evaluate((r) => {
      window.history.pushState(null, '', r);
      window.dispatchEvent(new PopStateEvent('popstate', { state: null }));
    }, route);
    await page.waitForURL(`**${route}`);
  };
  const field = (label) => page.locator(`mat-form-field:has(mat-label:text-is("${label}"))`).first();
  const labels = async () =>
    page.$$eval('mat-form-field mat-label', (els) => els.map((e) => e.textContent.trim()));
  const result = { ok: true, labels: {}, shots, backend: [] };
  // What the app asked its backend: in the result, so that a failure shows it.
  page.on('requestfinished', async (r) => {
    if (r.url().startsWith(scenario.baseUrl)) return;
    const response = await r.response();
    result.backend.push(`${r.method()} ${r.url()} -> ${response ? response.status() : '?'}`);
  });
  result.errors = [];
  result.requests = [];
  page.on('request', (r) => result.requests.push(r.url()));
  page.on('pageerror', (e) => result.errors.push(String(e).slice(0, 300)));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().includes('ERR_FAILED')) result.errors.push(m.text().slice(0, 300));
  });
  page.on('requestfailed', (r) => {
    if (!r.url().startsWith(scenario.baseUrl) && !r.url().includes('fonts.g')) {
      result.backend.push(`${r.method()} ${r.url()} -> ${r.failure() && r.failure().errorText}`);
    }
  });
  try {
    const base = scenario.baseUrl.replace(/\/$/, '');
    if (scenario.login) {
      await open(`${base}/login`);
      await page.fill('input[formcontrolname=userName]', scenario.login.user);
      await page.fill('input[formcontrolname=password]', scenario.login.password);
      await shot('login');
      await page.click('form button[type=submit]');
      await page.waitForURL('**/home');
    }
    if (scenario.open) {
      await open(`${base}${scenario.open.path}`);
      result.openedUrl = page.url();
      await shot('opened');
    }
    if (scenario.create) {
      if (scenario.open) await navigate('/public'); // leave the directly loaded page first
      await navigate(scenario.create.path);
      for (const f of scenario.create.fields) {
        const ff = field(f.label);
        if (f.option !== undefined) {
          await ff.locator('mat-select').click();
          await page.locator('mat-option', { hasText: f.option }).first().click();
        } else {
          await ff.locator('input, textarea').first().fill(String(f.value));
        }
      }
      result.labels.create = await labels();
      await shot('create-filled');
      const saved = page.waitForResponse(
        (r) => r.request().method() === 'POST' && !r.url().startsWith(base));
      saved.catch(() => {}); // awaited below; never an unhandled rejection meanwhile
      await page.getByRole('button', { name: 'Save' }).click();
      const response = await saved;
      result.saveStatus = response.status();
      result.saveUrl = response.url();
      await page.getByText('has been created successfully').waitFor();
      await shot('created');
      await page.getByRole('button', { name: 'Ok', exact: true }).click(); // close the dialog
    }
    if (scenario.search) {
      await navigate(scenario.search.path);
      const searched = page.waitForResponse(
        (r) => r.request().method() === 'GET' && !r.url().startsWith(base));
      searched.catch(() => {});
      await page.getByRole('button', { name: /search/i }).last().click();
      result.searchUrl = (await searched).url();
      await page.locator('mat-cell, td', { hasText: scenario.search.expect }).first().waitFor();
      await shot('search');
    }
    if (scenario.language) {
      await page.locator('button[ng-reflect-message="Switch language"]').click();
      // The runtime stores the choice and reloads the page (window.location.reload()).
      const reloaded = page.waitForEvent('load');
      await page.locator(`.cdk-overlay-container mat-option[ng-reflect-value="${scenario.language.code}"]`).click();
      await reloaded;
      await page.waitForLoadState('networkidle');
      await navigate(scenario.language.path);
      await page.locator('mat-label', { hasText: scenario.language.expectLabel }).first().waitFor();
      result.labels.language = await labels();
      await shot(`language-${scenario.language.code}`);
    }
    if (scenario.menu) {
      if (!scenario.login && !scenario.open) await open(`${base}${scenario.menu.path || '/'}`);
      await page.locator('.averos-sidemenu-item .menu-name').first().waitFor({ state: 'attached' });
      const texts = (selector) => page.$$eval(selector, (els) => els.map((e) => e.textContent.trim()));
      result.menu = {
        entries: await texts('.averos-sidemenu-item .menu-name'),
        links: await page.$$eval('a.averos-sidemenu-link[href]', (els) => els.map((e) => e.getAttribute('href'))),
        routes: {},
      };
      await shot('menu');
      for (const route of scenario.menu.visit || []) {
        // as a menu link does; the router may redirect, so wait for the page, not the URL
        await page.evaluate((r) => {
          window.history.pushState(null, '', r);
          window.dispatchEvent(new PopStateEvent('popstate', { state: null }));
        }, route);
        await page.waitForLoadState('networkidle');
        await page.waitForFunction(() => { // the innermost outlet has rendered its component
          const outlets = document.querySelectorAll('router-outlet');
          return outlets.length > 0 && outlets[outlets.length - 1].nextElementSibling !== null;
        });
        result.menu.routes[route] = {
          path: new URL(page.url()).pathname,
          rendered: await page.$$eval('router-outlet ~ *', (els) => els.map((e) => e.tagName.toLowerCase())),
        };
        await shot(`visit${route.replace(/\W+/g, '-')}`);
      }
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
