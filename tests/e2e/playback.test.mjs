// End-to-end tests of the playback you can project: two policies side by side at the same
// instant (time kept when switching), the canvas's backing store following
// devicePixelRatio, the timer chart's count of timer changes checked against the CLI's
// event log of the same scenario, and the canvas's draw time at 512 and 2,048 GPUs.
//
// The scenario is the congested one of the issue's notes: 2 racks of 4 servers with 4 T4
// GPUs, 50 Gbit/s TCP NICs and 32:1 rack uplinks (the first run's), 1,000 synthetic jobs at
// load 0.9, where dally's auto-tuner moves its timers.
//
// Run: node --test tests/e2e/playback.test.mjs   (scripts/test.sh builds dist/ and the CLI first)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkClean, choosePolicies, cliBinary, eventually, openApp, runAndWait, setGenerator, setSeed, useSite } from './harness.mjs';

const CLUSTER = 'racks=2,servers=4,gpus=4,oversub=32,fabric=tcp';
const JOBS = 1000;
const LOAD = 0.9;
const SEED = 1;

const site = useSite({ tempPrefix: 'proxima-e2e-playback-' });

/** Opens the site in a context with this device pixel ratio. */
/** A desktop screen of this pixel ratio. */
const desktop = (deviceScaleFactor) => ({ context: { deviceScaleFactor, viewport: { width: 1440, height: 900 } } });

/** The cluster `spec` as the topology file the CLI writes, loaded into the page. */
async function importCluster(page, spec) {
  const file = join(site.dir, `${spec.replace(/[^a-z0-9]+/gi, '_')}.json`);
  await writeFile(file, execFileSync(cliBinary(), ['topologies', '--json', spec], { encoding: 'utf8' }));
  await page.getByTestId('topology-input').setInputFiles(file);
  await page.waitForFunction(() => document.querySelector('#topology select').value === 'imported', null, { timeout: 10_000 });
  return file;
}

/** Every pane's time and policy. */
async function paneTimes(page) {
  return page.getByTestId('playback-pane').evaluateAll((panes) => panes.map((p) => [p.dataset.policy, Number(p.dataset.time)]));
}

/** Each canvas: backing size, CSS size and the pixel ratio it was drawn for. */
async function canvasSizes(page) {
  return page.getByTestId('cluster-canvas').evaluateAll((cs) =>
    cs.map((c) => {
      const r = c.getBoundingClientRect();
      return { width: c.width, height: c.height, cssWidth: r.width, cssHeight: r.height, dpr: window.devicePixelRatio, layout: c.dataset.layout };
    }),
  );
}

/**
 * Whether every canvas (at least `count`) is backed by `dpr` device pixels per CSS pixel,
 * within a device pixel or so: CSS sizes are whole pixels, the backing store rounds.
 */
function backed(sizes, dpr, count = 1) {
  return (
    sizes.length >= count &&
    sizes.every((s) => s.dpr === dpr && Math.abs(s.width - s.cssWidth * dpr) <= dpr && Math.abs(s.height - s.cssHeight * dpr) <= dpr)
  );
}

/**
 * The canvases' sizes once they are backed at `dpr`: a canvas is re-measured and redrawn
 * on a frame after its box changed size, not at once.
 */
function backedSizes(page, dpr, count = 1) {
  return eventually(() => canvasSizes(page), (sizes) => backed(sizes, dpr, count), `${count} or more canvases backed at ${dpr} device pixels per CSS pixel`);
}

/** The slider's time as the page holds it (seconds). */
async function playerTime(page) {
  return Number(await page.getByTestId('player').getAttribute('data-time'));
}

