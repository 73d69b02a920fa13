// End-to-end test of a first visit: the page shows its introduction and "Loading the
// simulator…" before the app's wasm arrives, starts no simulation worker until the first
// run, lets the keyboard reach Run through the skip link, and the default run shows the
// point: dally ahead of consolidate on mean JCT, with its timers moved by the auto-tuner.
//
// Run: node --test tests/e2e/first-run.test.mjs   (after `trunk build --release`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, runAndWait, useSite, waitForApp } from './harness.mjs';

const site = useSite();

/**
 * Opens the site with the page's .wasm held back until `release()` is called, every
 * `new Worker` counted in `window.__workers`, and requests to other origins blocked.
 */
async function openHeld() {
  const context = await site.browser.newContext();
  let release;
  const held = new Promise((ok) => {
    release = ok;
  });
  const errors = [];
  await context.addInitScript(() => {
    window.__workers = [];
    const Original = window.Worker;
    window.Worker = class extends Original {
      constructor(url, options) {
        window.__workers.push(String(url));
        super(url, options);
      }
    };
  });
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.origin !== site.origin) return route.abort('blockedbyclient');
    // Only the page's module (its .wasm, or the .wasm.gz a release build has boot.js
    // fetch) is held: the worker's is not asked for before a run.
    if (/\.wasm(\.gz)?$/.test(url.pathname) && !url.pathname.includes('worker')) await held;
    return route.continue();
  });
  const page = await context.newPage();
  page.on('pageerror', (err) => errors.push(String(err)));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  await page.goto(`${site.origin}/`, { waitUntil: 'domcontentloaded' });
  return { context, page, release, errors };
}

/** The mean JCT of each policy, from data-value cells if the table has them, else its text. */
async function meanJct(page) {
  return page.getByTestId('summary-table').evaluate((table) => {
    const out = {};
    const cells = table.querySelectorAll('[data-metric=avg_jct_s][data-policy][data-value]');
    if (cells.length > 0) {
      for (const c of cells) out[c.dataset.policy] = Number(c.dataset.value);
      return out;
    }
    for (const row of table.querySelectorAll('tbody tr[data-policy]')) {
      const td = row.querySelector('td[data-metric=avg_jct_s]');
      if (td) out[row.dataset.policy] = Number(td.dataset.value ?? td.textContent.replace(/[^0-9.e+-]/g, ''));
    }
    return out;
  });
}

/** The timer changes in dally's run: data-changes on the timer chart, else the marks' label. */
async function timerChanges(page) {
  const select = page.getByTestId('playback-policy');
  if (await select.count()) await select.selectOption({ label: 'dally' });
  const chart = page.locator('[data-testid=timer-chart][data-changes]');
  if (await chart.count()) return Number(await chart.first().getAttribute('data-changes'));
  const label = await page.locator('svg.marks').first().getAttribute('aria-label', { timeout: 10_000 });
  const m = /(\d+) timer changes/.exec(label ?? '');
  assert.ok(m, `no count of timer changes on the page: ${label}`);
  return Number(m[1]);
}

test('a first visit: loading text, no worker before Run, the skip link, a run that proves the point', async () => {
  const { context, page, release, errors } = await openHeld();
  try {
    // Before the wasm arrives: the static introduction and the loading line.
    const loading = page.getByTestId('loading');
    await loading.waitFor({ state: 'visible', timeout: 10_000 });
    assert.match(await loading.textContent(), /Loading the simulator/);
    assert.match(await page.locator('h1').textContent(), /Proxima/);
    assert.equal(await page.getByTestId('run-button').count(), 0, 'the app is not there yet');
    release();
    await waitForApp({ page, record: { consoleErrors: errors, pageErrors: [], failed: [] } });
    assert.equal(await page.getByTestId('boot').count(), 0, 'the static page gave way to the app');

    // The default scenario is the first run's, with the offered load explained.
    assert.ok(await page.getByTestId('fabric-tcp').isChecked(), 'the first run is on the TCP fabric');
    assert.match(await page.locator('#load-help').textContent(), /1\.0 keeps the cluster full/);

    // No simulation worker before a run (the checks worker may describe the trace).
    await page.getByTestId('trace-preview').waitFor({ timeout: 30_000 });
    const before = await page.evaluate(() => window.__workers.length);
    assert.ok(before <= 1, `workers before any run: ${before}`);

    // The skip link is the first Tab stop, and Enter puts the focus on Run.
    await page.evaluate(() => document.activeElement?.blur());
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'skip-link');
    await page.keyboard.press('Enter');
    await eventually(() => page.evaluate(() => document.activeElement?.dataset.testid), 'run-button');

    // The default run.
    const started = Date.now();
    await page.keyboard.press('Enter');
    await page.getByTestId('summary-table').locator('tbody tr').nth(2).waitFor({ timeout: 120_000 });
    await page.waitForFunction(() => !document.querySelector('[data-testid=run-button]').disabled, null, { timeout: 120_000 });
    console.log(`# default run (fifo, consolidate, dally; 1000 jobs on 32 GPUs): ${Date.now() - started} ms from Enter to results`);
    const after = await page.evaluate(() => window.__workers.length);
    assert.equal(after, before + 1, 'the first run started the simulation worker');

    const jct = await meanJct(page);
    assert.ok(jct.dally > 0 && jct.consolidate > 0, `mean JCTs read: ${JSON.stringify(jct)}`);
    assert.ok(jct.dally < 0.85 * jct.consolidate, `dally clearly ahead of consolidate: ${JSON.stringify(jct)}`);
    const changes = await timerChanges(page);
    assert.ok(changes >= 1, `dally's timers moved: ${changes} changes`);
    console.log(`# default run: mean JCT dally ${jct.dally.toFixed(0)} s, consolidate ${jct.consolidate.toFixed(0)} s; ${changes} timer changes`);

    // A lesson loads into the form.
    const lessons = page.getByTestId('lessons');
    await lessons.locator('summary').click();
    await page.getByTestId('lesson-light-load').click();
    await eventually(() => page.locator('.generator input').first().inputValue(), '300');

    // The lesson on service order runs arrival order, service order and both with the
    // network side by side, and the page shows what the lesson says.
    await page.getByTestId('lesson-service-order').click();
    await eventually(() => page.locator('.generator input').first().inputValue(), '1000');
    await runAndWait(page, 3, 120_000);
    const order = await meanJct(page);
    const las = order['dally:order=las'];
    assert.ok(las < 0.75 * order.dally && las < 0.75 * order.tiresias, `dally:order=las a quarter ahead of both: ${JSON.stringify(order)}`);
    console.log(`# service-order lesson: mean JCT dally ${order.dally.toFixed(0)} s, tiresias ${order.tiresias.toFixed(0)} s, dally:order=las ${las.toFixed(0)} s`);
    assert.deepEqual(errors, [], 'console or page errors');
  } finally {
    await context.close();
  }
});
