// End-to-end tests of the built site (dist/, from `trunk build --release`): each test
// serves it from a local static server and drives Debian's Chromium, headless, with
// playwright-core. The site is opened twice: at the server's root and under a
// sub-path (/proxima/), which only works if every URL in it is relative.
//
// Run: node --test tests/e2e/*.test.mjs   (scripts/test.sh builds dist/ first)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveDirectory } from './static-server.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = resolve(process.env.PROXIMA_DIST ?? join(repoRoot, 'dist'));
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';

// Headless Chromium as root, with nothing of its own reaching out to the network.
// Playwright adds --headless and --no-sandbox itself and gives every launch a fresh,
// temporary --user-data-dir.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let browser;
const servers = [];
let tempDir;

before(async () => {
  assert.ok(
    existsSync(join(dist, 'index.html')),
    `${dist}/index.html is missing: run \`trunk build --release\` first (scripts/test.sh does)`,
  );
  browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await Promise.all(servers.map((s) => s.close()));
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
});

/** Serves `root` and remembers the server, so that `after` stops it. */
async function serve(root) {
  const server = await serveDirectory(root);
  servers.push(server);
  return server;
}

/**
 * Opens `url` in a fresh browser context and records everything the page does: every
 * request (requests to any other origin than `origin` are also blocked, so a failing
 * test sends nothing out), failed requests, console errors (a CSP violation is one),
 * uncaught exceptions.
 */
async function openPage(url, origin) {
  const context = await browser.newContext();
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

/** The checks shared by every way of serving the site. */
async function checkPlaceholderApp({ page, record }, { origin, prefix }) {
  // The button only exists once the wasm module has loaded and yew has rendered.
  const run = page.getByTestId('run-button');
  await run.waitFor({ state: 'visible', timeout: 30_000 }).catch((err) => {
    // Say why the app did not start: a blocked script shows up as a console error.
    throw new Error(
      `${err.message}\nconsole errors: ${JSON.stringify(record.consoleErrors)}` +
        `\npage errors: ${JSON.stringify(record.pageErrors)}\nfailed requests: ${JSON.stringify(record.failed)}`,
    );
  });
  assert.equal(await page.title(), 'Proxima');
  assert.equal(await page.locator('h1').textContent(), 'Proxima');
  assert.ok(await page.getByTestId('topology-view').isVisible(), 'topology view is not visible');
  assert.equal(await run.textContent(), 'Run');
  assert.ok(await run.isDisabled(), 'run button should be disabled for now');

  const wasm = record.responses.filter((r) => new URL(r.url()).pathname.endsWith('.wasm'));
  assert.ok(wasm.length >= 1, 'no .wasm file was loaded');
  for (const r of wasm) {
    assert.equal(r.status(), 200, `${r.url()} answered ${r.status()}`);
    assert.equal(r.headers()['content-type'], 'application/wasm');
  }

  // Nothing leaves the local server, and nothing outside the site's own directory is
  // asked for: every URL in the site is relative.
  assert.ok(record.requests.length >= 3, `too few requests recorded: ${record.requests}`);
  const outside = record.requests.filter((u) => !u.startsWith(`${origin}${prefix}`));
  assert.deepEqual(outside, [], `requests outside ${origin}${prefix}`);
  assert.deepEqual(record.failed, [], 'failed requests');
  assert.deepEqual(record.pageErrors, [], 'uncaught errors in the page');
  assert.deepEqual(record.consoleErrors, [], 'console errors (CSP violations show up here)');
}

describe('the built site', () => {
  test('index.html has a strict CSP, no inline script and only relative URLs', async () => {
    const html = await readFile(join(dist, 'index.html'), 'utf8');
    const csp = html.match(/<meta[^>]+http-equiv=["']?Content-Security-Policy["']?[^>]*>/i);
    assert.ok(csp, 'no Content-Security-Policy meta');
    assert.match(csp[0], /script-src 'self' 'wasm-unsafe-eval'[;"']/);
    assert.doesNotMatch(csp[0], /unsafe-inline/);
    for (const script of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
      assert.match(script[1], /\bsrc=/, `inline script: ${script[0].slice(0, 200)}`);
      assert.equal(script[2].trim(), '', 'a script with src has a body');
    }
    for (const [, url] of html.matchAll(/\b(?:src|href)=["']?([^"'\s>]+)/gi)) {
      assert.ok(url.startsWith('./'), `not a relative URL: ${url}`);
    }
  });

  test('renders at the root of a server', { timeout: 60_000 }, async () => {
    const { origin } = await serve(dist);
    const opened = await openPage(`${origin}/`, origin);
    try {
      await checkPlaceholderApp(opened, { origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });

  test('renders under a sub-path (/proxima/)', { timeout: 60_000 }, async () => {
    // Serve a directory whose only entry is `proxima` -> dist/.
    tempDir = await mkdtemp(join(tmpdir(), 'proxima-e2e-'));
    await symlink(dist, join(tempDir, 'proxima'), 'dir');
    const { origin } = await serve(tempDir);
    const opened = await openPage(`${origin}/proxima/`, origin);
    try {
      await checkPlaceholderApp(opened, { origin, prefix: '/proxima/' });
    } finally {
      await opened.context.close();
    }
  });
});
