// Measures the simulation in the browser: the built site (dist/) runs the full
// Philly-derived trace in its web worker in headless Chromium, and the same scenarios run
// natively through `proxima bench targets`. Prints the median of several runs of each and
// their ratio, and how often the page painted while the worker ran.
//
//   node scripts/bench-wasm.mjs [--repeats N] [--dist DIR ...]
//
// Needs: dist/ (trunk build --release), target/release/proxima (cargo build --release -p
// proxima-cli), the trace at $PROXIMA_DATA/philly/philly.csv or ../shared/data/philly/,
// playwright-core (npm ci) and /usr/bin/chromium. A benchmark prints figures; it asserts
// nothing and is not part of scripts/test.sh.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveDirectory } from '../tests/e2e/static-server.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// `--dist DIR`, repeatable: the built sites to measure (default dist/). Several builds are
// measured in turn, run by run in one browser, so their figures share the machine's load.
const dists = process.argv.flatMap((a, i) => (a === '--dist' ? [resolve(process.argv[i + 1])] : []));
if (dists.length === 0) dists.push(join(repo, 'dist'));
const data = process.env.PROXIMA_DATA ?? resolve(repo, '..', 'shared', 'data');
const philly = join(data, 'philly', 'philly.csv');
const proxima = join(repo, 'target', 'release', 'proxima');
const repeatsArg = process.argv.indexOf('--repeats');
const repeats = repeatsArg > 0 ? Number(process.argv[repeatsArg + 1]) : 5;

for (const [what, path, how] of [
  ...dists.map((d) => ['the site', join(d, 'index.html'), 'trunk build --release']),
  ['the CLI', proxima, 'cargo build --release -p proxima-cli'],
  ['the Philly trace', philly, 'set PROXIMA_DATA to the data folder'],
]) {
  if (!existsSync(path)) {
    console.error(`${what} is missing (${path}): ${how}`);
    process.exit(2);
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Scenario: the whole trace on the 2,048-GPU oversubscribed preset, and on 512 GPUs.
const scenarios = [
  { name: 'philly-2048', preset: 'oversub-2048', policies: ['fifo', 'consolidate', 'dally'] },
];

/** Native: `proxima bench targets` reports the simulation time alone, as the worker does. */
function nativeTimes() {
  const out = execFileSync(proxima, ['bench', 'targets', '--repeats', String(repeats)],
    { encoding: 'utf8', env: { ...process.env, PROXIMA_DATA: data } });
  const times = {};
  for (const line of out.split('\n')) {
    const m = line.match(/^philly-2048-(\w+)\s+\d+\s+\d+\s+\d+\s+([\d.]+)/);
    if (m) times[m[1]] = Number(m[2]) * 1000;
  }
  return times;
}

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  // `--chromium-arg ARG`, repeatable: extra switches, e.g. `--js-flags=--no-liftoff`.
  ...process.argv.flatMap((a, i) => (a === '--chromium-arg' ? [process.argv[i + 1]] : []))];

/** Opens the site in a fresh page, loads the trace and ticks the scenario's policies. */
async function openSite(browser, origin, scenario) {
  const page = await browser.newPage();
  await page.goto(`${origin}/`);
  await page.getByTestId('run-button').waitFor();
  await page.locator('select:has(option[value="oversub-2048"])').first().selectOption(scenario.preset);
  await page.getByTestId('trace-input').setInputFiles(philly);
  await page.getByTestId('trace-job-count').filter({ hasText: '82247' }).waitFor({ timeout: 60_000 });
  const boxes = page.getByTestId('policy-select').locator('input[type=checkbox]');
  for (let i = 0; i < (await boxes.count()); i++) {
    const box = boxes.nth(i);
    if ((await box.isChecked()) !== scenario.policies.includes(await box.getAttribute('value'))) await box.click();
  }
  return page;
}

/** One run of every ticked policy: the worker's own timing of each, and the page's frames meanwhile. */
async function runOnce(page, scenario) {
  // Count animation frames while the worker runs: the page must keep painting.
  await page.evaluate(() => {
    window.__frames = [];
    const tick = (t) => { window.__frames.push(t); if (window.__counting) requestAnimationFrame(tick); };
    window.__counting = true;
    requestAnimationFrame(tick);
  });
  await page.getByTestId('run-button').click();
  // The results table has a column per policy; its run-time row has one cell per policy
  // carrying the worker's own timing.
  await page.getByTestId('summary-table').locator('[data-elapsed-ms]').nth(scenario.policies.length - 1).waitFor({ timeout: 120_000 });
  await page.waitForFunction(() => !document.querySelector('[data-testid=run-button]').disabled, null, { timeout: 120_000 });
  const f = await page.evaluate(() => { window.__counting = false; return window.__frames; });
  const cells = await page.getByTestId('summary-table').evaluate((t) =>
    [...t.querySelectorAll('[data-elapsed-ms]')].map((cell) => [cell.dataset.policy, Number(cell.dataset.elapsedMs)]));
  let frames = null;
  if (f.length > 1) {
    const gaps = f.slice(1).map((t, i) => t - f[i]);
    frames = { fps: (f.length - 1) / ((f[f.length - 1] - f[0]) / 1000), worstGapMs: Math.max(...gaps) };
  }
  return { cells, frames };
}

/** Times the scenario in every build of `dists`, one page each, taking turns run by run. */
async function browserTimes(scenario) {
  const servers = [];
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const results = dists.map(() => ({ samples: Object.fromEntries(scenario.policies.map((p) => [p, []])), frames: [] }));
  try {
    const pages = [];
    for (const dir of dists) {
      const server = await serveDirectory(dir);
      servers.push(server);
      pages.push(await openSite(browser, server.origin, scenario));
    }
    // The first run in a fresh worker is slower (the engine has not optimised the code
    // yet); it is run once and not counted.
    for (let r = 0; r <= repeats; r++) {
      for (const [i, page] of pages.entries()) {
        const { cells, frames } = await runOnce(page, scenario);
        if (r === 0) continue;
        for (const [policy, ms] of cells) results[i].samples[policy].push(ms);
        if (frames) results[i].frames.push(frames);
      }
    }
  } finally {
    await browser.close();
    for (const server of servers) await server.close();
  }
  return results;
}

const native = nativeTimes();
for (const scenario of scenarios) {
  const results = await browserTimes(scenario);
  console.log(`\n${scenario.name}: the full Philly trace (82,247 jobs) on ${scenario.preset}, median of ${repeats} runs`);
  for (const [i, { samples, frames }] of results.entries()) {
    if (dists.length > 1) console.log(`\nbuild ${dists[i]}`);
    console.log('policy          native ms   wasm ms   wasm/native');
    for (const p of scenario.policies) {
      const w = median(samples[p]);
      console.log(`${p.padEnd(14)} ${native[p].toFixed(0).padStart(10)} ${w.toFixed(0).padStart(9)} ${(w / native[p]).toFixed(2).padStart(13)}`);
    }
    if (frames.length) {
      console.log(`page painting while the worker ran: median ${median(frames.map((f) => f.fps)).toFixed(0)} frames/s, ` +
        `worst gap between frames ${Math.max(...frames.map((f) => f.worstGapMs)).toFixed(0)} ms`);
    }
  }
}
