// Helpers shared by the end-to-end tests: launching Debian's Chromium, opening the site
// in a fresh context that records every request, and driving and reading the app.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { chromium } from 'playwright-core';
import { serveDirectory } from './static-server.mjs';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const dist = resolve(process.env.PROXIMA_DIST ?? join(repoRoot, 'dist'));
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';

// Headless Chromium as root, with nothing of its own reaching out to the network.
// Playwright adds --headless and --no-sandbox itself and gives every launch a fresh,
// temporary --user-data-dir.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launches headless Chromium (after checking that the site was built). */
export async function launchBrowser() {
  assert.ok(
    existsSync(join(dist, 'index.html')),
    `${dist}/index.html is missing: run \`trunk build --release\` first (scripts/test.sh does)`,
  );
  return chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
}

/**
 * The set-up most test files share, registered as the file's `before` and `after` hooks:
 * Chromium launched, dist/ served on a local port and, when `tempPrefix` is given, a
 * fresh temporary directory named after it; all closed or removed after the file's tests.
 * Call it at the top level of a test file. The handles (`browser`, `server`, `origin`,
 * `dir`) are filled in on the returned object when the hook runs, so read them inside
 * tests, not at import time.
 */
export function useSite({ tempPrefix = null } = {}) {
  const site = { browser: null, server: null, origin: null, dir: null };
  before(async () => {
    site.browser = await launchBrowser();
    site.server = await serveDirectory(dist);
    site.origin = site.server.origin;
    if (tempPrefix) site.dir = await mkdtemp(join(tmpdir(), tempPrefix));
  });
  after(async () => {
    await site.browser?.close();
    await site.server?.close();
    if (site.dir) await rm(site.dir, { recursive: true, force: true });
  });
  return site;
}

/**
 * Opens `url` in a fresh browser context and records everything the page does: every
 * request (requests to any other origin than `origin` are also blocked, so a failing
 * test sends nothing out), failed requests, console errors (a CSP violation is one),
 * uncaught exceptions.
 */
export async function openPage(browser, url, origin, context = null) {
  context ??= await browser.newContext({ acceptDownloads: true });
  const record = { requests: [], failed: [], consoleErrors: [], pageErrors: [], responses: [] };
  context.on('request', (req) => record.requests.push(req.url()));
  context.on('requestfailed', (req) => record.failed.push(`${req.url()}: ${req.failure()?.errorText}`));
  context.on('response', (res) => record.responses.push(res));
  await context.route('**/*', (route) =>
    new URL(route.request().url()).origin === origin ? route.continue() : route.abort('blockedbyclient'),
  );
  const page = await context.newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error') record.consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => record.pageErrors.push(String(err)));
  await page.goto(url);
  return { context, page, record };
}

/** Waits for the app to start, saying why it did not if it does not. */
export async function waitForApp({ page, record }) {
  // The button only exists once the wasm module has loaded and yew has rendered.
  const run = page.getByTestId('run-button');
  await run.waitFor({ state: 'visible', timeout: 30_000 }).catch((err) => {
    // Say why the app did not start: a blocked script shows up as a console error.
    throw new Error(
      `${err.message}\nconsole errors: ${JSON.stringify(record.consoleErrors)}` +
        `\npage errors: ${JSON.stringify(record.pageErrors)}\nfailed requests: ${JSON.stringify(record.failed)}`,
    );
  });
  return run;
}

/**
 * What every test checks at its end: nothing left the local server, nothing outside the
 * site's own directory was asked for (every URL in the site is relative), and nothing
 * failed or was reported as an error (CSP violations show up as console errors).
 */
export function checkClean(record, { origin, prefix }) {
  assert.ok(record.requests.length >= 3, `too few requests recorded: ${record.requests}`);
  const outside = record.requests.filter((u) => !u.startsWith(`${origin}${prefix}`));
  assert.deepEqual(outside, [], `requests outside ${origin}${prefix}`);
  assert.deepEqual(record.failed, [], 'failed requests');
  assert.deepEqual(record.pageErrors, [], 'uncaught errors in the page');
  assert.deepEqual(record.consoleErrors, [], 'console errors (CSP violations show up here)');
}

/**
 * Reads `read()` until it gives `expected` (deep-equal; a match when `expected` is a
 * RegExp; true from it when it is a function), then asserts it, so that a failure shows
 * the last value read. The app renders on yew's scheduler, which hands the thread back to
 * the browser every 16 ms, so what a click or a key changes may reach the DOM a task or
 * two after Playwright's action has returned; one read right after the action races the
 * render on a loaded machine.
 */
export async function eventually(read, expected, message, timeout = 10_000) {
  const holds = (v) => {
    if (expected instanceof RegExp) return typeof v === 'string' && expected.test(v);
    if (typeof expected === 'function') return expected(v);
    return isDeepStrictEqual(v, expected);
  };
  const end = Date.now() + timeout;
  let actual = await read();
  while (!holds(actual) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 20));
    actual = await read();
  }
  if (expected instanceof RegExp) assert.match(actual, expected, message);
  else if (typeof expected === 'function') assert.ok(expected(actual), `${message ?? 'never held'}: ${JSON.stringify(actual)}`);
  else assert.deepEqual(actual, expected, message);
  return actual;
}

