// End-to-end test of running what the page shows and sharing what was run (issue 24,
// items 5, 6 and 8): "Run this lesson" runs a lesson and restates what to look for until
// the scenario is edited; the first screen's classic comparison opens dally's playback
// paused at its first wait or preemption; a link to a scenario with a trace file names the
// file and its hash and runs once the file is opened; `#lesson=ID&autoplay` runs a lesson;
// results of a scenario edited since are greyed, and the address bar follows the edit.
//
// Run: node --test tests/e2e/share-run.test.mjs   (after `trunk build --release`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { choosePolicies, eventually, inViewport, openSized, useSite, waitForResults } from './harness.mjs';

const site = useSite();

const TRACE = 'id,submit_s,gpus,model,duration_s\na,0,1,resnet50,600\nb,30,4,resnet50,1200\nc,60,2,resnet50,900\n';

/** With PROXIMA_SHOTS=DIR, a screenshot of the viewport into DIR (docs/img has them). */
async function shot(page, name) {
  if (process.env.PROXIMA_SHOTS) await page.screenshot({ path: `${process.env.PROXIMA_SHOTS}/${name}` });
}

async function setSeed(page, seed) {
  await page.getByTestId('seed-input').fill(String(seed));
  await page.getByTestId('seed-input').dispatchEvent('change');
}

