// End-to-end test of the challenge mode, "Be the scheduler" (issue 24, item 9): the
// student drags a queued job onto a GPU with the mouse, places another with the keyboard
// alone, sees each placement's slowdown before committing it, plays to the end against
// the clock (which counts down and pauses), predicts who did best before the numbers
// appear, sees their mean JCT beside fifo, consolidate and dally (the same numbers
// `proxima run` gives on the same scenario), asks a what-if on a decision (guessing
// before it is shown) and downloads the comparison as an SVG figure.
//
// Run: node --test tests/e2e/challenge.test.mjs   (after `trunk build --release` and
// `cargo build -p proxima-cli`). PROXIMA_DOC_SHOTS=1 also writes docs/img/challenge.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkClean, cliBinary, eventually, openPage, repoRoot, useSite, waitForApp } from './harness.mjs';

const site = useSite({ tempPrefix: 'proxima-e2e-challenge-' });
const shots = process.env.PROXIMA_DOC_SHOTS ? join(repoRoot, 'docs', 'img') : null;

// The challenge's scenario, for the CLI's runs: read from the page's own constants
// (`TOPOLOGY` and `TRACE` in src/challenge/scenario.rs) so that the two cannot
// drift apart.
const challengeSource = await readFile(join(repoRoot, 'src', 'challenge', 'scenario.rs'), 'utf8');
function rustConst(name) {
  const found = challengeSource.match(new RegExp(`pub const ${name}: &str = "([^"]*)";`));
  assert.ok(found, `src/challenge/scenario.rs defines ${name}`);
  return found[1];
}
const TOPOLOGY = rustConst('TOPOLOGY');
const TRACE = rustConst('TRACE');

/** Drags the queued job `name` onto GPU `gpu` with the mouse, in small steps. */
async function drag(page, name, gpu) {
  const from = await page.getByTestId(`queue-job-${name}`).boundingBox();
  const to = await page.getByTestId(`gpu-${gpu}`).boundingBox();
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 8 });
  await page.mouse.up();
}

const preview = (page) => page.getByTestId('challenge-preview').textContent();
const owner = (page, gpu) => page.getByTestId(`gpu-${gpu}`).getAttribute('data-job');

/** The mean JCT `proxima run` gives for `policy` on the challenge's scenario. */
async function cliMeanJct(policy) {
  const trace = join(site.dir, 'challenge.csv');
  await writeFile(trace, TRACE);
  const out = join(site.dir, `cli-${policy}`);
  execFileSync(cliBinary(), ['run', '--topology', TOPOLOGY, '--trace', trace, '--seed', '1', '--policy', policy, '--out', out], { stdio: 'ignore' });
  return JSON.parse(await readFile(join(out, 'summary.json'), 'utf8')).avg_jct_s;
}

