// Measures how soon the site shows up and can be used on a slow connection and a slow
// machine: Chromium (Debian's, headless, through playwright-core, as the end-to-end tests
// launch it) throttled through the DevTools protocol to 10 Mbit/s down and up with 20 ms of
// latency (Network.emulateNetworkConditions) and a CPU 4 times slower
// (Emulation.setCPUThrottlingRate), with an empty cache on every load.
//
//   node scripts/measure-load.mjs [LABEL=DIR ...]     (default: after=dist)
//
// Each DIR is served by tests/e2e/static-server.mjs twice: as a server configured for the
// site, which sends a file's .br or .gz copy when the build wrote one (as nginx's
// brotli_static/gzip_static would), and as a plain static server that sends every file as
// it is (as `python3 -m http.server`); $SERVERS picks (default "precompressed,plain").
// Prints, per build and server, the median of RUNS loads (3 unless $RUNS says otherwise) of:
//   - first paint: the first contentful paint (the Paint Timing API);
//   - interactive: the moment the Run button is in the page and enabled, i.e. the app has
//     mounted and takes input;
//   - the bytes that crossed the network (headers and bodies, the worker's requests too)
//     once the app is interactive, has described the default trace and the network is idle:
//     what a first visit costs before anything is run.
import { chromium } from 'playwright-core';
import { resolve } from 'node:path';
import { serveDirectory } from '../tests/e2e/static-server.mjs';
import { CHROMIUM_ARGS } from '../tests/e2e/harness.mjs';

const RUNS = Number(process.env.RUNS ?? 3);
const MBIT = 10;
const LATENCY_MS = 20;
const CPU_SLOWDOWN = 4;

const SERVERS = (process.env.SERVERS ?? 'precompressed,plain').split(',').map((s) => s.trim());
const builds = (process.argv.length > 2 ? process.argv.slice(2) : ['after=dist']).map((arg) => {
  const [label, dir] = arg.includes('=') ? arg.split('=', 2) : [arg, arg];
  return { label, dir: resolve(dir) };
});

/** The median of the numbers that were measured (a load may miss a paint entry). */
const median = (xs) => {
  const ok = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return ok.length ? ok[Math.floor(ok.length / 2)] : NaN;
};

/** One cold load of `url`: first paint and interactive in ms after navigation starts. */
async function loadOnce(browser, url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const bytesPerSecond = (MBIT * 1e6) / 8;
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: LATENCY_MS,
    downloadThroughput: bytesPerSecond,
    uploadThroughput: bytesPerSecond,
  });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
  // Every request of the context, the worker's among them (the page's DevTools session
  // does not see a dedicated worker's).
  const sizes = [];
  context.on('requestfinished', (req) => sizes.push(req.sizes()));
  // The moment the Run button exists and is enabled, seen from inside the page.
  await page.addInitScript(() => {
    const look = () => {
      const run = document.querySelector('[data-testid=run-button]');
      if (run && !run.disabled && window.__interactive === undefined) window.__interactive = performance.now();
    };
    new MutationObserver(look).observe(document, { childList: true, subtree: true, attributes: true });
  });
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction(() => window.__interactive !== undefined, null, { timeout: 120_000, polling: 50 });
  await page.getByTestId('trace-preview').waitFor({ timeout: 120_000 });
  await page.waitForLoadState('networkidle');
  const bytes = (await Promise.all(sizes)).reduce((sum, s) => sum + s.responseHeadersSize + s.responseBodySize, 0);
  const times = await page.evaluate(() => ({
    firstPaint:
      (performance.getEntriesByName('first-contentful-paint')[0] ?? performance.getEntriesByName('first-paint')[0])
        ?.startTime ?? NaN,
    interactive: window.__interactive,
  }));
  await context.close();
  return { ...times, bytes };
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
try {
  console.log(
    `${MBIT} Mbit/s, ${LATENCY_MS} ms latency, CPU ${CPU_SLOWDOWN}x slower, cold cache; median of ${RUNS} loads`,
  );
  console.log('build\tfirst paint ms\tinteractive ms\tKB transferred\t(each load: paint/interactive)');
  for (const { label: build, dir } of builds) for (const mode of SERVERS) {
    const label = `${build} (${mode})`;
    const server = await serveDirectory(dir, 0, { precompressed: mode !== 'plain' });
    try {
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await loadOnce(browser, `${server.origin}/`));
      const each = runs.map((r) => `${r.firstPaint.toFixed(0)}/${r.interactive.toFixed(0)}`).join(' ');
      console.log(
        `${label}\t${median(runs.map((r) => r.firstPaint)).toFixed(0)}\t${median(runs.map((r) => r.interactive)).toFixed(0)}\t${(median(runs.map((r) => r.bytes)) / 1024).toFixed(0)}\t(${each})`,
      );
    } finally {
      await server.close();
    }
  }
} finally {
  await browser.close();
}
