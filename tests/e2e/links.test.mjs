// End-to-end test of links that run (issue 32, point 5): a shared `#s=` link's notice, at
// the top of the page, runs its scenario ("Run it") and says so when the classic
// comparison replaces it, with the way back; "Link to this moment" in the playback makes
// a link that reruns the scenario and reopens the playback on the same policy, time and
// selected job; during the tour, Share (and the player's "Link to this step") link to the
// tour's step, and `#tour=N` opens that step.
//
// Run: node --test tests/e2e/links.test.mjs   (after `trunk build --release`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { choosePolicies, eventually, inViewport, openSized, setSeed, useSite, waitForResults } from './harness.mjs';

const site = useSite();

/** The link to a small scenario (teaching cluster, seed 6, consolidate and dally), made by Share. */
async function scenarioLink() {
  const { context, page } = await openSized(site);
  try {
    await page.locator('#topology select').first().selectOption('teaching');
    await choosePolicies(page, ['consolidate', 'dally']);
    await setSeed(page, 6);
    await page.getByTestId('share-button').click();
    const url = await page.getByTestId('share-link').inputValue();
    assert.match(url, /#s=1\.[^&]+$/);
    return url.slice(site.origin.length);
  } finally {
    await context.close();
  }
}

/** Moves the playback's time slider to `t` seconds. */
async function seek(page, t) {
  const slider = page.getByTestId('time-slider');
  await slider.fill(String(t));
  await slider.dispatchEvent('input');
  await eventually(async () => Number(await page.getByTestId('player').getAttribute('data-time')), t, `seeked to ${t} s`);
}

/** Presses "Link to this moment" and returns the link's path and fragment. */
async function momentLink(page) {
  await page.getByTestId('moment-link-button').click();
  const url = await page.getByTestId('moment-link').inputValue();
  assert.ok(url.startsWith(site.origin), url);
  return url.slice(site.origin.length);
}

test("a shared link's notice runs it, and the classic comparison does not replace it silently", { timeout: 240_000 }, async () => {
  const path = await scenarioLink();
  const { context, page, errors } = await openSized(site, path, { width: 1024, height: 768 });
  try {
    const notice = page.getByTestId('link-notice');
    assert.match(await notice.textContent(), /Restored the scenario from the link: \d+ generated jobs on the teaching cluster, 2 policies/);
    const runIt = notice.getByTestId('link-run');
    assert.ok(await inViewport(runIt), '"Run it" is on the first screen');
    // Above the first screen's own button, the one it would have replaced the link with.
    const [runTop, classicTop] = await Promise.all([runIt, page.getByTestId('classic-run')].map((l) => l.evaluate((el) => el.getBoundingClientRect().top)));
    assert.ok(runTop < classicTop, `Run it at ${runTop} px, the classic comparison at ${classicTop} px`);
    assert.equal(await page.getByTestId('summary-table').count(), 0, 'nothing ran unasked');

    // The classic comparison replaces it: said, with the way back.
    await page.getByTestId('classic-run').click();
    await eventually(() => notice.getAttribute('data-replaced'), 'true', 'the notice says it was replaced');
    assert.match(await notice.textContent(), /replaced the scenario of the link you opened/);
    assert.match(await runIt.textContent(), /Back to the link's scenario and run it/);
    await runIt.click();
    await waitForResults(page, 2);
    assert.equal(await notice.count(), 0, 'once run, the notice goes');
    assert.equal(await page.getByTestId('seed-input').inputValue(), '6');
    assert.equal(await page.locator('#topology select').first().inputValue(), 'teaching');
    const policies = await page.getByTestId('summary-table').locator('thead th[data-policy]').evaluateAll((ths) => ths.map((th) => th.dataset.policy));
    assert.deepEqual(policies, ['consolidate', 'dally']);
    await eventually(() => page.locator('#results-panel').evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top < window.innerHeight && r.bottom > 0;
    }), true, 'the results are brought into view');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }

  // Straight "Run it", on a fresh page.
  const fresh = await openSized(site, path);
  try {
    await fresh.page.getByTestId('link-run').click();
    await waitForResults(fresh.page, 2);
    assert.equal(await fresh.page.getByTestId('seed-input').inputValue(), '6');
    assert.deepEqual(fresh.errors, []);
  } finally {
    await fresh.context.close();
  }
});

