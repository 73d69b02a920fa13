// The page stays responsive while heavy work happens: describing the synthetic trace as
// someone types 200,000 jobs into the generator, and reading and checking a 16 MiB trace
// file dropped on the page, both happen in the checks worker. Measured in the page
// itself: every long task of the page's main thread (PerformanceObserver 'longtask',
// which Chromium reports for any task over 50 ms) and the longest gap between animation
// frames. The figures are printed (`# page blocking: ...`); the test fails if a task
// blocked the page for more than 50 ms.
//
// A long task is measured in wall time, so on a busy machine (this one has two cores,
// shared with other builds) the page's thread can be kept waiting in the middle of a short
// task and a 20 ms task reads as 60. Work done on the page's thread shows on every try
// (before the traces moved to the worker: 125 ms for the keys, 2,319 ms for the drop), so
// each case is tried up to three times in a fresh page, every try is printed, and the case
// passes when one try has no task over 50 ms.
//
// Run: node --test tests/e2e/responsiveness.test.mjs   (scripts/test.sh builds dist/ first)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkClean, openPage, useSite, waitForApp } from './harness.mjs';

/** The longest a task of the page may take: the threshold of a long task. */
const MAX_BLOCK_MS = 50;

const site = useSite();

/** Starts (or restarts) recording long tasks and the gaps between animation frames. */
async function startProbe(page) {
  await page.evaluate(() => {
    if (!window.__probe) {
      window.__probe = { tasks: [], maxGap: 0, last: performance.now() };
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__probe.tasks.push(e.duration);
      }).observe({ type: 'longtask' });
      const tick = (t) => {
        const p = window.__probe;
        p.maxGap = Math.max(p.maxGap, t - p.last);
        p.last = t;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    }
    Object.assign(window.__probe, { tasks: [], maxGap: 0, last: performance.now() });
  });
}

/** What the probe saw since it was (re)started. */
async function readProbe(page) {
  // Long tasks are reported after they end: give the observer a frame to deliver.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50))));
  return page.evaluate(() => ({ tasks: [...window.__probe.tasks], maxGap: window.__probe.maxGap }));
}

/** Prints what one try measured; returns its longest task (0 when none was long). */
function report(what, { tasks, maxGap }, extra) {
  const longest = tasks.length ? Math.max(...tasks) : 0;
  console.log(`# page blocking, ${what}: ${tasks.length} long task(s) (> 50 ms), longest ${longest.toFixed(0)} ms; ` +
    `longest gap between animation frames ${maxGap.toFixed(0)} ms; ${extra}`);
  return longest;
}

/** Runs `attempt` (which returns its longest task) in fresh pages until one try stays
 * under the limit, at most three times. */
async function tryUpTo3(what, attempt) {
  const longest = [];
  for (let i = 0; i < 3; i++) {
    const opened = await openPage(site.browser, `${site.origin}/`, site.origin);
    try {
      await waitForApp(opened);
      longest.push(await attempt(opened.page));
      checkClean(opened.record, { origin: site.origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
    if (longest[i] <= MAX_BLOCK_MS) return;
  }
  assert.fail(`${what}: every try had a task over ${MAX_BLOCK_MS} ms (longest per try: ${longest.map((t) => t.toFixed(0))} ms)`);
}

test('typing 200,000 jobs into the generator never blocks the page', { timeout: 300_000 }, async () => {
  await tryUpTo3('typing', async (page) => {
    await page.locator('#topology select').selectOption('oversub-2048');
    // The generator takes the jobs suggested for 2,048 GPUs (src/scenario/trace.rs, suggested_jobs).
    await page.getByTestId('trace-job-count').filter({ hasText: /^10000$/ }).waitFor();
    await page.waitForTimeout(500);
    await startProbe(page);
    const started = Date.now();
    const jobs = page.locator('.generator input').nth(0);
    await jobs.click();
    await jobs.press('Control+a');
    // One key at a time, as fast as a quick typist: each key describes a bigger trace.
    await jobs.pressSequentially('200000', { delay: 60 });
    const load = page.locator('.generator input').nth(1);
    await load.click();
    await load.press('Control+a');
    await load.pressSequentially('2.5', { delay: 60 });
    await page.getByTestId('trace-job-count').filter({ hasText: /^200000$/ }).waitFor({ timeout: 60_000 });
    const ms = Date.now() - started;
    return report('typing 200,000 jobs and load 2.5 (oversub-2048)', await readProbe(page), `${ms} ms from the first key to the 200,000-job preview`);
  });
});

test('dropping a 16 MiB trace never blocks the page', { timeout: 600_000 }, async () => {
  await tryUpTo3('dropping a 16 MiB trace', async (page) => {
    // A Proxima CSV trace just under the 16 MiB limit, made in the page (before the
    // measurement starts) so that it can be dropped as a real File.
    const dataTransfer = await page.evaluateHandle(() => {
      const limit = 16 * 1024 * 1024 - 64;
      const rows = ['id,submit_s,gpus,model,duration_s\n'];
      const models = ['resnet50', 'deepspeech2', 'bert', 'cifar10']; // models of the default cluster's T4 catalogue
      let size = rows[0].length;
      for (let i = 0; ; i++) {
        const row = `job${i},${i * 7},${1 << (i % 4)},${models[i % 4]},${600 + (i % 997)}\n`;
        if (size + row.length > limit) break;
        rows.push(row);
        size += row.length;
      }
      const dt = new DataTransfer();
      dt.items.add(new File(rows, 'big.csv', { type: 'text/csv' }));
      window.__bigRows = rows.length - 1;
      window.__bigBytes = size;
      return dt;
    });
    const [rows, bytes] = await page.evaluate(() => [window.__bigRows, window.__bigBytes]);
    await page.waitForTimeout(500);
    await startProbe(page);
    const started = Date.now();
    await page.locator('#trace .dropzone').dispatchEvent('drop', { dataTransfer });
    // While the worker reads and checks it, the page answers: a checkbox still toggles.
    const box = page.getByTestId('policy-select').locator('input[value=fifo]');
    await box.click();
    assert.ok(!(await box.isChecked()));
    await box.click();
    await page.getByTestId('trace-job-count').filter({ hasText: new RegExp(`^${rows}$`) }).waitFor({ timeout: 150_000 });
    const ms = Date.now() - started;
    assert.match(await page.locator('#trace').textContent(), /file: big\.csv/);
    return report(`dropping a ${(bytes / 1048576).toFixed(2)} MiB trace (${rows} jobs)`, await readProbe(page), `${ms} ms from the drop to its preview`);
  });
});
