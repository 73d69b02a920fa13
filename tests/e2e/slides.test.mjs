// End-to-end tests of what a teacher takes from a run to a lesson (issue 24, item 9), in
// headless Chromium on dist/: the what-if "had it not been preempted" on a preemption the
// playback shows (the policy re-run in the worker, its mean JCT beside the run's after a
// prediction), and the playback exported as a short WebM clip for slides.
//
// Run: node --test tests/e2e/slides.test.mjs   (after `trunk build --release`)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { checkClean, eventually, openPage, readSummaryTable, runAndWait, useSite, waitForApp } from './harness.mjs';

const site = useSite();

/** The first page's run (fifo, consolidate and dally), its playback open on dally. */
async function openRun() {
  const context = await site.browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  const opened = await openPage(site.browser, `${site.origin}/`, site.origin, context);
  await waitForApp(opened);
  await runAndWait(opened.page, 3);
  await opened.page.getByTestId('player').waitFor();
  return opened;
}

describe('for slides', () => {
  test('had it not been preempted: the policy re-runs without that preemption, revealed after a prediction', { timeout: 120_000 }, async () => {
    const { page, record, context } = await openRun();
    try {
      assert.equal(await page.getByTestId('playback-policy').locator('option:checked').textContent(), 'dally');
      const box = page.getByTestId('preemption-what-if');
      await box.waitFor();
      const options = await page.getByTestId('what-if-preemption').locator('option').allTextContents();
      assert.ok(options.length > 0, 'dally preempts in the first run');
      assert.match(options[0], /^t = .*: job \d+ preempted/);
      await page.getByTestId('what-if-ask').click();
      // Predict first: nothing is revealed before.
      await page.getByTestId('what-if-predict').waitFor();
      assert.equal(await page.getByTestId('what-if-answer').count(), 0);
      await page.getByTestId('what-if-higher').click();
      const answer = page.getByTestId('what-if-answer');
      await answer.waitFor({ timeout: 60_000 });
      const [original, rerun, refused] = await Promise.all(['data-original', 'data-rerun', 'data-refused'].map((a) => answer.getAttribute(a)));
      // The original is the run's own mean JCT, as the summary table has it.
      const table = await readSummaryTable(page);
      assert.equal(Number(original), table.dally.avg_jct_s);
      assert.equal(refused, 'true', 'dally did try to preempt the job then, and was refused');
      assert.notEqual(Number(rerun), Number(original), 'one preemption fewer changes the run');
      // This run's change is a whole-run effect, and alone it concludes nothing (issue 32,
      // point 6: it used to say "the preemption cost more than it gained" under a lesson
      // where preempting pays).
      const text = await answer.textContent();
      assert.match(text, /^In this run, without it the mean JCT of all the jobs is .* against .* with it \([+-]\d+\.\d%, (lower|higher|about the same)\)\. That is a whole-run effect/);
      assert.doesNotMatch(text, /cost more than it gained|paid off/);
      // The two jobs' own JCTs, with and without the preemption.
      const rows = page.getByTestId('what-if-jobs').locator('tbody tr');
      const preempted = Number(options[0].match(/job (\d+) preempted/)[1]);
      assert.equal(Number(await rows.first().getAttribute('data-job')), preempted);
      assert.match(await rows.first().textContent(), new RegExp(`^job ${preempted} \\(preempted\\)`));
      const forJob = options[0].match(/preempted for job (\d+)/);
      assert.equal(await rows.count(), forJob ? 2 : 1);
      if (forJob) assert.equal(await rows.nth(1).getAttribute('data-job'), forJob[1]);
      assert.ok(Number(await rows.first().getAttribute('data-with')) > 0, 'the preempted job finished in the run');
      // Then the what-if over seeds, in the worker, and the conclusion from its interval.
      const seeds = box.getByTestId('what-if-over-seeds');
      await seeds.waitFor({ timeout: 120_000 });
      const [conclusion, n, mean, low, high] = await Promise.all(['data-conclusion', 'data-seeds', 'data-mean', 'data-low', 'data-high'].map((a) => seeds.getAttribute(a)));
      console.log(`# what-if over ${n} seeds: mean change ${(Number(mean) * 100).toFixed(1)}%, 95% interval ${(Number(low) * 100).toFixed(1)}% to ${(Number(high) * 100).toFixed(1)}%: ${conclusion}`);
      assert.ok(Number(n) >= 2, `${n} seeds`);
      assert.ok(Number(low) <= Number(mean) && Number(mean) <= Number(high));
      const expected = Number(high) < 0 ? 'cost-more' : Number(low) > 0 ? 'paid-off' : 'within-noise';
      assert.equal(conclusion, expected);
      const said = await seeds.textContent();
      assert.match(said, new RegExp(`^Over ${n} seeds`));
      if (expected === 'within-noise') {
        assert.match(said, /the effect is within noise/);
        assert.doesNotMatch(said, /cost more than it gained|paid off\./);
        assert.equal(await seeds.getAttribute('data-right'), '');
      } else {
        assert.match(said, expected === 'cost-more' ? /cost more than it gained/ : /paid off/);
        assert.equal(await seeds.getAttribute('data-right'), String(expected === 'paid-off'), 'predicted higher');
      }
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await context.close();
    }
  });

  test('export animation: the run from start to end as a WebM clip, downloaded', { timeout: 120_000 }, async () => {
    const { page, record, context } = await openRun();
    try {
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: 60_000 }),
        page.getByTestId('export-animation').click(),
      ]);
      assert.match(download.suggestedFilename(), /^proxima-playback-dally\.webm$/);
      const bytes = await readFile(await download.path());
      assert.ok(bytes.length > 1000, `${bytes.length} bytes`);
      // A WebM file is an EBML document: it starts with the EBML header's ID.
      assert.equal(bytes.subarray(0, 4).toString('hex'), '1a45dfa3');
      const status = page.getByTestId('animation-status');
      await eventually(() => status.getAttribute('data-state'), 'saved');
      assert.equal(Number(await status.getAttribute('data-bytes')), bytes.length);
      // The player played the whole run and is back at its own speed.
      const player = page.getByTestId('player');
      const end = Number(await page.getByTestId('time-slider').getAttribute('max'));
      assert.ok(Math.abs(Number(await player.getAttribute('data-time')) - end) < 1e-3, 'played to the end');
      assert.notEqual(await page.getByTestId('speed-select').inputValue(), '', 'a speed of the list again');
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await context.close();
    }
  });

  test('export animation in a browser without MediaRecorder: said in words, no crash', { timeout: 120_000 }, async () => {
    const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(() => { delete window.MediaRecorder; });
    const opened = await openPage(site.browser, `${site.origin}/`, site.origin, context);
    const { page, record } = opened;
    try {
      await waitForApp(opened);
      await runAndWait(page, 3);
      await page.getByTestId('export-animation').click();
      const status = page.getByTestId('animation-status');
      await eventually(() => status.getAttribute('data-state'), 'failed');
      assert.match(await status.textContent(), /cannot record video \(it has no MediaRecorder\)/);
      assert.equal(await status.getAttribute('role'), 'alert');
      assert.deepEqual(record.pageErrors, []);
      assert.equal(await page.getByTestId('panic-banner').count(), 0);
    } finally {
      await context.close();
    }
  });
});
