// End-to-end test of a first visit: the page shows its introduction and "Loading the
// simulator…" before the app's wasm arrives, starts no simulation worker until the first
// run, lets the keyboard reach Run through the skip link, and the default run shows the
// point: dally ahead of consolidate on mean JCT, with its timers moved by the auto-tuner.
// And the first run shows a delay decision (issue 32, point 1): "Next wait" from time 0
// finds a job declining free GPUs (its ghost, countdown and subtitle), the classic
// comparison lands on that decision, "Next wait" says why when it has nowhere to go, and
// the results say where dally's gain comes from (the worker's ablation runs).
//
// PROXIMA_DOC_SHOTS=1 also writes docs/img/first-run-delay.png (the delay decision).
// Run: node --test tests/e2e/first-run.test.mjs   (after `trunk build --release`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { canvasGhosts, eventually, openPage, repoRoot, runAndWait, useSite, waitForApp } from './harness.mjs';

const site = useSite();
const shots = process.env.PROXIMA_DOC_SHOTS ? join(repoRoot, 'docs', 'img') : null;

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

/** Each policy's value of every metric of the summary table, from its data-value cells. */
async function metrics(page) {
  return page.getByTestId('summary-table').evaluate((table) => {
    const out = {};
    for (const c of table.querySelectorAll('td[data-metric][data-policy][data-value]')) {
      out[c.dataset.policy] ??= {};
      out[c.dataset.policy][c.dataset.metric] = Number(c.dataset.value);
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
    console.log(`# default run (fifo, consolidate, dally; 800 jobs on 32 GPUs): ${Date.now() - started} ms from Enter to results`);
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

    // The wait × preempt lesson: waiting alone is consolidate to the second on this loaded
    // cluster; preemption is what keeps jobs off the uplinks (src/lessons.rs, seed 1).
    await page.getByTestId('lesson-wait-preempt').click();
    await runAndWait(page, 5, 180_000);
    const grid = await meanJct(page);
    const cons = grid.consolidate;
    const same = (x) => x <= 1.001 * cons && cons <= 1.001 * x;
    assert.ok(same(grid['dally:preempt=off']) && same(grid['dally:delay=off,preempt=off']), `waiting alone is consolidate: ${JSON.stringify(grid)}`);
    assert.ok(grid['dally:delay=off'] < 0.8 * cons && grid.dally < 0.9 * cons, `preemption pays: ${JSON.stringify(grid)}`);
    console.log(`# wait-preempt lesson: mean JCT ${Object.entries(grid).map(([p, v]) => `${p} ${v.toFixed(0)} s`).join(', ')}`);

    // The Kueue lesson loads its imported cluster (the editor's import, named as one) and
    // shows on the page what its claims say (src/lessons.rs, seed 1).
    await page.getByTestId('lesson-kueue-cluster').click();
    await eventually(() => page.locator('.generator input').nth(1).inputValue(), '1.2');
    await eventually(() => page.locator('#topology select').first().inputValue(), 'imported');
    await runAndWait(page, 6, 300_000);
    const kueue = await metrics(page);
    const rack = 'cloud.provider.com/topology-rack';
    const [required, auto, evict, preferred] = [
      `kueue-tas:required=${rack}`,
      `kueue-tas:required=${rack},required_for_s=auto`,
      `kueue-tas:required=${rack},evict=on`,
      `kueue-tas:preferred=${rack}`,
    ];
    const seen = JSON.stringify(kueue);
    assert.equal(Object.keys(kueue).length, 6, `six policies: ${seen}`);
    // A required level never crosses: the 32-GPU job never starts, with or without eviction.
    assert.equal(kueue[required].jobs_unfinished, 1, `required leaves one job: ${seen}`);
    assert.equal(kueue[evict].jobs_unfinished, 1, `eviction keeps the level: ${seen}`);
    for (const p of [auto, 'dally', 'dally:order=las']) assert.equal(kueue[p].jobs_unfinished, 0, `${p} places every job: ${seen}`);
    // The tuned limit widens at once, exactly as preferred.
    const [a, b] = [kueue[auto].avg_jct_s, kueue[preferred].avg_jct_s];
    assert.ok(a <= 1.001 * b && b <= 1.001 * a, `tuned limit = preferred: ${seen}`);
    assert.ok(kueue[required].avg_jct_s <= 0.8 * a, `widening costs here: ${seen}`);
    // Eviction: small jobs wait (the median doubles), large ones gain (p99 a tenth lower).
    assert.ok(kueue[required].p50_jct_s <= 0.5 * kueue[evict].p50_jct_s, `eviction doubles the median: ${seen}`);
    assert.ok(kueue[evict].p99_jct_s <= 0.95 * kueue[required].p99_jct_s, `eviction cuts p99: ${seen}`);
    // dally:order=las below the required level and dally; dally the highest.
    const las2 = kueue['dally:order=las'].avg_jct_s;
    assert.ok(las2 <= 0.95 * kueue[required].avg_jct_s && las2 <= 0.65 * kueue.dally.avg_jct_s, `dally:order=las: ${seen}`);
    assert.ok(kueue[required].avg_jct_s <= 0.7 * kueue.dally.avg_jct_s, `dally: ${seen}`);
    console.log(
      `# kueue-cluster lesson: mean JCT ${Object.entries(kueue)
        .map(([p, m]) => `${p} ${m.avg_jct_s.toFixed(0)} s (${m.jobs_unfinished} unfinished)`)
        .join(', ')}`,
    );
    assert.deepEqual(errors, [], 'console or page errors');
  } finally {
    await context.close();
  }
});

test('the first run shows a delay decision: the classic comparison, Next wait, the gain source', { timeout: 240_000 }, async () => {
  const context = await site.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const { page, record } = await openPage(site.browser, `${site.origin}/`, site.origin, context);
  try {
    await waitForApp({ page, record });
    // The classic comparison (the first lesson, which is the first run) lands on dally's
    // first delay decision: a job declining free GPUs, paused there.
    await page.getByTestId('classic-run').click();
    const focus = page.getByTestId('playback-focus');
    await focus.waitFor({ timeout: 120_000 });
    assert.equal(await focus.getAttribute('data-moment'), 'waiting');
    const job = Number(await focus.getAttribute('data-moment-job'));
    const playback = page.locator('#playback');
    assert.equal(await playback.getByTestId('playback-pane').first().getAttribute('data-policy'), 'dally');
    const landed = await eventually(() => canvasGhosts(playback), (g) => g.time > 0 && g.ghosts.length > 0, 'a ghost where it lands');
    const ghost = landed.ghosts.find((g) => g.job === job);
    assert.ok(ghost && ghost.gpus >= 2 && ghost.left > 0, `job ${job} declines free GPUs: ${JSON.stringify(landed)}`);
    const now = await playback.getByTestId('subtitle-now').textContent();
    assert.match(now, new RegExp(`job ${job} declines ${ghost.gpus} free GPUs .+ and waits up to .+ more for one server`));
    await playback.locator(`[data-testid=delay-timer][data-job="${job}"]`).first().waitFor();
    console.log(`# classic comparison: lands at ${landed.time} s on "${now}"`);
    if (shots) await playback.getByTestId('playback-pane').first().screenshot({ path: join(shots, 'first-run-delay.png') });

    // "Next wait" from time 0 goes to that same decision.
    await playback.getByTestId('time-slider').fill('0');
    await eventually(() => canvasGhosts(playback), (g) => g.time === 0, 'the playhead at 0');
    const next = playback.getByTestId('next-wait-button');
    assert.ok(await next.isEnabled(), 'Next wait is enabled at 0');
    await next.click();
    const first = await eventually(() => canvasGhosts(playback), (g) => g.time > 0, 'Next wait moved the playhead');
    assert.ok(Math.abs(first.time - landed.time) < 1e-3, `Next wait from 0: ${first.time} s, the decision at ${landed.time} s`);
    assert.ok(first.ghosts.some((g) => g.job === job), JSON.stringify(first));

    // At the end there is no later wait: the button is disabled and says why.
    const end = await playback.getByTestId('time-slider').getAttribute('max');
    await playback.getByTestId('time-slider').fill(end);
    await eventually(() => next.isDisabled(), true, 'Next wait disabled at the end');
    assert.match(await playback.getByTestId('next-wait-why').textContent(), /no later wait in this run/);
    // consolidate never waits under a timer: disabled from the start, with its reason.
    await page.getByTestId('playback-policy').selectOption({ label: 'consolidate' });
    await playback.getByTestId('time-slider').fill('0');
    await eventually(() => next.isDisabled(), true, "Next wait disabled on consolidate's playback");
    assert.match(await playback.getByTestId('next-wait-why').textContent(), /no job declines free GPUs to wait in this run/);

    // Where the gain comes from: dally without waiting and without preemption, run by the
    // worker after the results.
    const gain = page.getByTestId('gain-source');
    await eventually(() => gain.getAttribute('data-state'), 'done', 'the ablation runs answered', 60_000);
    const text = await gain.textContent();
    assert.match(text, /Where the gain comes from: dally's mean JCT .+ below consolidate; without waiting \(dally:delay=off\) .+; without preemption \(dally:preempt=off\) .+\. Without waiting it loses \d+% of its gain, without preemption \d+%/);
    const [waiting, preemption] = [Number(await gain.getAttribute('data-waiting-lost')), Number(await gain.getAttribute('data-preemption-lost'))];
    assert.ok(waiting > 0 && preemption > 0, `both mechanisms carry gain: ${waiting}, ${preemption}`);
    console.log(`# gain source (${await gain.getAttribute('data-elapsed-ms')} ms in the worker): ${text}`);
    assert.deepEqual([...record.consoleErrors, ...record.pageErrors], []);
  } finally {
    await context.close();
  }
});
