// End-to-end test of the page's weight (issue 24, item 10): from a plain static server,
// which sends every file as it is and knows nothing of compression, a first visit
// transfers at most 1,000,000 bytes before the app is ready and has described the
// default trace; the worker's module is not among them; and a run still works.
// The release build makes that so: boot.js fetches the gzip copy of the page's module and
// unpacks it in the browser (scripts/precompress.mjs, www/boot.js), and the default
// trace is described in the page, so that the worker is started by the first run.
//
// Run: node --test tests/e2e/weight.test.mjs   (after `trunk build --release`)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkClean, dist, launchBrowser, openPage, waitForApp } from './harness.mjs';
import { serveDirectory } from './static-server.mjs';

const BUDGET_BYTES = 1_000_000;

let browser;
let server;
before(async () => {
  browser = await launchBrowser();
  server = await serveDirectory(dist, 0, { precompressed: false });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('a first visit from a plain static server transfers at most 1 MB, and a run works', { timeout: 180_000 }, async () => {
  const { origin } = server;
  // A fresh context: an empty cache. Every finished request is counted, the worker's
  // too (they belong to the context), headers and body as they crossed the network.
  const context = await browser.newContext();
  const sizes = [];
  context.on('requestfinished', (req) =>
    sizes.push(req.sizes().then((s) => ({ url: req.url(), bytes: s.responseHeadersSize + s.responseBodySize }))),
  );
  const transferred = async () => {
    const all = await Promise.all(sizes);
    return { total: all.reduce((sum, s) => sum + s.bytes, 0), all };
  };
  const opened = await openPage(browser, `${origin}/`, origin, context);
  const { page, record } = opened;
  try {
    const run = await waitForApp(opened);
    await page.waitForFunction(() => !document.querySelector('[data-testid=run-button]').disabled, null, { timeout: 30_000 });
    // The default trace described, and nothing more on its way.
    await page.getByTestId('trace-preview').waitFor({ timeout: 30_000 });
    await page.waitForLoadState('networkidle');

    const served = record.responses.map((r) => r.headers()['content-encoding']).filter(Boolean);
    assert.deepEqual(served, [], 'the plain server sent nothing with a Content-Encoding');
    const { total, all } = await transferred();
    const list = all.map((s) => `${new URL(s.url).pathname} ${s.bytes}`).join(', ');
    console.log(`# first visit from a plain static server: ${total} bytes in ${all.length} responses (${list})`);
    assert.ok(total <= BUDGET_BYTES, `a first visit transferred ${total} bytes, more than ${BUDGET_BYTES}: ${list}`);
    assert.ok(
      all.every((s) => !new URL(s.url).pathname.includes('worker')),
      `the worker's files were loaded before a run: ${list}`,
    );

    // The default run, through the worker, whose module comes from the same plain server.
    await run.click();
    await page.getByTestId('summary-table').locator('tbody tr').nth(2).waitFor({ timeout: 120_000 });
    await page.waitForFunction(() => !document.querySelector('[data-testid=run-button]').disabled, null, { timeout: 120_000 });
    const after = await transferred();
    assert.ok(
      after.all.some((s) => new URL(s.url).pathname.endsWith('worker_bg.wasm.gz')),
      `the run loaded the worker's gzip copy: ${after.all.map((s) => new URL(s.url).pathname)}`,
    );
    console.log(`# with the first run: ${after.total} bytes`);
    checkClean(record, { origin, prefix: '/' });
  } finally {
    await context.close();
  }
});
