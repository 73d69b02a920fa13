// End-to-end tests of the page on a phone and by keyboard (issue 32, point 9): on a
// 390×844 phone the results table scrolls sideways with its first column pinned, so the
// last policy's column (dally's) can be read beside its metric; the challenge on a touch
// screen has no clock (and says why) and shows its queue above the GPUs; opening the
// challenge takes the focus into it; after a run the focus is on the player's Play button
// and Space plays the run without scrolling the page; the page's terms (JCT first) open
// their definitions by keyboard and touch, and the glossary lists them.
//
// Run: node --test tests/e2e/keyboard-phone.test.mjs   (after `trunk build --release`).
// PROXIMA_DOC_SHOTS=1 also writes docs/img/phone-table.png.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { checkClean, choosePolicies, eventually, openApp, repoRoot, runAndWait, useSite } from './harness.mjs';

const site = useSite();
const shots = process.env.PROXIMA_DOC_SHOTS ? join(repoRoot, 'docs', 'img') : null;

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const DESKTOP = { viewport: { width: 1280, height: 900 } };

describe('the page on a phone and by keyboard', () => {
  test('on a 390×844 phone the table scrolls to dally with the metric column pinned', { timeout: 180_000 }, async () => {
    const opened = await openApp(site, { context: PHONE });
    const { page, record } = opened;
    try {
      await choosePolicies(page, ['fifo', 'consolidate', 'tiresias', 'dally']);
      await runAndWait(page, 4);
      const table = page.getByTestId('summary-table');
      const scroller = table.locator('xpath=..');
      const widths = await scroller.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      assert.ok(widths.scroll > widths.client, `the table scrolls sideways in its box: ${JSON.stringify(widths)}`);
      // Nothing of the table sticks out of the page: the page itself does not scroll sideways for it.
      const box = await scroller.boundingBox();
      assert.ok(box.x >= 0 && box.x + box.width <= 390 + 0.5, `the table's box fits the phone: ${JSON.stringify(box)}`);

      // Bring each policy's column, dally's included, beside the metric column, as a
      // finger would, by scrolling the box.
      const pinned = table.locator('tbody tr[data-metric="avg_jct_s"] th[scope=row]');
      const policies = await table.locator('thead th[data-policy]').evaluateAll((ths) => ths.map((th) => th.dataset.policy));
      assert.deepEqual([...policies].sort(), ['consolidate', 'dally', 'fifo', 'tiresias']);
      for (const policy of [...policies.filter((p) => p !== 'dally'), 'dally']) {
        const head = table.locator(`thead th[data-policy="${policy}"]`);
        const jct = table.locator(`td[data-metric="avg_jct_s"][data-policy="${policy}"]`);
        await scroller.evaluate((el, policy) => {
          const th = el.querySelector(`thead th[data-policy="${policy}"]`);
          const first = el.querySelector('tbody th[scope=row]');
          el.scrollLeft = th.offsetLeft - first.offsetWidth;
        }, policy);
        await eventually(async () => {
          const [d, c, p, s] = await Promise.all([head.boundingBox(), jct.boundingBox(), pinned.boundingBox(), scroller.boundingBox()]);
          return { d, c, p, s };
        }, ({ d, c, p, s }) =>
          // The metric's name is still at the box's left edge...
          Math.abs(p.x - s.x) <= 2 && p.width > 40 &&
          // ...and the policy's head and mean JCT are whole, right of it, inside the box and the phone.
          [d, c].every((r) => r.x >= p.x + p.width - 1.5 && r.x + r.width <= Math.min(s.x + s.width, 390) + 1),
        `${policy}'s column is whole beside the pinned metric column`);
      }
      const dally = table.locator('thead th[data-policy="dally"]');
      if (shots) {
        // The table's first rows with dally's column beside the pinned metric column.
        await scroller.evaluate((el) => el.scrollIntoView());
        const b = await scroller.boundingBox();
        await page.screenshot({ path: join(shots, 'phone-table.png'), clip: { x: 0, y: b.y - 8, width: 390, height: 420 } });
      }
      const name = await dally.textContent();
      assert.equal(name, 'dally');
      const head = await dally.evaluate((th) => th.querySelector('code').scrollWidth <= th.clientWidth);
      assert.ok(head, 'dally\'s name is not cut');
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });

  test('after a run the focus is on Play, and Space plays without scrolling the page', { timeout: 120_000 }, async () => {
    const opened = await openApp(site, { context: DESKTOP });
    const { page, record } = opened;
    try {
      await runAndWait(page, 3);
      await eventually(() => page.evaluate(() => document.activeElement?.dataset.testid), 'play-button',
        'the focus lands on the player\'s Play button after a run');
      // The results are still what the page shows (the focus moved without taking the view with it).
      const top = await page.locator('#results-panel').evaluate((el) => el.getBoundingClientRect().top);
      assert.ok(top >= -1 && top < 100, `the results are at the top of the window (top ${top})`);
      const player = page.getByTestId('player');
      const before = Number(await player.getAttribute('data-time'));
      const scrollY = await page.evaluate(() => window.scrollY);
      assert.equal(await page.getByTestId('play-button').textContent(), 'Play');
      await page.keyboard.press('Space');
      await eventually(() => page.getByTestId('play-button').textContent(), 'Pause', 'Space started the playback');
      await eventually(async () => Number(await player.getAttribute('data-time')), (t) => t > before,
        'the playback clock advances');
      assert.equal(await page.evaluate(() => window.scrollY), scrollY, 'Space did not scroll the page');
      // Space again pauses; on the time slider too, Space is the player's.
      await page.keyboard.press('Space');
      await eventually(() => page.getByTestId('play-button').textContent(), 'Play', 'Space paused the playback');
      await page.getByTestId('time-slider').focus();
      const onSlider = await page.evaluate(() => window.scrollY);
      await page.keyboard.press('Space');
      await eventually(() => page.getByTestId('play-button').textContent(), 'Pause', 'Space on the time slider plays');
      assert.equal(await page.evaluate(() => window.scrollY), onSlider, 'Space on the slider did not scroll the page');
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });

  test('the challenge takes the focus when it opens; on a touch screen it has no clock and its queue is above the GPUs', { timeout: 60_000 }, async () => {
    for (const [options, touch] of [[DESKTOP, false], [PHONE, true]]) {
      const opened = await openApp(site, { context: options });
      const { page, record } = opened;
      try {
        // Opened from the keyboard: Enter on its button.
        await page.getByTestId('challenge-open').focus();
        await page.keyboard.press('Enter');
        await page.getByTestId('challenge').waitFor();
        await eventually(() => page.evaluate(() => Boolean(document.activeElement?.closest('[data-testid=challenge]'))), true,
          'the focus is inside the challenge');
        const clock = page.getByTestId('challenge-clock');
        if (touch) {
          assert.equal(await clock.count(), 0, 'no clock on a touch screen');
          assert.match(await page.getByTestId('challenge-clock-why').textContent(), /touch screen/);
          const queue = await page.getByTestId('challenge-queue').boundingBox();
          const gpus = await page.getByTestId('gpu-0').boundingBox();
          assert.ok(queue.y + queue.height <= gpus.y, `the queue (${queue.y}) is above the GPUs (${gpus.y})`);
          // Just above them: the queue's last job and the first GPUs fit on one screen.
          assert.ok(gpus.y + gpus.height - queue.y < 844, `the queue (${queue.y}) and the GPUs (${gpus.y}) fit one screen`);
          assert.ok(queue.x >= 0 && queue.x + queue.width <= 390, 'and on the phone');
        } else {
          assert.equal(await clock.count(), 1, 'the clock runs on a desktop');
          assert.equal(await page.getByTestId('challenge-clock-why').count(), 0);
        }
        checkClean(record, { origin: site.origin, prefix: '/' });
      } finally {
        await opened.context.close();
      }
    }
  });

  test('a term opens its definition by keyboard and by touch, and the glossary lists it', { timeout: 60_000 }, async () => {
    for (const [options, touch] of [[DESKTOP, false], [PHONE, true]]) {
      const opened = await openApp(site, { context: options });
      const { page, record } = opened;
      try {
        const button = page.locator('button.term-button[data-term="jct"]');
        const definition = page.getByTestId('term-jct');
        assert.equal(await definition.isVisible(), false, 'the definition is closed at first');
        if (touch) {
          await button.tap();
        } else {
          await button.focus();
          await page.keyboard.press('Enter');
        }
        await eventually(() => definition.evaluate((el) => el.matches(':popover-open')), true, 'the definition opens');
        assert.ok(await definition.isVisible());
        assert.match(await definition.textContent(), /JCT \(job completion time\).*arrival.*end/);
        await page.keyboard.press('Escape');
        await eventually(() => definition.isVisible(), false, 'Escape closes it');
        // The glossary section lists every term the brief names, JCT and ρ among them.
        const terms = await page.getByTestId('glossary').locator('dt').allTextContents();
        for (const t of ['JCT (job completion time)', 'consolidate', 'oversubscription', 'ρ (finish-time fairness)', 'offered load']) {
          assert.ok(terms.includes(t), `the glossary defines ${t}: ${terms}`);
        }
        checkClean(record, { origin: site.origin, prefix: '/' });
      } finally {
        await opened.context.close();
      }
    }
  });
});
