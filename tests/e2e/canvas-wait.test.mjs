// End-to-end tests of the wait made visible on the canvas, and of projector mode
// (issue 24, items 3 and 4):
//
// - in the introduction's "Wait for a server" (src/tour: dally keeps a network-sensitive
//   VGG-16 job waiting for a server while 4 GPUs are free across the cluster), the job is
//   drawn as a ghost over the free GPUs it declines, with its countdown, which runs down as
//   the playhead moves; the subtitle under the canvas says it in words ("job 14 declines 4
//   free GPUs across racks (1.58× slower) and waits up to 300 s more for one server");
//   "Next wait ▶" finds such a moment from the start;
// - on the first run's scenario (fifo, consolidate and dally on 2 racks of two 8-GPU
//   servers; the playback opens on dally) at 1024×768, projector mode draws GPU cells of
//   40 CSS px or more with 24 px text and the queue under the cluster; off, the cells are
//   the old, smaller ones.
//
// What the canvas drew is read from its data attributes (data-ghosts, data-cell-px,
// data-text-px, data-queue), set from the data the drawing used.
//
// Run: node --test tests/e2e/canvas-wait.test.mjs   (after `trunk build --release`).
// PROXIMA_DOC_SHOTS=1 also writes the screenshots of docs/APP.md into docs/img/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { canvasGhosts, checkClean, eventually, openPage, repoRoot, runAndWait, useSite, waitForApp } from './harness.mjs';

const site = useSite({ tempPrefix: 'proxima-e2e-canvas-wait-' });
const shots = process.env.PROXIMA_DOC_SHOTS ? join(repoRoot, 'docs', 'img') : null;

/** Moves the playhead to `t` seconds and waits for the canvas to be drawn there. */
async function seek(scope, t) {
  await scope.getByTestId('time-slider').fill(String(t));
  return eventually(() => canvasGhosts(scope), (g) => Math.abs(g.time - t) < 1e-5, `the canvas drawn at ${t} s`);
}

/** The canvas's layout facts. */
async function layout(scope) {
  return scope.getByTestId('cluster-canvas').first().evaluate((c) => ({
    projector: c.dataset.projector === 'true',
    cell: Number(c.dataset.cellPx),
    text: Number(c.dataset.textPx),
    layout: c.dataset.layout,
    queue: c.dataset.queue ?? null,
    cssWidth: c.getBoundingClientRect().width,
  }));
}

