// Screenshots of a generated Averos application's entity pages, for `averos-ci preview
// --screenshot DIR`: headless Chromium (the system's) through playwright-core.
//
//   node shoot.js <spec.json>
//
// spec: {"baseUrl", "chromium", "shots" (dir), "pages": [{"name", "kind": "create"|"search",
//        "path"}], "login": {"user", "password"}, "hostRules": "MAP locahost 127.0.0.1",
//        "allowHosts": ["127.0.0.1", ...], "iconFonts": dir, "timeoutMs": 60000}
// Prints one JSON line: {"loggedIn": bool, "viewport": {"width", "height"}, "pages": [{"name",
// "path", "url", "png", "text", "status", "reason"?, "width", "icons", "iconsAsWords"}],
// "errors": [...]}. status: "failed" when the content does not render (a create page without
// a form field, a search page whose search lists no record), "too-wide" when the page is
// wider than the window (the screenshot shows the window's width: what a user sees), else
// "ok"; reason says why it is not "ok".
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
const VIEWPORT = { width: 1280, height: 860 };
// The app's index.html asks Google Fonts for its icon font; the browser gets the copy of the
// `material-icons` npm package instead (spec.iconFonts: its iconfont folder), or every icon
// shows as the first letters of its name. Other fonts fall back to the system's.
const ICON_CSS = {
  'Material Icons': 'filled.css',
  'Material Icons Outlined': 'outlined.css',
  'Material Icons Round': 'round.css',
  'Material Icons Sharp': 'sharp.css',
  'Material Icons Two Tone': 'two-tone.css',
};
const ICON_FILE = /^\/(material-icons(-outlined|-round|-sharp|-two-tone)?\.woff2?)$/;

// The answer to a request for fonts.googleapis.com, or null: a stylesheet of the icon fonts
// the URL names (their url()s are relative: the files are asked of the same host).
function iconFont(url, dir) {
  if (!dir || url.hostname !== 'fonts.googleapis.com' || !fs.existsSync(dir)) return null;
  const file = ICON_FILE.exec(url.pathname);
  if (file) {
    const type = file[1].endsWith('2') ? 'font/woff2' : 'font/woff';
    return { status: 200, contentType: type, body: fs.readFileSync(path.join(dir, file[1])) };
  }
  const families = url.searchParams.getAll('family').flatMap((f) => f.split('|'));
  const sheets = families.map((f) => ICON_CSS[f.split(':')[0].trim()]).filter(Boolean);
  if (!sheets.length) return null;
  const css = sheets.map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');
  return { status: 200, contentType: 'text/css', body: css };
}

async function main() {
  const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const args = [...ARGS];
  if (spec.hostRules) args.push(`--host-resolver-rules=${spec.hostRules}`);
  // launch() gives Chromium a fresh temporary --user-data-dir of its own.
  const browser = await chromium.launch({ executablePath: spec.chromium, args, headless: true });
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  page.setDefaultTimeout(spec.timeoutMs || 60000);
  const allow = new Set(spec.allowHosts || ['127.0.0.1', 'localhost']);
  // Only the app and its backend are reached; the icon font is served from the npm package.
  await page.route(
    (url) => !allow.has(url.hostname),
    (r) => {
      const font = iconFont(new URL(r.request().url()), spec.iconFonts);
      return font ? r.fulfill(font) : r.abort();
    },
  );
  const base = spec.baseUrl.replace(/\/$/, '');
  const result = { loggedIn: false, viewport: VIEWPORT, pages: [], errors: [] };
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

  // The page's size and its icons. A mat-icon's box is 24 px square whatever it shows, so
  // its text is measured: an icon drawn by the font is one glyph about as wide as the font
  // size; without the font it is its name in letters ("search"), cut to "sea" by the box.
  // Measured once the page is still: while an expansion panel opens the page is wider for
  // a moment (Averos's search page: 2,000 px, then 1,280).
  const layout = () => page.evaluate(async () => {
    await document.fonts.ready;
    const moving = document.getAnimations().filter((a) => a.playState === 'running'
      && a.effect && Number.isFinite(a.effect.getComputedTiming().endTime));
    await Promise.all(moving.map((a) => a.finished.catch(() => null)));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const root = document.documentElement;
    const icons = [...document.querySelectorAll('mat-icon, .material-icons')]
      .filter((e) => e.textContent.trim() && e.getClientRects().length)
      .map((e) => {
        const range = document.createRange();
        range.selectNodeContents(e);
        const size = parseFloat(getComputedStyle(e).fontSize) || 24;
        const asWord = range.getBoundingClientRect().width > 1.5 * size;
        return { text: e.textContent.trim(), asWord };
      });
    return {
      width: Math.max(root.scrollWidth, document.body.scrollWidth),
      height: Math.max(root.scrollHeight, document.body.scrollHeight),
      icons: icons.length,
      iconsAsWords: icons.filter((i) => i.asWord).map((i) => i.text),
    };
  });

  if (spec.login) {
    await logIn(); // the entity routes sit behind AuthenticationGuard
  } else {
    await page.goto(`${base}/`);
    await page.waitForLoadState('networkidle');
  }
  for (const p of spec.pages) {
    const entry = { name: p.name, kind: p.kind, path: p.path, png: `${p.name}.png` };
    let error = null;
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
      error = String((err && err.message) || err).split('\n').slice(0, 4).join('\n');
    }
    entry.url = page.url();
    try {
      Object.assign(entry, await layout());
      // the window's width, the page's whole height: a page wider than the window is cut
      // where a user's window cuts it, not shown 5,000 px wide with its content far right
      const clip = { x: 0, y: 0, width: VIEWPORT.width, height: Math.max(entry.height, 1) };
      const shot = { path: path.join(spec.shots, entry.png), fullPage: true, clip };
      await page.screenshot({ ...shot, animations: 'disabled' });
      entry.text = await page.evaluate(() => document.body.innerText);
    } catch (err) {
      error = `${error || ''}\nscreenshot: ${String(err && err.message)}`.trim();
      entry.text = entry.text || '';
    }
    if (!error && !entry.text.trim()) error = 'the page is blank';
    if (error) {
      Object.assign(entry, { status: 'failed', reason: error });
    } else if (entry.width > VIEWPORT.width) {
      const reason = `the page is ${entry.width} px wide, wider than the ${VIEWPORT.width} px `
        + 'window: a user scrolls sideways for the rest (the screenshot shows the window)';
      Object.assign(entry, { status: 'too-wide', reason });
    } else {
      entry.status = 'ok';
    }
    delete entry.height;
    result.pages.push(entry);
  }
  await browser.close();
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((err) => {
  process.stdout.write(JSON.stringify({ fatal: String((err && err.stack) || err) }) + '\n');
  process.exitCode = 1;
});
