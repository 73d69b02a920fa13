// End-to-end tests of full screen, projector sizing and the tour's text beside its canvas
// (issue 32, point 4 and the tour's part of point 9):
//
// - on the first run's scenario (fifo, consolidate and dally; the playback opens on
//   dally), "Full screen" folds the controls into one bar and gives the canvas the screen:
//   at 1920×1080 and at 1024×768 the canvas covers half of the screen or more, and the
//   subtitle's box is inside it; Escape leaves. Projector mode in full screen is sized the
//   same way, and outside it keeps the canvas and the subtitle on one screen;
// - the tour's text is beside its canvas on wide screens and directly under it on a
//   phone, the two on screen together at 390×844, 1024×768 and 1920×1080.
//
// Run: node --test tests/e2e/full-screen.test.mjs   (after `trunk build --release`).
// PROXIMA_DOC_SHOTS=1 also writes docs/img/full-screen.png (1920×1080).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { checkClean, eventually, openPage, repoRoot, runAndWait, useSite, waitForApp } from './harness.mjs';

const site = useSite();
const shots = process.env.PROXIMA_DOC_SHOTS ? join(repoRoot, 'docs', 'img') : null;

/** An element's box in the viewport, with the viewport's size. */
async function box(locator) {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height, vw: innerWidth, vh: innerHeight };
  });
}

const inside = (b) => b.left >= -0.5 && b.top >= -0.5 && b.right <= b.vw + 0.5 && b.bottom <= b.vh + 0.5;
const intersects = (b) => b.right > 0 && b.bottom > 0 && b.left < b.vw && b.top < b.vh && b.width > 0 && b.height > 0;
const share = (b) => (b.width * b.height) / (b.vw * b.vh);
const page = (locator) => locator.page();
const fmt = (b) => `${Math.round(b.width)}×${Math.round(b.height)} px at (${Math.round(b.left)}, ${Math.round(b.top)})`;

/** Enters full screen on `scope`'s player and waits for the canvas to be drawn to it. */
async function enterFullScreen(scope) {
  const player = scope.getByTestId('player').first();
  await scope.getByTestId('fullscreen-button').first().click();
  // (Before this page had a full-screen mode of its own, the button asked the browser's.)
  const on = (el) => el.dataset.fullScreen === 'true' || document.fullscreenElement === el;
  await eventually(() => player.evaluate(on), true, 'full screen on');
  const canvas = player.getByTestId('cluster-canvas').first();
  // Drawn to the room the screen gives it once its size has stopped changing.
  let last = null;
  await eventually(async () => {
    const b = await box(canvas);
    const same = last && Math.abs(b.width - last.width) < 0.5 && Math.abs(b.height - last.height) < 0.5;
    last = b;
    return same;
  }, true, 'the canvas settled');
  return player;
}

/**
 * The canvas's, the subtitle's and the bar's boxes in `player`, and the share of the
 * screen the drawing itself covers (in full screen the canvas fills the room the screen
 * leaves and the cluster is drawn as large as it fits in it, centred).
 */
async function layout(player) {
  const canvas = player.getByTestId('cluster-canvas').first();
  const [w, h] = ((await canvas.getAttribute('data-drawn-px')) ?? '0x0').split('x').map(Number);
  return {
    drawn: (w * h) / (await page(player).evaluate(() => innerWidth * innerHeight)),
    canvas: await box(canvas),
    subtitle: await box(player.getByTestId('playback-subtitle').first()),
    bar: await box(player.locator('.player-bar, .player-controls').first()),
  };
}