describe('the wait on the canvas, and projector mode', () => {
  let context;
  let page;
  let record;

  before(async () => {
    context = await site.browser.newContext({ viewport: { width: 1440, height: 900 } });
    ({ page, record } = await openPage(site.browser, `${site.origin}/`, site.origin, context));
    await waitForApp({ page, record });
  });

  after(async () => {
    await context?.close();
  });

  test('a waiting job is a ghost with its countdown on the canvas, and the subtitle says why', { timeout: 180_000 }, async () => {
    // The introduction, to its third step: dally keeps the sensitive job waiting.
    await page.getByTestId('intro-button').click();
    const step = page.getByTestId('tour-step');
    await step.waitFor({ timeout: 60_000 });
    for (let i = 0; i < 2; i++) {
      const at = Number(await step.getAttribute('data-step'));
      await page.getByTestId('tour-next').click();
      await eventually(async () => Number(await step.getAttribute('data-step')), at + 1);
    }
    assert.match(await step.textContent(), /Wait for a server/);
    const tour = page.getByTestId('tour');
    await tour.getByTestId('cluster-canvas').waitFor();
    const subtitle = tour.getByTestId('playback-subtitle');
    const now = tour.getByTestId('subtitle-now');

    // "Next wait ▶" from the start: the first moment a job declines free GPUs.
    await seek(tour, 0);
    await tour.getByTestId('next-wait-button').click();
    const first = await eventually(() => canvasGhosts(tour), (g) => g.time > 0 && g.ghosts.length > 0, 'a ghost at the next wait');
    const g = first.ghosts[0];
    const text = await now.textContent();
    console.log(`# next wait at ${first.time} s: ghost ${JSON.stringify(g)}; "${text}"`);
    assert.ok(g.gpus >= 1 && Number.isFinite(g.left) && g.left > 10, JSON.stringify(g));
    assert.match(text, new RegExp(`job ${g.job} declines ${g.gpus} free GPUs? (across|in) .+ \\(\\d\\.\\d\\d× slower\\) and waits up to (\\d+ s|[\\d.]+ min) more for one server`));
    assert.equal(await subtitle.getAttribute('aria-live'), 'polite');
    assert.match(await subtitle.textContent(), new RegExp(`Last decision, at .+: job ${g.job} declines ${g.gpus} GPUs? .+ and waits up to \\d+ s for one server`));

    // The countdown runs with the playhead: seeking 5 s on, and playing.
    const later = await seek(tour, Number((first.time + 5).toFixed(6)));
    const g5 = later.ghosts.find((x) => x.job === g.job);
    assert.ok(g5, 'still waiting 5 s later');
    assert.ok(Math.abs(g.left - 5 - g5.left) <= 0.15, `5 s on, ${g.left} s → ${g5.left} s left`);
    assert.match(await now.textContent(), new RegExp(`job ${g.job} declines .+ waits up to ${Math.ceil(g5.left)} s more`));
    await tour.getByTestId('play-button').click();
    const played = await eventually(() => canvasGhosts(tour), (x) => x.time > later.time + 1, 'the playhead moved');
    await tour.getByTestId('play-button').click();
    const gp = played.ghosts.find((x) => x.job === g.job);
    if (gp) assert.ok(gp.left < g5.left, `playing ran the countdown down: ${g5.left} → ${gp.left}`);

    await seek(tour, Number((first.time + 10).toFixed(6)));
    if (shots) await tour.getByTestId('playback-pane').first().screenshot({ path: join(shots, 'playback-ghost.png') });
  });

  test('projector mode at 1024×768: GPUs of 40 CSS px or more, 24 px text, the queue on the canvas', { timeout: 180_000 }, async () => {
    // The first run's scenario, as it is.
    await runAndWait(page, 3, 120_000);
    const results = page.locator('#playback');
    await results.getByTestId('player').waitFor();
    assert.equal(await results.getByTestId('playback-pane').first().getAttribute('data-policy'), 'dally');
    // A moment of this run with a job under a delay timer: job 365 declines 8 free GPUs
    // across racks and waits for one server (from 374,990.9 s, 300 s).
    await seek(results, 375000);
    await page.setViewportSize({ width: 1024, height: 768 });
    await page.evaluate(() => localStorage.removeItem('proxima.projector'));
    const button = results.getByTestId('projector-button');
    if ((await button.getAttribute('aria-pressed')) === 'true') await button.click();
    const off = await eventually(() => layout(results), (l) => !l.projector && l.cssWidth <= 1024, 'projector mode off at 1024 px');
    console.log(`# 1024×768, projector off: ${off.layout} layout, GPU cells ${off.cell} CSS px, text ${off.text} px`);
    assert.ok(off.cell < 40, `without projector mode the cells are the old ones: ${off.cell} px`);
    assert.ok(off.text < 24);
    assert.equal(off.queue, null);

    await button.click();
    const on = await eventually(() => layout(results), (l) => l.projector, 'projector mode on');
    console.log(`# 1024×768, projector on: ${on.layout} layout, GPU cells ${on.cell} CSS px, text ${on.text} px, canvas ${on.cssWidth} px wide; queue "${on.queue}"`);
    assert.equal(await button.getAttribute('aria-pressed'), 'true');
    assert.ok(on.cell >= 40, `projector mode GPU cells: ${on.cell} CSS px`);
    assert.ok(on.text >= 24, `projector mode text: ${on.text} px`);
    assert.notEqual(on.queue, null, 'the queue is drawn on the canvas');
    assert.equal(await page.evaluate(() => localStorage.getItem('proxima.projector')), 'on', 'the choice is remembered');
    // The queue's row on the canvas is the queue list's: the same jobs, the same countdowns.
    const listed = await results.locator('[data-testid=delay-timer]').evaluateAll((ts) => ts.map((t) => `${t.dataset.job}:${t.dataset.leftS}`));
    const drawn = on.queue.split(';').filter((q) => q.includes(':'));
    assert.deepEqual(drawn, listed);
    const queued = Number((await results.locator('.player-stats').textContent()).match(/(\d+) waiting/)[1]);
    assert.equal(on.queue === '' ? 0 : on.queue.split(';').length, queued);
    if (shots) await results.getByTestId('playback-pane').first().screenshot({ path: join(shots, 'playback-projector.png') });

    // P toggles it off again (outside fields).
    await results.getByTestId('player').focus();
    await page.keyboard.press('p');
    const back = await eventually(() => layout(results), (l) => !l.projector, 'P leaves projector mode');
    assert.equal(back.cell, off.cell);
    assert.equal(await page.evaluate(() => localStorage.getItem('proxima.projector')), 'off');
    checkClean(record, { origin: site.origin, prefix: '/' });
  });
});
