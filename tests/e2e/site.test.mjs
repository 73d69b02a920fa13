// End-to-end tests of the built site (dist/, from `trunk build --release`): each test
// serves it from a local static server and drives Debian's Chromium, headless, with
// playwright-core. The site is opened twice: at the server's root and under a
// sub-path (/proxima/), which only works if every URL in it is relative.
//
// Run: node --test tests/e2e/*.test.mjs   (scripts/test.sh builds dist/ first)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveDirectory } from './static-server.mjs';
import {
  checkClean, choosePolicies, cliBinary, dist, eventually, exported, launchBrowser, openPage as openPageIn, readSummaryTable, runAndWait, waitForApp,
} from './harness.mjs';

let browser;
const servers = [];
let tempDir;

before(async () => {
  browser = await launchBrowser();
});

/** Opens `url` in a fresh context of this file's browser (see harness.mjs). */
function openPage(url, origin, context = null) {
  return openPageIn(browser, url, origin, context);
}

after(async () => {
  await browser?.close();
  await Promise.all(servers.map((s) => s.close()));
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
});

/** Serves `root` and remembers the server, so that `after` stops it. */
async function serve(root) {
  const server = await serveDirectory(root);
  servers.push(server);
  return server;
}

/** The checks shared by every way of serving the site. */
async function checkApp(opened, where) {
  const { page, record } = opened;
  const started = Date.now();
  const run = await waitForApp(opened);
  console.log(`# time to first render (${where.prefix}): ${Date.now() - started} ms after navigation`);
  assert.equal(await page.title(), 'Proxima');
  assert.equal(await page.locator('h1').textContent(), 'Proxima');
  assert.ok(await page.getByTestId('topology-view').isVisible(), 'topology view is not visible');
  assert.ok(await page.getByTestId('topology-view').locator('[data-gpu]').count() >= 16, 'no GPUs drawn');
  assert.equal(await run.textContent(), 'Run');
  assert.ok(await run.isEnabled(), 'the run button is enabled');
  // A run goes through the worker, whose files come from the site too.
  await runAndWait(page, 3);

  // A release build's loaders fetch each module's gzip copy (scripts/precompress.mjs), a
  // debug build's the .wasm itself, which must then come as application/wasm.
  const wasm = record.responses.filter((r) => /\.wasm(\.gz)?$/.test(new URL(r.url()).pathname));
  assert.ok(wasm.length >= 2, `the page's and the worker's module should both load: ${wasm.map((r) => r.url())}`);
  for (const r of wasm) {
    assert.equal(r.status(), 200, `${r.url()} answered ${r.status()}`);
    if (r.url().endsWith('.wasm')) assert.equal(r.headers()['content-type'], 'application/wasm');
  }
  checkClean(record, where);
}