describe('full screen and projector fill the screen', () => {
  let context;
  let page;
  let record;

  before(async () => {
    context = await site.browser.newContext({ viewport: { width: 1920, height: 1080 } });
    ({ page, record } = await openPage(site.browser, `${site.origin}/`, site.origin, context));
    await waitForApp({ page, record });
    await page.evaluate(() => localStorage.removeItem('proxima.projector'));
    await runAndWait(page, 3, 120_000);
  });

  after(async () => {
    await context?.close();
  });

  for (const [width, height] of [[1920, 1080], [1024, 768]]) {
    test(`full screen at ${width}×${height}: the canvas covers half the screen, the subtitle is on it`, { timeout: 120_000 }, async () => {
      await page.setViewportSize({ width, height });
      const results = page.locator('#playback');
      await results.getByTestId('player').waitFor();
      assert.equal(await results.getByTestId('playback-pane').first().getAttribute('data-policy'), 'dally');
      // A busy moment, with jobs queued and one under a delay timer (job 411 waits for a server).
      await results.getByTestId('time-slider').fill('403100');
      const before = await box(results.getByTestId('cluster-canvas').first());
      const player = await enterFullScreen(results);
      const on = await layout(player);
      console.log(`# ${width}×${height}: canvas ${fmt(before)} in the page (${(100 * share(before)).toFixed(0)}% of the screen); ` +
        `full screen ${fmt(on.canvas)} (${(100 * share(on.canvas)).toFixed(0)}%; the cluster drawn on ${(100 * on.drawn).toFixed(0)}%), subtitle ${fmt(on.subtitle)}, bar ${Math.round(on.bar.height)} px`);
      assert.ok(share(on.canvas) >= 0.5, `the canvas covers ${(100 * share(on.canvas)).toFixed(1)}% of the screen`);
      assert.ok(on.drawn >= 0.4, `the cluster is drawn on ${(100 * on.drawn).toFixed(1)}% of the screen`);
      assert.ok(inside(on.canvas), `the canvas is on the screen: ${JSON.stringify(on.canvas)}`);
      assert.ok(inside(on.subtitle), `the subtitle is on the screen: ${JSON.stringify(on.subtitle)}`);
      assert.ok(on.subtitle.top >= on.canvas.bottom - 0.5, 'the subtitle is under the canvas');
      assert.ok(on.bar.height <= 0.15 * height, `the controls fold into a bar: ${on.bar.height} px`);
      if (shots && width === 1920) await page.screenshot({ path: join(shots, 'full-screen.png') });

      // Projector mode in full screen is sized the same way, with its larger text.
      await player.focus();
      await page.keyboard.press('p');
      await eventually(() => player.getByTestId('cluster-canvas').first().getAttribute('data-projector'), 'true');
      const projected = await eventually(() => layout(player), (l) => share(l.canvas) >= 0.5 && inside(l.subtitle), 'projector in full screen');
      console.log(`# ${width}×${height}, projector in full screen: canvas ${fmt(projected.canvas)} (${(100 * share(projected.canvas)).toFixed(0)}%; drawn ${(100 * projected.drawn).toFixed(0)}%), subtitle ${fmt(projected.subtitle)}`);
      await page.keyboard.press('p');

      // Escape leaves, and the canvas goes back to its panel.
      await page.keyboard.press('Escape');
      await eventually(() => player.getAttribute('data-full-screen'), 'false', 'Escape leaves full screen');
      await eventually(() => page.evaluate(() => document.fullscreenElement === null), true, "the browser's full screen ended");
      await eventually(async () => share(await box(results.getByTestId('cluster-canvas').first())) < share(on.canvas), true, 'the canvas back in its panel');
    });
  }

  test('projector mode at 1024×768 keeps the canvas and its subtitle on one screen', { timeout: 60_000 }, async () => {
    await page.setViewportSize({ width: 1024, height: 768 });
    const results = page.locator('#playback');
    const button = results.getByTestId('projector-button');
    if ((await button.getAttribute('aria-pressed')) !== 'true') await button.click();
    const canvas = results.getByTestId('cluster-canvas').first();
    await eventually(() => canvas.getAttribute('data-projector'), 'true');
    // Scrolled as the reader would: the pane's line of figures at the top of the window.
    const fits = async () => {
      await results.locator('.player-stats').first().evaluate((el) => el.scrollIntoView({ block: 'start' }));
      return box(results.getByTestId('playback-subtitle').first());
    };
    const subtitle = await eventually(fits, inside, 'the subtitle under the projected canvas is on screen');
    console.log(`# 1024×768, projector: canvas ${fmt(await box(canvas))}, subtitle ${fmt(subtitle)}`);
    await button.click();
    checkClean(record, { origin: site.origin, prefix: '/' });
  });
});

describe("the tour's text beside its canvas", () => {
  for (const [width, height] of [[390, 844], [1024, 768], [1920, 1080]]) {
    test(`at ${width}×${height} the text and the canvas are on screen together`, { timeout: 120_000 }, async () => {
      const context = await site.browser.newContext({ viewport: { width, height } });
      try {
        const { page, record } = await openPage(site.browser, `${site.origin}/`, site.origin, context);
        await waitForApp({ page, record });
        await page.getByTestId('intro-button').click();
        const tour = page.getByTestId('tour');
        await tour.getByTestId('tour-step').waitFor({ timeout: 60_000 });
        await tour.getByTestId('cluster-canvas').waitFor();
        // The step's text (before it was the player's story: its first paragraph, under the title).
        const words = tour.locator('[data-testid=tour-text], [data-testid=tour-step] + p').first();
        const read = async () => ({ text: await box(words), canvas: await box(tour.getByTestId('cluster-canvas').first()) });
        // The app brings the tour into view as it opens: read once that has happened.
        const seen = await eventually(read, (b) => intersects(b.text) && intersects(b.canvas), 'text and canvas on screen', 5_000).catch((err) => err);
        const { text, canvas } = await read();
        console.log(`# tour at ${width}×${height}: text ${fmt(text)}, canvas ${fmt(canvas)}`);
        if (seen instanceof Error) throw seen;
        if (width >= 1000) {
          // Beside: side by side, at the same height.
          assert.ok(text.left >= canvas.right, `the text is beside the canvas: ${fmt(text)} / ${fmt(canvas)}`);
          assert.ok(Math.min(text.bottom, canvas.bottom) - Math.max(text.top, canvas.top) > 0.5 * canvas.height, 'at the same height');
        } else {
          // Directly under it: below the canvas and its subtitle, nothing else between.
          const subtitle = await box(tour.getByTestId('playback-subtitle').first());
          assert.ok(text.top >= subtitle.bottom - 0.5 && text.top - subtitle.bottom < 40, `the text follows the subtitle: ${fmt(text)} / ${fmt(subtitle)}`);
        }
        checkClean(record, { origin: site.origin, prefix: '/' });
      } finally {
        await context.close();
      }
    });
  }
});