describe('playback you can project', () => {
  test('side by side at one instant, time kept when switching, HiDPI canvas, timer changes as in the CLI', { timeout: 180_000 }, async () => {
    const { context, page, record } = await openApp(site, desktop(2));
    try {
      // The default model mix, as the CLI below runs (the first run names its own); set
      // first, and checked before the run. A re-render between the typing and its change
      // event (a trace described) puts the old text back, and the change then sends it:
      // typed again until the field keeps it.
      const mix = page.locator('label.mix input');
      await eventually(async () => {
        await mix.fill('');
        await mix.dispatchEvent('change');
        await new Promise((r) => setTimeout(r, 100));
        return mix.inputValue();
      }, '', 'the default mix');
      const topo = await importCluster(page, CLUSTER);
      await setGenerator(page, JOBS, LOAD, SEED);
      await setSeed(page, SEED);
      assert.equal(await mix.inputValue(), '', 'still the default mix');
      await choosePolicies(page, ['consolidate', 'dally']);
      await runAndWait(page, 2);
      const player = page.getByTestId('player');
      await player.waitFor();

      // The timer chart's count against the CLI's event log of the same scenario.
      const cli = join(site.dir, 'cli');
      const events = `${cli}.jsonl`;
      const out = execFileSync(
        cliBinary(),
        ['run', '--topology', topo, '--trace', `synthetic:jobs=${JOBS},load=${LOAD},seed=${SEED}`, '--seed', String(SEED), '--policy', 'dally', '--events', events, '--out', cli],
        { encoding: 'utf8' },
      );
      const cliHash = out.match(/event-log hash ([0-9a-f]{16})/)[1];
      assert.equal(await page.getByTestId('event-hash').getAttribute('data-event-hash'), cliHash, 'the page ran the scenario the CLI ran');
      const timerChanges = (await readFile(events, 'utf8')).split('\n').filter((l) => l.includes('"timer_changed"')).length;
      const chart = page.getByTestId('timer-chart');
      const shown = Number(await chart.getAttribute('data-changes'));
      console.log(`# ${CLUSTER}, ${JOBS} jobs at load ${LOAD}, dally: ${timerChanges} timer changes in the CLI's event log, ${shown} on the chart`);
      assert.equal(shown, timerChanges);
      assert.ok(shown >= 1, 'the auto-tuner moved a timer');
      assert.equal(await chart.locator('.change-mark').count(), shown, 'a mark per change');
      // Its time labels do not overlap.
      const boxes = await chart.locator('.tick text').evaluateAll((ts) => ts.map((t) => t.getBoundingClientRect()).map((r) => [r.left, r.right, r.top, r.bottom]));
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          const [a, b] = [boxes[i], boxes[j]];
          const overlap = a[0] < b[1] - 0.5 && b[0] < a[1] - 0.5 && a[2] < b[3] - 0.5 && b[2] < a[3] - 0.5;
          assert.ok(!overlap, `tick labels ${i} and ${j} overlap: ${a} ${b}`);
        }
      }

      // The cluster is the editor's graph, drawn sharp at 2 device pixels per CSS pixel.
      let sizes = await backedSizes(page, 2);
      assert.equal(sizes[0].layout, 'graph');
      assert.ok(sizes[0].cssWidth > 600, `the canvas fills its panel: ${sizes[0].cssWidth} px`);

      // The time line under the slider: labelled at round times, each label goes there,
      // and a click on the marks goes to the nearest mark.
      const ticks = page.getByTestId('time-tick');
      assert.ok((await ticks.count()) >= 3, 'at least three labelled times');
      const labels = await ticks.allTextContents();
      assert.ok(labels.every((l) => /^\d+(\.\d)? (s|min|h|d)$/.test(l)), `labels with units: ${labels}`);
      const second = ticks.nth(1);
      const tickTime = Number(await second.getAttribute('data-t'));
      await second.click();
      await eventually(() => playerTime(page), tickTime, 'a time label goes to its time');
      const marks = page.getByTestId('timeline-marks');
      const markTimes = await marks.locator('rect title').allTextContents();
      assert.ok(markTimes.length >= 1, 'the timer changes are marked');
      assert.match(markTimes[0], /^(preemption|re-consolidation|timer change) at /, markTimes[0]);
      // Click on the first mark's column: the player goes to a mark's instant (one of the
      // marks near it), not to the pixel's time.
      const box = await marks.locator('rect').first().boundingBox();
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      const atMark = await eventually(() => playerTime(page), (v) => v !== tickTime, 'a click on a mark moves the time');
      // The instant is a marked event's (a timer change, a preemption, a move back
      // together), as the CLI's event log of the same run has them.
      const marked = (l) => l.includes('"timer_changed"') || l.includes('"preempted"') || l.includes('"reconsolidated"');
      const markedTimes = (await readFile(events, 'utf8')).split('\n').filter(marked).map((l) => JSON.parse(l).t_us / 1e6);
      assert.ok(markedTimes.some((c) => Math.abs(c - atMark) < 0.001), `went to ${atMark} s, a marked event's instant (${markedTimes.slice(0, 5)}…)`);

      // Set a time, switch the watched policy: the time stays.
      const slider = page.getByTestId('time-slider');
      const t = Math.round(Number(await slider.getAttribute('max')) * 0.3);
      await slider.fill(String(t));
      await eventually(() => playerTime(page), t);
      await eventually(() => paneTimes(page), [['dally', t]]);
      const watch = page.getByTestId('playback-policy');
      await watch.selectOption({ label: 'consolidate' });
      await page.waitForFunction(() => document.querySelector('[data-testid=playback-pane]').dataset.policy === 'consolidate');
      await eventually(() => playerTime(page), t, 'switching the watched policy keeps the time');
      await eventually(() => paneTimes(page), [['consolidate', t]]);

      // Both side by side at the same instant, and they move together.
      await page.getByTestId('playback-compare').selectOption({ label: 'dally' });
      await page.getByTestId('playback-pane').nth(1).waitFor();
      await eventually(() => paneTimes(page), [['consolidate', t], ['dally', t]]);
      await page.getByTestId('step-button').click();
      const [[, t1]] = await eventually(() => paneTimes(page), ([[, a], [, b]]) => a > t && a === b, 'stepped together');
      await page.getByTestId('play-button').click();
      await page.waitForTimeout(400);
      await page.getByTestId('play-button').click();
      await eventually(() => paneTimes(page), ([[, a], [, b]]) => a > t1 && a === b, 'played together');
      // Each policy has its own queue, details and timer chart beside the other's.
      const sides = await page.getByTestId('player-side').evaluateAll((els) => els.map((e) => e.dataset.policy));
      assert.deepEqual(sides, ['consolidate', 'dally'], 'a side panel per policy');
      const charts = await page.getByTestId('timer-chart').evaluateAll((els) => els.map((e) => [e.dataset.policy, Number(e.dataset.changes)]));
      assert.deepEqual(charts, [['consolidate', 0], ['dally', timerChanges]], 'a timer chart per policy, each with its own changes');
      sizes = await backedSizes(page, 2, 2);
      assert.equal(sizes.length, 2);
      if (process.env.PROXIMA_SHOTS) await page.getByTestId('player').screenshot({ path: join(process.env.PROXIMA_SHOTS, 'side-by-side.png') });

      // Full screen, for a projector: the player fills the screen, the canvases grow and
      // stay sharp.
      await page.getByTestId('fullscreen-button').click();
      await page.waitForFunction(() => document.fullscreenElement?.dataset.testid === 'player', null, { timeout: 10_000 });
      // Re-measured to the screen: each canvas fits in it, whatever the panes' width.
      await page.waitForFunction(
        () => [...document.querySelectorAll('[data-testid=cluster-canvas]')].every((c) => c.getBoundingClientRect().bottom <= window.innerHeight + 1),
        null,
        { timeout: 10_000 },
      );
      const full = await backedSizes(page, 2, 2);
      console.log(`# canvases: ${sizes.map((s) => `${s.cssWidth}×${s.cssHeight}`).join(', ')} CSS px in the page; ${full.map((s) => `${s.cssWidth}×${s.cssHeight}`).join(', ')} in full screen (1440×900 at DPR 2)`);
      if (process.env.PROXIMA_SHOTS) await page.screenshot({ path: join(process.env.PROXIMA_SHOTS, 'fullscreen.png') });
      await page.evaluate(() => document.exitFullscreen());
      await page.waitForFunction(() => !document.fullscreenElement);

      // Another pixel ratio (a window moved to another screen, or zoom): redrawn to it.
      // The window changes size with it: headless Chromium tells a page nothing of an
      // emulated change of ratio alone (no resize, no media-query change, no
      // ResizeObserver entry, measured on a bare page), so a ratio-only change would
      // test the emulation, not the page; it was noticed in most runs and missed in one.
      const cdp = await context.newCDPSession(page);
      await cdp.send('Emulation.setDeviceMetricsOverride', { width: 1280, height: 800, deviceScaleFactor: 3, mobile: false });
      await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=cluster-canvas]')].every((c) => c.dataset.dpr === '3'), null, { timeout: 10_000 });
      await backedSizes(page, 3, 2);
      await cdp.send('Emulation.clearDeviceMetricsOverride');
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await context.close();
    }
  });

  for (const [name, cluster] of [['512 GPUs', 'racks=8,servers=8,gpus=8,oversub=4'], ['2,048 GPUs', 'oversub-2048']]) {
    test(`draw time of a frame at ${name}`, { timeout: 180_000 }, async () => {
      const { context, page, record } = await openApp(site, desktop(1));
      try {
        if (cluster.includes('=')) await importCluster(page, cluster);
        else await page.locator('#topology select').selectOption(cluster);
        await setGenerator(page, 4000, 2.5, 7);
        await choosePolicies(page, ['dally']);
        await runAndWait(page, 1, 120_000);
        // Into the busiest of a few instants.
        const slider = page.getByTestId('time-slider');
        const max = Number(await slider.getAttribute('max'));
        const busyAt = async (f) => {
          await slider.fill(String(max * f));
          return Number((await page.locator('.player-stats').textContent()).match(/^(\d+) of \d+ GPUs busy/)[1]);
        };
        let [busy, at] = [-1, 0];
        for (const f of [0.02, 0.05, 0.1, 0.2, 0.3, 0.5]) {
          const b = await busyAt(f);
          if (b > busy) [busy, at] = [b, f];
        }
        await busyAt(at);
        const [{ layout }] = await canvasSizes(page);
        await page.getByTestId('speed-select').selectOption('600');
        await page.getByTestId('play-button').click();
        const samples = await page.evaluate(
          () =>
            new Promise((resolve) => {
              const canvas = document.querySelector('[data-testid=cluster-canvas]');
              const seen = [];
              const start = performance.now();
              const tick = (t) => {
                seen.push(Number(canvas.dataset.drawMs));
                if (t - start < 2000) requestAnimationFrame(tick);
                else resolve(seen);
              };
              requestAnimationFrame(tick);
            }),
        );
        await page.getByTestId('play-button').click();
        if (process.env.PROXIMA_SHOTS) await page.getByTestId('player').screenshot({ path: join(process.env.PROXIMA_SHOTS, `draw-${busy}.png`) });
        samples.sort((a, b) => a - b);
        const median = samples[Math.floor(samples.length / 2)];
        console.log(`# draw time at ${name} (${layout} layout, ${busy} busy GPUs): median ${median.toFixed(2)} ms, max ${samples[samples.length - 1].toFixed(2)} ms over ${samples.length} animation frames`);
        assert.ok(busy > 0, 'jobs run there');
        assert.ok(median < 33, `a frame draws in ${median} ms`);
        checkClean(record, { origin: site.origin, prefix: '/' });
      } finally {
        await context.close();
      }
    });
  }
});