describe('the built site', () => {
  test('index.html has a strict CSP, no inline script and only relative URLs', async () => {
    const html = await readFile(join(dist, 'index.html'), 'utf8');
    const csp = html.match(/<meta[^>]+http-equiv=["']?Content-Security-Policy["']?[^>]*>/i);
    assert.ok(csp, 'no Content-Security-Policy meta');
    assert.match(csp[0], /script-src 'self' 'wasm-unsafe-eval'[;"']/);
    assert.doesNotMatch(csp[0], /unsafe-inline/);
    for (const script of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
      assert.match(script[1], /\bsrc=/, `inline script: ${script[0].slice(0, 200)}`);
      assert.equal(script[2].trim(), '', 'a script with src has a body');
    }
    for (const [, url] of html.matchAll(/\b(?:src|href)=["']?([^"'\s>]+)/gi)) {
      assert.ok(url.startsWith('./'), `not a relative URL: ${url}`);
    }
  });

  test('renders at the root of a server and runs the default scenario', { timeout: 120_000 }, async () => {
    const { origin } = await serve(dist);
    const opened = await openPage(`${origin}/`, origin);
    try {
      await checkApp(opened, { origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });

  test('renders and runs under a sub-path (/proxima/)', { timeout: 120_000 }, async () => {
    // Serve a directory whose only entry is `proxima` -> dist/.
    tempDir = await mkdtemp(join(tmpdir(), 'proxima-e2e-'));
    await symlink(dist, join(tempDir, 'proxima'), 'dir');
    const { origin } = await serve(tempDir);
    const opened = await openPage(`${origin}/proxima/`, origin);
    try {
      await checkApp(opened, { origin, prefix: '/proxima/' });
    } finally {
      await opened.context.close();
    }
  });
});

describe('the app', () => {
  let origin;
  before(async () => {
    ({ origin } = await serve(dist));
  });

  /** Opens the app in a fresh context (empty local storage) and waits for it. */
  async function open(path = '/') {
    const opened = await openPage(`${origin}${path}`, origin);
    await waitForApp(opened);
    return opened;
  }

  test('runs a preset under two policies and exports what the CLI writes, byte for byte', { timeout: 180_000 }, async () => {
    const opened = await open();
    const { page, record } = opened;
    try {
      await page.locator('#topology select').selectOption('teaching');
      const gen = page.locator('.generator input');
      await gen.nth(0).fill('300');
      await gen.nth(0).dispatchEvent('change');
      await choosePolicies(page, ['fifo', 'dally']);
      const started = Date.now();
      await runAndWait(page, 2);
      console.log(`# teaching, 300 jobs, fifo + dally in the page: ${Date.now() - started} ms from click to results`);

      const table = await readSummaryTable(page);
      assert.deepEqual(Object.keys(table), ['fifo', 'dally']);
      for (const row of Object.values(table)) {
        assert.equal(row.jobs_completed + row.jobs_rejected, 300);
        assert.ok(row.avg_jct_s > 0 && Number.isFinite(row.avg_jct_s));
      }
      assert.ok(await page.getByTestId('jct-cdf').locator('[data-series]').count() === 2, 'one CDF line per policy');

      // The same scenario through the CLI.
      const out = await mkdtemp(join(tmpdir(), 'proxima-cli-'));
      try {
        const args = ['compare', '--topology', 'teaching', '--trace', 'synthetic:jobs=300,load=0.9,seed=1', '--seed', '1',
          '--policy', 'fifo', '--policy', 'dally', '--out', out];
        const t0 = Date.now();
        execFileSync(cliBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
        console.log(`# the same with ${cliBinary()}: ${Date.now() - t0} ms`);
        const shown = await page.locator('.cli code').textContent();
        assert.equal(shown, 'proxima compare --topology teaching --trace synthetic:jobs=300,load=0.9,seed=1 --seed 1 --policy fifo --policy dally --out results');
        assert.equal(await exported(page, 'compare.json'), await readFile(join(out, 'compare.json'), 'utf8'));
        for (const policy of ['fifo', 'dally']) {
          for (const file of ['summary.json', 'jobs.csv', 'timeseries.csv']) {
            const mine = await exported(page, `${policy}/${file}`);
            const theirs = await readFile(join(out, policy, file), 'utf8');
            assert.ok(mine === theirs, `${policy}/${file} differs from the CLI's`);
          }
          const summary = JSON.parse(await readFile(join(out, policy, 'summary.json'), 'utf8'));
          for (const [key, value] of Object.entries(table[policy])) assert.equal(value, summary[key], `${policy} ${key}`);
        }
        const scenario = JSON.parse(await exported(page, 'scenario.json'));
        assert.equal(scenario.trace, 'synthetic:jobs=300,load=0.9,seed=1');
        assert.deepEqual(scenario.policies, ['fifo', 'dally']);
      } finally {
        await rm(out, { recursive: true, force: true });
      }
      checkClean(record, { origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });

  test('a malformed trace shows file, line and field, and blocks Run until a good file loads', { timeout: 60_000 }, async () => {
    const opened = await open();
    const { page, record } = opened;
    const dir = await mkdtemp(join(tmpdir(), 'proxima-traces-'));
    try {
      const good = join(dir, 'good.csv');
      await writeFile(good, 'id,submit_s,gpus,model,duration_s\na,0,1,resnet50,600\nb,30,4,vgg16,1200\nc,60,2,bert,900\n');
      // vgg16 has figures for the V100 and A100, not for the first run's T4 cluster.
      await page.locator('#topology select').selectOption('teaching');
      await page.getByTestId('trace-input').setInputFiles(good);
      await page.getByTestId('trace-job-count').filter({ hasText: '3' }).waitFor();
      const bad = join(dir, 'bad.csv');
      await writeFile(bad, 'id,submit_s,gpus,model,duration_s\na,0,1,resnet50,600\nb,thirty,4,vgg16,1200\n');
      await page.getByTestId('trace-input').setInputFiles(bad);
      // Said beside the drop zone the file went to.
      const problem = page.locator('#trace [data-testid=trace-file-problem]');
      await problem.waitFor();
      const text = await problem.textContent();
      assert.match(text, /bad\.csv:3: submit_s: /, text);
      // Run waits for a file that loads (issue 32, point 8): disabled, with the reason beside it.
      await page.waitForFunction(() => document.querySelector('[data-testid=run-button]').disabled);
      assert.match(await page.getByTestId('run-blocked').textContent(), /bad\.csv was refused \(line 3, submit_s\): fix the file or choose the generator/);
      assert.match(await page.locator('#trace').textContent(), /file \(refused/);
      // The good file again: runs use it.
      await page.getByTestId('trace-input').setInputFiles(good);
      await problem.waitFor({ state: 'detached' });
      assert.match(await page.locator('#trace').textContent(), /file: good\.csv/);
      await choosePolicies(page, ['consolidate']);
      await runAndWait(page, 1);
      const table = await readSummaryTable(page);
      assert.equal(table.consolidate.jobs_completed, 3);
      // The file's content is never turned into markup.
      const evil = join(dir, '<img src=x onerror=alert(1)>.csv');
      await writeFile(evil, 'nothing,like,a,header\n');
      await page.getByTestId('trace-input').setInputFiles(evil);
      await problem.filter({ hasText: '<img src=x' }).waitFor();
      assert.equal(await page.locator('img').count(), 0);
      checkClean(record, { origin, prefix: '/' });
    } finally {
      await rm(dir, { recursive: true, force: true });
      await opened.context.close();
    }
  });

  test('a share link restores the scenario; a damaged one says so', { timeout: 60_000 }, async () => {
    const first = await open();
    let url;
    try {
      const { page } = first;
      await page.locator('#topology select').selectOption('n32g4');
      const gen = page.locator('.generator input');
      await gen.nth(0).fill('77');
      await gen.nth(0).dispatchEvent('change');
      await choosePolicies(page, ['consolidate']);
      await page.getByTestId('custom-policy').fill('dally:timers=120/60');
      await page.getByTestId('custom-policy').press('Enter');
      await page.getByTestId('seed-input').fill('9');
      await page.getByTestId('seed-input').dispatchEvent('change');
      await page.getByTestId('share-button').click();
      url = await page.getByTestId('share-link').inputValue();
      assert.match(url, /#s=1\./);
    } finally {
      await first.context.close();
    }
    const opened = await open(url.slice(origin.length));
    const { page, record } = opened;
    try {
      assert.equal(await page.locator('#topology select').inputValue(), 'n32g4');
      assert.equal(await page.locator('.generator input').nth(0).inputValue(), '77');
      assert.equal(await page.getByTestId('seed-input').inputValue(), '9');
      const checked = await page.getByTestId('policy-select').locator('input:checked').evaluateAll((els) => els.map((e) => e.value));
      assert.deepEqual(checked, ['consolidate', 'dally:timers=120/60']);
      assert.match(await page.getByTestId('link-notice').textContent(), /Restored the scenario from the link/);
      assert.equal(await page.getByTestId('topology-view').locator('[data-gpu]').count(), 128);
      checkClean(record, { origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
    const damaged = await open(url.slice(origin.length, -6) + 'AAAAAA');
    try {
      assert.match(await damaged.page.getByTestId('error-banner').textContent(), /share link could not be read: .*checksum does not match/);
      assert.equal(await damaged.page.locator('#topology select').inputValue(), 'parametric', 'the defaults (the first run\'s parametric cluster) stand in');
    } finally {
      await damaged.context.close();
    }
  });

  test('cancel stops a long run and the page stays usable; crashes are shown, not fatal', { timeout: 90_000 }, async () => {
    const opened = await open();
    const { page, record } = opened;
    try {
      await page.locator('#topology select').selectOption('flat-2048');
      const gen = page.locator('.generator input');
      await gen.nth(0).fill('200000');
      await gen.nth(0).dispatchEvent('change');
      await gen.nth(1).fill('2');
      await gen.nth(1).dispatchEvent('change');
      await choosePolicies(page, ['dally']);
      await page.getByTestId('run-button').click();
      const cancel = page.getByTestId('cancel-button');
      await page.waitForFunction(() => Number(document.querySelector('[data-testid=progress]').value) > 0, null, { timeout: 30_000 });
      // The page keeps painting while the worker runs: a click still toggles a checkbox.
      const box = page.getByTestId('policy-select').locator('input[value=fifo]');
      await box.click();
      assert.ok(await box.isChecked());
      await box.click();
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => document.querySelector('[data-testid=cancel-button]').disabled, null, { timeout: 10_000 });
      assert.ok(await cancel.isDisabled());
      assert.ok(await page.getByTestId('run-button').isEnabled());
      assert.match(await page.getByTestId('notice-banner').textContent(), /Run cancelled/);

      // The worker reports its own panics as messages (a self-test request).
      const reply = await page.evaluate(() => new Promise((resolve) => {
        const w = new Worker('./worker_loader.js');
        // Messages are structured values (src/protocol.rs), not text.
        w.onmessage = (e) => {
          const m = e.data;
          if (m === 'Ready') w.postMessage('Crash');
          else if (m.Panicked) { w.terminate(); resolve(m.Panicked.message); }
        };
      }));
      assert.match(reply, /crash requested by the page/);
      // The deliberate crash may log its panic and the trap that follows it.
      record.consoleErrors = record.consoleErrors.filter((e) => !/crash requested by the page|unreachable/.test(e));

      // A panic on the page becomes a banner with a way out, drawn without the wasm module.
      await page.evaluate(() => dispatchEvent(new CustomEvent('proxima-panic', { detail: 'test <b>panic</b>' })));
      const crash = page.getByTestId('panic-banner');
      await crash.waitFor();
      assert.match(await crash.textContent(), /test <b>panic<\/b>/);
      assert.ok(await crash.getByRole('button', { name: 'Reload' }).isVisible());
      checkClean(record, { origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });

  test('a large preset gets a workload sized to it; a burst or a low load is warned of; the headline does not advise oversubscribing what is', { timeout: 180_000 }, async () => {
    const opened = await open();
    const { page, record } = opened;
    try {
      const jobs = page.locator('.generator input').nth(0);
      const warnings = page.getByTestId('generator-warning');
      // The first cluster (32 GPUs) keeps the first run's 800 jobs, with no warning.
      await page.getByTestId('trace-job-count').filter({ hasText: /^800$/ }).waitFor();
      assert.equal(await warnings.count(), 0);
      // 2,048 GPUs: 10,000 jobs, submitted over hours rather than all at once.
      await page.locator('#topology select').selectOption('oversub-2048');
      assert.equal(await jobs.inputValue(), '10000');
      await page.getByTestId('trace-job-count').filter({ hasText: /^10000$/ }).waitFor();
      assert.match(await page.getByTestId('trace-preview').textContent(), /submitted over \d+(\.\d+)? h/);
      assert.equal(await warnings.count(), 0);
      // The default run there (LLM-era jobs, the preset's workload); if the policies come out
      // equal, the headline says what to change without asking for the 4:1 uplinks to be
      // oversubscribed.
      await choosePolicies(page, ['fifo', 'consolidate', 'dally']);
      const started = Date.now();
      await runAndWait(page, 3, 150_000);
      console.log(`# oversub-2048, 10,000 jobs, fifo + consolidate + dally in the page: ${Date.now() - started} ms from click to results`);
      const headline = page.getByTestId('headline');
      const text = await headline.textContent();
      if ((await headline.getAttribute('data-equal')) === 'true') {
        assert.match(text, /already 4:1 oversubscribed|hardly waited/, text);
        assert.doesNotMatch(text, /oversubscribe the uplinks/, text);
      }
      // 1,000 jobs on 2,048 GPUs all arrive at once: warned of, with a count that suits.
      await jobs.fill('1000');
      await page.getByTestId('trace-job-count').filter({ hasText: /^1000$/ }).waitFor();
      const burst = page.locator('[data-testid=generator-warning][data-warning=burst]');
      await burst.waitFor();
      assert.match(await burst.textContent(), /^All 1000 jobs arrive at once: .* About 10,000 jobs suit this cluster\.$/);
      // A low load: warned of too.
      const load = page.locator('.generator input').nth(1);
      await load.fill('0.3');
      await page.locator('[data-testid=generator-warning][data-warning=low-load]').waitFor();
      // A preset's choice sets its workload: the general default on a small preset, the
      // preset's own on a large one (tests/e2e/presets.test.mjs runs those), replacing a
      // count typed by hand.
      await page.locator('#topology select').selectOption('teaching');
      assert.equal(await jobs.inputValue(), '1000');
      await jobs.fill('3000');
      await page.locator('#topology select').selectOption('flat-2048');
      assert.equal(await jobs.inputValue(), '10000');
      checkClean(record, { origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });

  test('the keyboard runs, and moves between panels', { timeout: 60_000 }, async () => {
    const opened = await open();
    const { page, record } = opened;
    try {
      await choosePolicies(page, ['consolidate']);
      await page.locator('body').click({ position: { x: 1, y: 1 } });
      await page.keyboard.press('3');
      assert.equal(await page.evaluate(() => document.activeElement.id), 'results-panel');
      await page.keyboard.press('Control+Enter');
      await page.getByTestId('summary-table').locator('tbody tr').first().waitFor({ timeout: 30_000 });
      // A finished run moves the focus to the player's Play button; then the keys move it on.
      await page.getByTestId('run-status').filter({ hasText: /^Done: 1 policy in / }).waitFor({ timeout: 30_000 });
      await eventually(() => page.evaluate(() => document.activeElement.dataset.testid), 'play-button');
      await page.keyboard.press('1');
      assert.equal(await page.evaluate(() => document.activeElement.id), 'scenario-panel');
      checkClean(record, { origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });
});