test('be the scheduler: drag and keyboard placements, the clock, predict then reveal, a what-if, the figure', { timeout: 180_000 }, async () => {
  const context = await site.browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  const opened = await openPage(site.browser, `${site.origin}/`, site.origin, context);
  const { page, record } = opened;
  try {
    await waitForApp(opened);
    await page.getByTestId('challenge-open').click();
    const challenge = page.getByTestId('challenge');
    await challenge.waitFor();
    await challenge.scrollIntoViewIfNeeded();

    // The clock runs down a second at a time, and stops when paused.
    const clock = page.getByTestId('challenge-clock');
    await eventually(() => clock.textContent(), (t) => /(2\d) s left/.test(t), 'the clock counts down', 5_000);
    await page.getByTestId('challenge-pause').click();
    const paused = await clock.textContent();
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal(await clock.textContent(), paused, 'a paused clock stands still');

    // Drag: job 1 (3 GPUs) dropped on GPU 5 takes GPUs of its server, 4–6, at ideal speed;
    // nothing is placed until Place.
    assert.equal(await page.getByTestId('challenge-place').isDisabled(), true);
    await drag(page, '1', 5);
    await eventually(() => preview(page), /Job 1 on GPUs 4, 5, 6: one server, 1\.00× slower than ideal/);
    assert.equal(await owner(page, 4), null, 'not placed before Place');
    await page.getByTestId('challenge-place').click();
    await eventually(() => owner(page, 4), '1');

    // Keyboard only: Enter on job 3 (6 GPUs), then Enter on GPUs across both racks: the
    // preview says so, with its slowdown, before Enter on Place.
    await page.getByTestId('queue-job-3').focus();
    await page.keyboard.press('Enter');
    await eventually(() => preview(page), /Job 3: now choose its GPUs/);
    for (const g of [0, 1, 2, 3, 8, 9]) {
      await page.getByTestId(`gpu-${g}`).focus();
      await page.keyboard.press('Enter');
    }
    const spread = await eventually(() => preview(page), /Job 3 on GPUs 0, 1, 2, 3, 8, 9: both racks, [\d.]+× slower than ideal/);
    assert.ok(Number(spread.match(/([\d.]+)×/)[1]) > 1, spread);
    console.log(`challenge: ${spread}`);
    await page.getByTestId('challenge-place').focus();
    await page.keyboard.press('Enter');
    await eventually(() => owner(page, 8), '3');
    const log = page.getByTestId('challenge-log');
    await eventually(() => log.locator('li').count(), 2);

    // Job 2 (2 GPUs) dragged onto GPU 12 would take 12 and 13: shown, then cleared.
    await drag(page, '2', 12);
    await eventually(() => preview(page), /Job 2 on GPUs 12, 13: one server, 1\.00× slower than ideal/);
    if (shots) await page.screenshot({ path: join(shots, 'challenge.png') });
    await page.getByTestId('challenge-clear').click();
    await eventually(() => preview(page), /Job 2: now choose its GPUs/);

    // Play to the end: each decision drags the first queued job that fits onto the first
    // free GPU (there is always one at a decision point), or waits when the clock is off.
    await page.getByTestId('challenge-clock-toggle').click();
    await eventually(() => page.getByTestId('challenge-clock').count(), 0, 'the clock is off');
    for (let i = 0; i < 40 && !(await page.getByTestId('challenge-predict').count()); i++) {
      const before = await log.locator('li').count();
      const job = await page.locator('.job-chip:not(.too-big)').first().getAttribute('data-testid');
      const gpu = await page.locator('.challenge-cluster .gpu:not(.busy)').first().getAttribute('data-testid');
      await drag(page, job.replace('queue-job-', ''), Number(gpu.replace('gpu-', '')));
      await eventually(() => page.getByTestId('challenge-place').isDisabled(), false);
      await page.getByTestId('challenge-place').click();
      await eventually(async () => (await log.locator('li').count()) > before || (await page.getByTestId('challenge-predict').count()) > 0, true);
    }

    // Predict, then reveal: no numbers before a prediction.
    const predict = page.getByTestId('challenge-predict');
    await predict.waitFor();
    assert.equal(await page.getByTestId('challenge-compare').count(), 0, 'no numbers before the prediction');
    assert.equal(await page.getByTestId('challenge-reveal').isDisabled(), true);
    await page.getByTestId('predict-dally').click();
    await page.getByTestId('challenge-reveal').click();
    const compare = page.getByTestId('challenge-compare');
    await compare.waitFor();
    const jct = {};
    for (const who of ['you', 'fifo', 'consolidate', 'dally']) {
      jct[who] = Number(await compare.getByTestId(`compare-${who}`).getAttribute('data-value'));
      assert.ok(jct[who] > 0, `${who}: ${jct[who]}`);
    }
    assert.match(await page.getByTestId('challenge-verdict').textContent(), /You predicted dally: (right|not this time)/);
    // The policies' numbers are the CLI's on the same scenario.
    for (const p of ['fifo', 'consolidate', 'dally']) assert.equal(jct[p], await cliMeanJct(p), p);

    // What-if: had the second decision (job 3 across racks) waited 90 s. A guess first,
    // then the difference.
    await page.getByTestId('whatif-wait-2').click();
    const whatIf = page.getByTestId('whatif');
    await eventually(() => whatIf.textContent(), /Had decision 2 \(job 3 on GPUs 0, 1, 2, 3, 8, 9 .*waited 90 s\?/);
    assert.equal(await page.getByTestId('whatif-result').count(), 0, 'no result before the guess');
    await page.getByTestId('guess-later').click();
    const result = page.getByTestId('whatif-result');
    await result.waitFor();
    const delta = Number(await result.getAttribute('data-delta'));
    assert.notEqual(delta, 0, 'the what-if changes the mean JCT');
    assert.ok(Math.abs(Number(await result.getAttribute("data-value")) - (jct.you + delta)) < 1e-6);
    assert.match(await result.textContent(), /You guessed later: (right|wrong)/);
    console.log(`challenge: you ${jct.you} s, fifo ${jct.fifo} s, consolidate ${jct.consolidate} s, dally ${jct.dally} s; ${await result.textContent()}`);

    if (process.env.PROXIMA_SHOTS) await challenge.screenshot({ path: join(process.env.PROXIMA_SHOTS, 'challenge-end.png') });

    // The figure downloads as SVG, with the what-if's bar.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('challenge-export').click()]);
    assert.equal(download.suggestedFilename(), 'proxima-challenge.svg');
    const svg = await readFile(await download.path(), 'utf8');
    assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    for (const label of ['>you<', '>fifo<', '>consolidate<', '>dally<', '>what-if on decision 2<']) assert.ok(svg.includes(label), label);

    checkClean(record, { origin: site.origin, prefix: '/' });
  } finally {
    await context.close();
  }
});