test('Run this lesson runs it and says what to look for until the scenario is edited', { timeout: 120_000 }, async () => {
  const { context, page, errors } = await openSized(site);
  try {
    await shot(page, 'first-screen.png');
    await page.getByTestId('lessons').locator('summary').click();
    await page.getByTestId('lesson-run-light-load').click();
    await waitForResults(page, 3);
    const watch = page.getByTestId('lesson-watch');
    await watch.waitFor();
    await watch.scrollIntoViewIfNeeded();
    await shot(page, 'lesson.png');
    // Light load: consolidate's communication overhead is a fraction of a millisecond, and
    // no ratio to it is shown, let alone one of millions.
    const ratios = await page.getByTestId('summary-table').locator('td .ratio').allTextContents();
    const huge = ratios.filter((r) => /×$/.test(r) && Number(r.replace(/[^0-9.]/g, '')) > 1000);
    assert.deepEqual(huge, [], 'ratios above 1,000×');
    assert.ok(ratios.includes('vs ≈0'), `fifo's overhead against a negligible baseline: ${ratios}`);
    assert.equal(await watch.getAttribute('data-lesson'), 'light-load');
    assert.match(await watch.textContent(), /What to look for.*Light load, where no policy matters.*within 3% of each other/s);
    await eventually(() => page.locator('#results-panel').evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top < window.innerHeight && r.bottom > 0;
    }), true, 'the results are brought into view');
    assert.equal(await page.getByTestId('results-stale').count(), 0);
    // An edit: the watch box goes, the results are greyed and say why.
    await setSeed(page, 2);
    await page.getByTestId('results-stale').waitFor();
    assert.match(await page.getByTestId('results-stale').textContent(), /These results are for the scenario before your edit/);
    assert.equal(await watch.count(), 0);
    assert.match(await page.locator('#results-panel .results-body').getAttribute('class'), /stale/);
    // Back to the lesson's scenario: the results are its results again.
    await setSeed(page, 1);
    await watch.waitFor();
    assert.equal(await page.getByTestId('results-stale').count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

for (const viewport of [{ width: 1024, height: 768 }, { width: 1440, height: 900 }]) {
  test(`the classic comparison runs from the first screen at ${viewport.width}×${viewport.height}`, { timeout: 150_000 }, async () => {
    const { context, page, errors } = await openSized(site, '/', viewport);
    try {
      const button = page.getByTestId('classic-run');
      assert.ok(await inViewport(button), 'the classic-run button is visible without scrolling');
      if (viewport.width !== 1024) return; // One run is enough; the other size checks the fold.
      await button.click();
      await waitForResults(page, 3);
      const focus = page.getByTestId('playback-focus');
      await focus.waitFor({ timeout: 30_000 });
      const kind = await focus.getAttribute('data-moment');
      const job = await focus.getAttribute('data-moment-job');
      assert.ok(['waiting', 'preempted'].includes(kind), `moment ${kind}`);
      const pane = page.getByTestId('playback-pane');
      assert.equal(await pane.getAttribute('data-policy'), 'dally');
      const time = Number(await page.getByTestId('player').getAttribute('data-time'));
      assert.ok(time > 0, `paused at ${time} s`);
      assert.equal((await page.getByTestId('play-button').textContent()).trim(), 'Play', 'paused');
      // The moment's job is marked: selected, and waiting with its timer (or preempted).
      assert.equal(await page.getByTestId('job-details').getAttribute('data-job'), job);
      if (kind === 'waiting') {
        await page.locator(`[data-testid=delay-timer][data-job="${job}"]`).first().waitFor();
      } else {
        assert.match(await page.getByTestId('job-reason').textContent(), /preempt/i);
      }
      // The playback is in view, under the results' headline.
      const headline = page.getByTestId('playback-headline');
      assert.match(await headline.textContent(), /dally/);
      await eventually(() => inViewport(headline), true, 'the headline is in view');
      await eventually(() => page.getByTestId('player').evaluate((el) => el.getBoundingClientRect().top < window.innerHeight), true,
        'the player is in view');
      // Still paused a moment later.
      await page.waitForTimeout(500);
      assert.equal(Number(await page.getByTestId('player').getAttribute('data-time')), time);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

test('a link with a trace file names it and its hash, and runs once the file is opened', { timeout: 120_000 }, async () => {
  let url;
  {
    const { context, page } = await openSized(site);
    try {
      await page.locator('#topology select').first().selectOption('teaching');
      await page.getByTestId('trace-input').setInputFiles({ name: 'my trace.csv', mimeType: 'text/csv', buffer: Buffer.from(TRACE) });
      await page.getByTestId('trace-job-count').filter({ hasText: /^3$/ }).waitFor();
      await choosePolicies(page, ['consolidate']);
      await page.getByTestId('share-button').click();
      url = await page.getByTestId('share-link').inputValue();
      assert.match(url, /#s=1\.[^&]+&trace=my%20trace\.csv&hash=[0-9a-f]{8}$/);
      assert.equal(await page.evaluate(() => location.href), url);
      // An edit: the address bar and the link shown follow it.
      await setSeed(page, 3);
      await eventually(() => page.getByTestId('share-link').inputValue(), (v) => v !== url && /&trace=my%20trace\.csv&hash=/.test(v),
        'the shown link follows the edit');
      assert.equal(await page.evaluate(() => location.href), await page.getByTestId('share-link').inputValue());
      await setSeed(page, 1);
      await eventually(() => page.getByTestId('share-link').inputValue(), url, 'and back');
    } finally {
      await context.close();
    }
  }
  const hash = url.match(/hash=([0-9a-f]{8})/)[1];
  const { context, page, errors } = await openSized(site, url.slice(site.origin.length));
  try {
    const ask = page.getByTestId('link-trace');
    await ask.waitFor();
    assert.equal((await ask.locator('p').textContent()).trim(), `This link's trace is my trace.csv (hash ${hash}): open it to run.`);
    // Another file: said to be another, nothing run.
    await page.getByTestId('link-trace-file').setInputFiles({ name: 'my trace.csv', mimeType: 'text/csv', buffer: Buffer.from(TRACE.replace('600', '601')) });
    await page.getByTestId('error-banner').filter({ hasText: "is not the link's trace" }).waitFor();
    assert.equal(await page.getByTestId('summary-table').count(), 0);
    // The link's file: loaded and run.
    await page.getByTestId('link-trace-file').setInputFiles({ name: 'my trace.csv', mimeType: 'text/csv', buffer: Buffer.from(TRACE) });
    await waitForResults(page, 1);
    assert.equal(await ask.count(), 0);
    const jobs = await page.getByTestId('summary-table').locator('td[data-metric=jobs_completed][data-policy=consolidate]').getAttribute('data-value');
    assert.equal(Number(jobs), 3);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('#lesson=light-load&autoplay runs the lesson, opens at t with the job selected; the URL follows an edit', { timeout: 120_000 }, async () => {
  const { context, page, errors } = await openSized(site, '/#lesson=light-load&autoplay&t=600&job=3', { width: 1024, height: 768 });
  try {
    await waitForResults(page, 3);
    assert.equal(await page.getByTestId('lesson-watch').getAttribute('data-lesson'), 'light-load');
    assert.equal(await page.locator('.generator input').nth(0).inputValue(), '300');
    assert.equal(await page.getByTestId('player').getAttribute('data-time'), '600.000');
    assert.equal(await page.getByTestId('job-details').getAttribute('data-job'), '3');
    await eventually(() => page.getByTestId('player').evaluate((el) => el.getBoundingClientRect().top < window.innerHeight), true,
      'the playback is brought into view');
    assert.equal(await page.evaluate(() => location.hash), '#lesson=light-load&autoplay&t=600&job=3');
    await setSeed(page, 5);
    await page.getByTestId('results-stale').waitFor();
    const hash = await eventually(() => page.evaluate(() => location.hash), /^#s=1\./, 'the URL shows the edited scenario');
    assert.ok(hash);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
