// End-to-end test of the large presets' default workloads (issue 32, point 2): choosing a
// preset of 1,024 GPUs or more sets the generator and the model mix to the workload the
// preset runs by default (crates/proxima-core/src/topology/presets_workload.rs), and its
// default run parts dally from consolidate by 3% or more on mean JCT on the five presets
// whose network makes placement cost. The preset's description, shown under the choice,
// says what it is there to show. Before the workloads, all five but one came out equal to
// the digit (2016-19 CNNs on A100 servers, where placement is free).
//
// Run: node --test tests/e2e/presets.test.mjs   (scripts/test.sh builds dist/ first)
// PROXIMA_DOC_SHOTS=1 also writes docs/img/large-preset.png (docs/APP.md): the results of
// a100-roce-2048's default run, dally parting from consolidate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { checkClean, openPage, readSummaryTable, repoRoot, runAndWait, useSite, waitForApp } from './harness.mjs';

const site = useSite();
const shots = process.env.PROXIMA_DOC_SHOTS ? join(repoRoot, 'docs', 'img') : null;

/** The preset whose default run docs/APP.md shows. */
const SHOWN = 'a100-roce-2048';

/** The five presets that part the policies, with their default jobs and mix. */
const PARTING = [
  ['flat-2048', '10000', 'llm'],
  ['oversub-2048', '10000', 'llm'],
  ['rdma-2048', '10000', 'llama-13b'],
  ['a100-roce-2048', '10000', 'llm'],
  ['fat-tree-k8', '5000', 'llm'],
];

/** A screenshot from the results' title to the bottom of the summary table. */
async function shootResults(page, path) {
  await page.locator('#results-title').scrollIntoViewIfNeeded();
  const top = await page.locator('#results-title').boundingBox();
  const table = await page.getByTestId('summary-table').boundingBox();
  const panel = await page.locator('#results-panel').boundingBox();
  const scroll = await page.evaluate(() => [window.scrollX, window.scrollY]);
  const clip = { x: panel.x + scroll[0], y: top.y + scroll[1] - 8, width: panel.width, height: table.y + table.height - top.y + 16 };
  await page.screenshot({ path, clip, fullPage: true });
}

test('five large presets part dally from consolidate on their default run', { timeout: 600_000 }, async () => {
  const context = await site.browser.newContext({ viewport: { width: 1024, height: 768 } });
  const opened = await openPage(site.browser, `${site.origin}/`, site.origin, context);
  await waitForApp(opened);
  const { page, record } = opened;
  try {
    const jobs = page.locator('.generator input').nth(0);
    const mix = page.locator('label.mix input');
    for (const [name, wantJobs, wantMix] of PARTING) {
      await page.locator('#topology select').first().selectOption(name);
      // The form shows the preset's workload, and the description what it shows.
      assert.equal(await jobs.inputValue(), wantJobs, `${name}: jobs`);
      assert.equal(await mix.inputValue(), wantMix, `${name}: mix`);
      const description = await page.locator('#topology p.hint').first().textContent();
      assert.match(description, /shows/, `${name}: ${description}`);
      await page.getByTestId('trace-job-count').filter({ hasText: new RegExp(`^${wantJobs}$`) }).waitFor({ timeout: 30_000 });
      // The default run: the page's default policies (fifo, consolidate, dally).
      const started = Date.now();
      await runAndWait(page, 3, 180_000);
      const ms = Date.now() - started;
      const table = await readSummaryTable(page);
      assert.deepEqual(Object.keys(table), ['fifo', 'consolidate', 'dally'], name);
      const ratio = table.dally.avg_jct_s / table.consolidate.avg_jct_s;
      console.log(`# ${name}: ${wantJobs} jobs, mix ${wantMix}: dally / consolidate mean JCT ${ratio.toFixed(3)} (${ms} ms from click to results)`);
      assert.ok(ratio <= 0.97, `${name}: dally / consolidate mean JCT ${ratio.toFixed(3)}, not 3% apart`);
      if (shots && name === SHOWN) await shootResults(page, join(shots, 'large-preset.png'));
    }
    // The DGX pods are the controls, and say so.
    for (const name of ['dgx-a100-pod', 'dgx-h100-pod']) {
      await page.locator('#topology select').first().selectOption(name);
      assert.equal(await mix.inputValue(), 'llm', `${name}: mix`);
      assert.match(await page.locator('#topology p.hint').first().textContent(), /a control/, name);
    }
    // A preset without a workload of its own takes the general default back.
    await page.locator('#topology select').first().selectOption('teaching');
    assert.deepEqual([await jobs.inputValue(), await mix.inputValue()], ['1000', '']);
    checkClean(record, { origin: site.origin, prefix: '/' });
  } finally {
    await context.close();
  }
});