/** Presses Run and waits until the summary table has a column for each of `policies` policies and the run is over. */
export async function runAndWait(page, policies, timeout = 60_000) {
  await page.getByTestId('run-button').click();
  await page.getByTestId('summary-table').locator('thead th[data-policy]').nth(policies - 1).waitFor({ timeout });
  await page.waitForFunction(() => !document.querySelector('[data-testid=run-button]').disabled, null, { timeout });
}

/** Fills the synthetic trace generator's first three fields: jobs, load and its seed. */
export async function setGenerator(page, jobs, load, seed) {
  const gen = page.locator('.generator input');
  for (const [i, v] of [[0, jobs], [1, load], [2, seed]]) {
    await gen.nth(i).fill(String(v));
    await gen.nth(i).dispatchEvent('change');
  }
}

/** Sets the run's seed. */
export async function setSeed(page, seed) {
  await page.getByTestId('seed-input').fill(String(seed));
  await page.getByTestId('seed-input').dispatchEvent('change');
}

/** Ticks exactly these policies in the policy list. */
export async function choosePolicies(page, wanted) {
  const boxes = page.getByTestId('policy-select').locator('input[type=checkbox]');
  for (let i = 0; i < (await boxes.count()); i++) {
    const box = boxes.nth(i);
    const value = await box.getAttribute('value');
    if ((await box.isChecked()) !== wanted.includes(value)) await box.click();
  }
}

/**
 * The summary table as {policy: {metric: number}}, read from the cells' raw values
 * (`data-value`, the number as summary.json writes it), policies in column order.
 */
export async function readSummaryTable(page) {
  return page.getByTestId('summary-table').evaluate((table) => {
    const out = {};
    for (const th of table.querySelectorAll('thead th[data-policy]')) out[th.dataset.policy] = {};
    for (const td of table.querySelectorAll('td[data-metric][data-policy]')) out[td.dataset.policy][td.dataset.metric] = Number(td.dataset.value);
    return out;
  });
}

/** Downloads the export named `which` (its data-export) and returns its text. */
export async function exported(page, which) {
  const summary = page.getByTestId('export-button');
  const details = summary.locator('xpath=..');
  if (!(await details.evaluate((d) => d.open))) await summary.click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator(`[data-export="${which}"]`).click(),
  ]);
  return readFile(await download.path(), 'utf8');
}

/** The CLI binary: `cargo test --workspace` (step 1 of scripts/test.sh) builds it fresh. */
export function cliBinary() {
  const candidates = [process.env.PROXIMA_CLI, join(repoRoot, 'target/debug/proxima'), join(repoRoot, 'target/release/proxima')];
  const found = candidates.find((c) => c && existsSync(c));
  assert.ok(found, 'no proxima binary: run `cargo build -p proxima-cli` (scripts/test.sh does) or set PROXIMA_CLI');
  return found;
}

/**
 * A fresh page on `path` of `site`, recorded as `openPage` records it (only the site's
 * origin reachable), once Run is on it. `context` holds the browser context's options
 * (viewport, deviceScaleFactor, isMobile, …; Playwright's defaults otherwise). `preset`
 * ({ name, gpus }) chooses a cluster preset first and waits until the editor counts its
 * GPUs, for tests written against one cluster rather than the page's default.
 */
export async function openApp(site, { path = '/', context = {}, preset = null } = {}) {
  const browserContext = await site.browser.newContext({ acceptDownloads: true, ...context });
  const opened = await openPage(site.browser, `${site.origin}${path}`, site.origin, browserContext);
  await waitForApp(opened);
  if (preset) {
    await opened.page.locator('#topology select').first().selectOption(preset.name);
    await opened.page.waitForFunction(
      (gpus) => document.querySelector('[data-testid=gpu-count]')?.textContent === String(gpus), preset.gpus);
  }
  return opened;
}

/**
 * A fresh page of this size on `path` of `site`, with only the site's origin reachable,
 * once Run is on it; `errors` collects the page's uncaught exceptions.
 */
export async function openSized(site, path = '/', viewport = { width: 1440, height: 900 }) {
  const opened = await openApp(site, { path, context: { viewport } });
  return { ...opened, errors: opened.record.pageErrors };
}

/** Waits until the summary table has `policies` columns and no run is going. */
export async function waitForResults(page, policies, timeout = 90_000) {
  await page.getByTestId('summary-table').locator('thead th[data-policy]').nth(policies - 1).waitFor({ timeout });
  await page.waitForFunction(() => !document.querySelector('[data-testid=run-button]').disabled, null, { timeout });
}

/** Whether the element lies inside the viewport. */
export async function inViewport(locator) {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
  });
}

/** The ghosts the playback's canvas drew ([{job, left, at, gpus}]) and its frame time. */
export async function canvasGhosts(scope) {
  return scope.getByTestId('cluster-canvas').first().evaluate((c) => ({
    time: Number(c.dataset.frameTime),
    ghosts: (c.dataset.ghosts ?? '')
      .split(';')
      .filter((g) => g)
      .map((g) => Object.fromEntries(g.split(',').map((kv) => kv.split(':')).map(([k, v]) => [k, Number(v)]))),
  }));
}
