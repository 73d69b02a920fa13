// Measures the simulation in the browser: the built site (dist/) runs the full
// Philly-derived trace in its web worker in headless Chromium, and the same request runs
// natively through the worker's own code (examples/worker_bench.rs: the same function,
// so the same work, hashing and playback recording included). Prints the median of
// several runs of each and their ratio, how often the page painted while the worker ran,
// and, for context, `proxima bench targets` (the simulation alone, without the worker's
// hashing and recording).
//
//   node scripts/bench-wasm.mjs [--repeats N] [--separately] [--dist DIR ...]
//
// Needs: dist/ (trunk build --release), target/release/examples/worker_bench (cargo build
// --release --example worker_bench), target/release/proxima (cargo build --release -p
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
const workerBench = join(repo, 'target', 'release', 'examples', 'worker_bench');
const repeatsArg = process.argv.indexOf('--repeats');
const repeats = repeatsArg > 0 ? Number(process.argv[repeatsArg + 1]) : 5;

for (const [what, path, how] of [
  ...dists.map((d) => ['the site', join(d, 'index.html'), 'trunk build --release']),
  ['the CLI', proxima, 'cargo build --release -p proxima-cli'],
  ['the native worker', workerBench, 'cargo build --release --example worker_bench'],
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

/**
 * Native, the same work: the worker's `run_request` on the same request, timed by its own
 * clock points (examples/worker_bench.rs), with the event hash of each run.
 */
function nativeWorkerTimes(scenario) {
  const out = execFileSync(workerBench,
    ['--repeats', String(repeats), '--topology', scenario.preset, '--trace', philly,
      ...scenario.policies.flatMap((p) => ['--policy', p])],
    { encoding: 'utf8', env: { ...process.env, PROXIMA_DATA: data } });
  const times = {};
  for (const line of out.split('\n')) {
    const m = line.match(/^policy (\S+) median_ms ([\d.]+) min_ms ([\d.]+) runs \d+ events (\d+) hash (\w+)/);
    if (m) times[m[1]] = { ms: Number(m[2]), events: Number(m[4]), hash: m[5] };
  }
  return times;
}

/** Native, the simulation alone: `proxima bench targets`, without hashing or recording. */
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
  // Let the page finish with this run (the playback is decoded once every policy has run)
  // before the next one starts, so that no run is timed against the page's work on the last.
  await page.waitForFunction(() => !document.querySelector('[data-testid=playback-pending]'), null, { timeout: 120_000 });
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 250)))));
  const cells = await page.getByTestId('summary-table').evaluate((t) =>
    [...t.querySelectorAll('[data-elapsed-ms]')].map((cell) => [cell.dataset.policy, Number(cell.dataset.elapsedMs)]));
  const hashes = await page.getByTestId('summary-table').evaluate((t) =>
    Object.fromEntries([...t.querySelectorAll('[data-event-hash]')].map((cell) => [cell.dataset.policy, cell.dataset.eventHash])));
  let frames = null;
  if (f.length > 1) {
    const gaps = f.slice(1).map((t, i) => t - f[i]);
    frames = { fps: (f.length - 1) / ((f[f.length - 1] - f[0]) / 1000), worstGapMs: Math.max(...gaps) };
  }
  return { cells, hashes, frames };
}

/** Times the scenario in every build of `dists`, one page each, taking turns run by run. */
async function browserTimes(scenario) {
  const servers = [];
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const results = dists.map(() => ({ samples: Object.fromEntries(scenario.policies.map((p) => [p, []])), hashes: {}, frames: [] }));
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
        const { cells, hashes, frames } = await runOnce(page, scenario);
        Object.assign(results[i].hashes, hashes);
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

// `--separately`: each policy in a run of its own, so that the page, which decodes and
// draws one policy's results while the worker runs the next, competes with no timed run.
const separately = process.argv.includes('--separately');
const simulationAlone = nativeTimes();
for (const scenario of scenarios) {
  const nativeWorker = nativeWorkerTimes(scenario);
  const parts = separately ? scenario.policies.map((p) => ({ ...scenario, policies: [p] })) : [scenario];
  const results = dists.map(() => ({ samples: {}, hashes: {}, frames: [] }));
  for (const part of parts) {
    for (const [i, r] of (await browserTimes(part)).entries()) {
      Object.assign(results[i].samples, r.samples);
      Object.assign(results[i].hashes, r.hashes);
      results[i].frames.push(...r.frames);
    }
  }
  console.log(`\n${scenario.name}: the full Philly trace (82,247 jobs) on ${scenario.preset}, median of ${repeats} runs` +
    (separately ? ', each policy in a run of its own' : ', the policies in one run'));
  console.log('native: the worker\'s code natively (same work); simulation alone: `proxima bench` (no hashing, no recording)');
  for (const [i, { samples, hashes, frames }] of results.entries()) {
    if (dists.length > 1) console.log(`\nbuild ${dists[i]}`);
    console.log('policy          native ms   wasm ms   wasm/native   simulation alone ms   wasm/simulation alone');
    for (const p of scenario.policies) {
      const w = median(samples[p]);
      const n = nativeWorker[p];
      const alone = simulationAlone[p];
      console.log(`${p.padEnd(14)} ${n.ms.toFixed(0).padStart(10)} ${w.toFixed(0).padStart(9)} ${(w / n.ms).toFixed(2).padStart(13)}` +
        ` ${alone.toFixed(0).padStart(21)} ${(w / alone).toFixed(2).padStart(23)}`);
      if (hashes[p] !== n.hash) console.log(`  ${p}: the event hashes differ (wasm ${hashes[p]}, native ${n.hash}): not the same run`);
    }
    if (frames.length) {
      console.log(`page painting while the worker ran: median ${median(frames.map((f) => f.fps)).toFixed(0)} frames/s, ` +
        `worst gap between frames ${Math.max(...frames.map((f) => f.worstGapMs)).toFixed(0)} ms`);
    }
  }
}