test('a link to a moment reopens the playback at the same policy, time and job', { timeout: 240_000 }, async () => {
  // A lesson's run, opened with a job selected; then another policy and another time.
  const first = await openSized(site, '/#lesson=light-load&autoplay&t=600&job=3');
  let lessonMoment;
  try {
    await waitForResults(first.page, 3);
    const page = first.page;
    await eventually(() => page.getByTestId('job-details').getAttribute('data-job'), '3');
    await page.getByTestId('playback-policy').selectOption({ label: 'consolidate' });
    await eventually(() => page.getByTestId('playback-pane').first().getAttribute('data-policy'), 'consolidate');
    await seek(page, 900);
    lessonMoment = await momentLink(page);
    assert.equal(lessonMoment, '/#lesson=light-load&autoplay&policy=consolidate&t=900&job=3');
    assert.deepEqual(first.errors, []);
  } finally {
    await first.context.close();
  }
  const again = await openSized(site, lessonMoment);
  try {
    const page = again.page;
    await waitForResults(page, 3);
    await eventually(() => page.getByTestId('player').getAttribute('data-time'), '900.000');
    assert.equal(await page.getByTestId('playback-pane').first().getAttribute('data-policy'), 'consolidate');
    assert.equal(await page.getByTestId('job-details').getAttribute('data-job'), '3');
    assert.deepEqual(again.errors, []);
  } finally {
    await again.context.close();
  }

  // A shared scenario's run: its `#s=` link with the moment, run at once when opened.
  const path = await scenarioLink();
  const shared = await openSized(site, path);
  let sharedMoment;
  try {
    const page = shared.page;
    await page.getByTestId('link-run').click();
    await waitForResults(page, 2);
    await page.getByTestId('playback-policy').selectOption({ label: 'dally' });
    await seek(page, 1234.5);
    sharedMoment = await momentLink(page);
    assert.equal(sharedMoment, `${path}&policy=dally&t=1234.5`);
  } finally {
    await shared.context.close();
  }
  const reopened = await openSized(site, sharedMoment);
  try {
    const page = reopened.page;
    await waitForResults(page, 2);
    await eventually(() => page.getByTestId('player').getAttribute('data-time'), '1234.500');
    assert.equal(await page.getByTestId('playback-pane').first().getAttribute('data-policy'), 'dally');
    assert.equal(await page.getByTestId('link-notice').count(), 0, 'it ran: no notice left');
    assert.equal(await page.getByTestId('seed-input').inputValue(), '6');
    await eventually(() => page.getByTestId('player').evaluate((el) => el.getBoundingClientRect().top < window.innerHeight), true,
      'the playback is brought into view');
    assert.deepEqual(reopened.errors, []);
  } finally {
    await reopened.context.close();
  }
});

test("sharing during the tour links to the tour's step, and the link opens that step", { timeout: 240_000 }, async () => {
  const { context, page, errors } = await openSized(site);
  let path;
  try {
    await page.getByTestId('intro-button').click();
    const step = page.getByTestId('tour-step');
    await step.waitFor({ timeout: 60_000 });
    for (let i = 0; i < 2; i++) {
      const at = Number(await step.getAttribute('data-step'));
      await page.getByTestId('tour-next').click();
      await eventually(async () => Number(await step.getAttribute('data-step')), at + 1);
    }
    await page.getByTestId('share-button').click();
    const url = await page.getByTestId('share-link').inputValue();
    assert.equal(url, `${site.origin}/#tour=3`);
    // The player's own button says the same.
    const tour = page.getByTestId('tour');
    await tour.getByTestId('moment-link-button').click();
    assert.equal(await tour.getByTestId('moment-link').inputValue(), url);
    path = url.slice(site.origin.length);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
  const opened = await openSized(site, path);
  try {
    const step = opened.page.getByTestId('tour-step');
    await step.waitFor({ timeout: 60_000 });
    assert.equal(await step.getAttribute('data-step'), '2');
    assert.match(await step.textContent(), /3 of 5: Wait for a server/);
    assert.equal(await opened.page.evaluate(() => location.hash), '#tour=3');
    assert.deepEqual(opened.errors, []);
  } finally {
    await opened.context.close();
  }
});
