// End-to-end tests of the results panel in the built site (dist/), at 1024×768: the
// feedback after a run (status, focus, headline), the summary table for people (fits the
// width, formatted cells with their raw numbers, ratios to a chosen baseline), chart ticks
// at round values, "Download all" (a zip of every file), Run disabled while the scenario
// has a problem, and the standard policy list.
//
// Run: node --test tests/e2e/results.test.mjs   (scripts/test.sh builds dist/ first)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { checkClean, choosePolicies, eventually, exported, openApp, readSummaryTable, runAndWait, useSite } from './harness.mjs';

const site = useSite();

/** The page at 1024×768, started. */
const LAPTOP = { viewport: { width: 1024, height: 768 } };

/** A share code (crates/proxima-core/src/share.rs): version, '.', base64url of the JSON and its FNV-1a 32 checksum. */
function shareCode(wire) {
  const json = Buffer.from(JSON.stringify(wire), 'utf8');
  let h = 0x811c9dc5;
  for (const b of json) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(h);
  return `1.${Buffer.concat([json, sum]).toString('base64url')}`;
}

/** The metrics written in a unit of time or of GPU-time (summary.json keys), and the ones where lower is better. */
const DURATIONS = ['avg_jct_s', 'p50_jct_s', 'p95_jct_s', 'p99_jct_s', 'makespan_s', 'avg_queue_s', 'comm_overhead_s'];
const GPU_TIMES = ['comm_overhead_gpu_s'];
const LOWER_IS_BETTER = [...DURATIONS, ...GPU_TIMES, 'preemptions', 'jobs_rejected', 'jobs_unfinished'];

/** Significant digits of a number as written ("10.1" has 3, "118,000" has 3, "0.0163" has 3). */
function significant(text) {
  const digits = text.replace(/[,.-]/g, '').replace(/^0+/, '');
  return digits.replace(/0+$/, '').length || 1;
}

describe('results for people', () => {
  test('the default run: status, focus, headline, a table that fits 1,024 px with formatted cells and raw values, round ticks, Download all', { timeout: 180_000 }, async () => {
    const opened = await openApp(site, { context: LAPTOP });
    const { page, record } = opened;
    try {
      const boxes = await page.getByTestId('policy-select').locator('input[type=checkbox]').evaluateAll((b) => b.map((x) => x.value));
      for (const p of ['tiresias', 'srtf', 'strict', 'slurm', 'random', 'consolidate:migrate=on', 'dally:order=las']) assert.ok(boxes.includes(p), `${p} can be chosen`);

      await runAndWait(page, 3);
      // Feedback: how long it took, measured, and the results brought into view with the
      // focus on the player's Play button (Space plays at once).
      const status = await page.getByTestId('run-status').textContent();
      assert.match(status, /^Done: 3 policies in \d+(\.\d)? (s|min)$/, status);
      assert.equal(await page.getByTestId('results-status').textContent(), `${status}.`);
      console.log(`# default run: ${status}`);
      await page.waitForFunction(() => document.activeElement?.dataset.testid === 'play-button');
      const top = await page.locator('#results-panel').evaluate((el) => el.getBoundingClientRect().top);
      assert.ok(top >= -1 && top < 100, `the results are at the top of the window (top ${top})`);

      // The headline names dally against consolidate (the default baseline).
      const headline = page.getByTestId('headline');
      assert.ok(await headline.isVisible());
      assert.equal(await headline.getAttribute('data-baseline'), 'consolidate');
      const sentence = await headline.locator('.sentence').textContent();
      console.log(`# headline: ${sentence}`);
      assert.match(sentence, /dally/);
      assert.match(sentence, /consolidate/);
      const table = await readSummaryTable(page);
      assert.deepEqual(Object.keys(table), ['fifo', 'consolidate', 'dally']);
      const ratio = (p) => table[p].avg_jct_s / table.consolidate.avg_jct_s;
      const within = ['fifo', 'dally'].every((p) => Math.abs(ratio(p) - 1) <= 0.02 * Math.max(1, ratio(p)));
      if (within) {
        assert.equal(await headline.getAttribute('data-equal'), 'true');
        assert.match(sentence, /come out equal on mean JCT.*oversubscription.*load.*fabric=tcp/);
      } else {
        // The headline is about dally, the page's subject, in words and absolute figures,
        // with no ratio (a near-zero baseline once made one read 66,800,000x).
        assert.equal(await headline.getAttribute('data-subject'), 'dally');
        const pct = Math.round(100 * Math.abs(1 - ratio('dally')));
        const how = ratio('dally') < 1 ? `finished jobs ${pct}% sooner than consolidate` : `took ${pct}% longer than consolidate`;
        assert.ok(sentence.startsWith(`dally ${how}`), sentence);
        assert.match(sentence, / against .* mean JCT; communication overhead .* against /);
        assert.ok(!sentence.includes('×'), sentence);
      }

      // The table fits 1,024 px: no sideways scroll in the table, the panel or the page.
      const widths = await page.evaluate(() => {
        const t = document.querySelector('[data-testid=summary-table]');
        const panel = document.getElementById('results-panel');
        return {
          table: [t.scrollWidth, t.clientWidth, t.getBoundingClientRect().right],
          panel: [panel.scrollWidth, panel.clientWidth, panel.getBoundingClientRect().right],
          page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
        };
      });
      console.log(`# widths at 1024×768: ${JSON.stringify(widths)}`);
      assert.ok(widths.table[0] <= widths.table[1], `the table scrolls sideways: ${widths.table}`);
      assert.ok(widths.table[2] <= widths.panel[2], `the table sticks out of its panel: ${widths.table} ${widths.panel}`);
      assert.ok(widths.panel[0] <= widths.panel[1], `the panel scrolls sideways: ${widths.panel}`);
      assert.ok(widths.page[0] <= widths.page[1], `the page scrolls sideways: ${widths.page}`);

      // Every cell: raw value equal to summary.json's, text for people, ratio and colour against the baseline.
      const cells = await page.getByTestId('summary-table').locator('td[data-metric]').evaluateAll((tds) =>
        tds.map((td) => ({ ...td.dataset, text: td.querySelector('.value').textContent, against: td.querySelector('.ratio').textContent, cls: td.className })),
      );
      assert.equal(cells.length, 14 * 3);
      // Communication overhead in both units, each row heading naming its unit.
      const headings = await page.getByTestId('summary-table').locator('tr[data-metric^=comm_overhead] th').allTextContents();
      assert.ok(headings[0].includes('(job-s)') && headings[1].includes('(GPU-s)'), `overhead rows: ${headings}`);
      for (const policy of ['fifo', 'consolidate', 'dally']) {
        const summary = JSON.parse(await exported(page, `${policy}/summary.json`));
        for (const c of cells.filter((c) => c.policy === policy)) {
          assert.ok(c.metric in summary, `${c.metric} is a summary.json key`);
          assert.equal(Number(c.value), summary[c.metric], `${policy} ${c.metric}: data-value`);
          if (DURATIONS.includes(c.metric)) {
            assert.match(c.text, /^(-?[\d,.]+|≈0) (s|min|h|d)$/, `${policy} ${c.metric}: ${c.text}`);
            assert.ok(significant(c.text.split(' ')[0]) <= 3, `${policy} ${c.metric}: ${c.text} has more than three significant figures`);
          } else if (GPU_TIMES.includes(c.metric)) {
            assert.match(c.text, /^(-?[\d,.]+|≈0) GPU-(s|min|h|d)$/, `${policy} ${c.metric}: ${c.text}`);
            assert.ok(significant(c.text.split(' ')[0]) <= 3, `${policy} ${c.metric}: ${c.text} has more than three significant figures`);
          } else if (c.metric === 'jain_slowdown') {
            assert.ok(significant(c.text) <= 3 && Math.abs(Number(c.text) - summary.jain_slowdown) <= 0.005, `${policy} Jain's index: ${c.text}`);
          } else if (c.metric === 'avg_gpu_util') {
            assert.match(c.text, /^[\d.]+%$/, c.text);
            assert.ok(Math.abs(parseFloat(c.text) - summary.avg_gpu_util * 100) <= 0.1, `${c.text} against ${summary.avg_gpu_util}`);
          } else {
            assert.equal(c.text.replace(/,/g, ''), String(summary[c.metric]), `${policy} ${c.metric}`);
          }
          if (policy === 'consolidate') {
            assert.equal(c.against, 'baseline');
            continue;
          }
          const base = table.consolidate[c.metric];
          const v = summary[c.metric];
          const r = v / base;
          const same = Math.abs(v - base) <= 0.02 * Math.max(Math.abs(v), Math.abs(base));
          // The arrow points the way the value moved, whatever the colour says of it.
          const arrow = same ? '' : v > base ? '▲ ' : '▼ ';
          if (base !== 0 && r >= 0.1 && r < 10) assert.equal(c.against.replace(/ \*$/, ''), `${arrow}${r.toFixed(2)}×`, `${policy} ${c.metric}`);
          assert.match(c.against, /×( \*)?$|^same$|^vs 0$/, c.against);
          const expected = c.metric === 'avg_gpu_util' || same ? 'same' : (v < base) === LOWER_IS_BETTER.includes(c.metric) ? 'better' : 'worse';
          assert.equal(c.verdict, expected, `${policy} ${c.metric}: ${v} against ${base}`);
          assert.equal(c.cls, expected);
        }
      }

      // Another baseline: the table and the headline follow it.
      await page.getByTestId('baseline-select').selectOption('fifo');
      await eventually(() => page.getByTestId('summary-table').getAttribute('data-baseline'), 'fifo');
      await eventually(() => headline.getAttribute('data-baseline'), 'fifo');
      await eventually(() => page.locator('td[data-metric=avg_jct_s][data-policy=fifo] .ratio').textContent(), 'baseline');
      await page.getByTestId('baseline-select').selectOption('consolidate');

      // Chart ticks at round values: 1, 2 or 5 times a power of ten in one unit, or the log axis's round durations.
      for (const chart of ['jct-cdf', 'utilisation-chart', 'queue-chart']) {
        const ticks = await page.getByTestId(chart).locator('[data-tick]').evaluateAll((g) => g.map((t) => t.dataset.tick));
        assert.ok(ticks.length >= 4, `${chart}: ${ticks}`);
        for (const t of ticks) assert.match(t, /^\d+(\.\d+)?( (s|min|h|d)|%)?$/, `${chart}: tick ${t}`);
        for (const t of ticks) assert.ok(significant(t.replace(/[^\d.]/g, '')) <= 2, `${chart}: tick ${t} is not round`);
        console.log(`# ${chart} ticks: ${ticks.join(', ')}`);
      }
      // Overhead bars (in all in job-s, in all in GPU-s, per completed job): each group's longest bar spans the chart.
      const bars = await page.getByTestId('overhead-chart').locator('rect.fill').evaluateAll((r) => r.map((x) => Number(x.getAttribute('width'))));
      assert.equal(bars.length, 9);
      for (const group of [bars.slice(0, 3), bars.slice(3, 6), bars.slice(6)]) assert.ok(Math.max(...group) >= 300, `overhead bars: ${bars}`);

      // Download all: a zip of every file, stored, named as `proxima compare --out results` writes them.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-all').click()]);
      assert.equal(download.suggestedFilename(), 'proxima-results.zip');
      const zip = await readFile(await download.path());
      assert.equal(zip.subarray(0, 2).toString('latin1'), 'PK');
      const names = ['results/compare.json', 'results/scenario.json'];
      for (const p of ['fifo', 'consolidate', 'dally']) for (const f of ['summary.json', 'jobs.csv', 'timeseries.csv', 'event-hash.json']) names.push(`results/${p}/${f}`);
      for (const name of names) assert.ok(zip.includes(Buffer.from(name)), `the zip lists ${name}`);
      // Stored entries: each file's bytes are in the zip as the single download gives them.
      assert.ok(zip.includes(Buffer.from(await exported(page, 'dally/summary.json'))), 'dally/summary.json is in the zip byte for byte');
      assert.ok(zip.includes(Buffer.from(await exported(page, 'compare.json'))), 'compare.json is in the zip byte for byte');
      console.log(`# Download all: ${zip.length} bytes, ${names.length} files`);
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });

  test('a congested cluster: the headline says by how much dally beats consolidate', { timeout: 120_000 }, async () => {
    const code = shareCode({ tf: 'racks=2,servers=4,gpus=4,oversub=32,fabric=tcp', g: [1000, 0.9, 1], p: ['consolidate', 'dally'], s: 1 });
    const opened = await openApp(site, { path: `/#s=${code}`, context: LAPTOP });
    const { page, record } = opened;
    try {
      await runAndWait(page, 2);
      const table = await readSummaryTable(page);
      const r = table.dally.avg_jct_s / table.consolidate.avg_jct_s;
      const sentence = await page.getByTestId('headline').locator('.sentence').textContent();
      console.log(`# congested cluster: ${sentence} (${await page.getByTestId('run-status').textContent()})`);
      assert.ok(r < 0.98, `dally should beat consolidate here: ${r}`);
      assert.equal(await page.getByTestId('headline').getAttribute('data-subject'), 'dally');
      const n = table.dally.preemptions;
      // In words and absolute figures: by how much sooner, both means, both overheads, and
      // no ratio anywhere.
      const pct = Math.round(100 * (1 - r));
      assert.ok(sentence.startsWith(`dally finished jobs ${pct}% sooner than consolidate: `), sentence);
      assert.match(sentence, / against .* mean JCT; communication overhead .* against .*placements across racks; /);
      assert.ok(sentence.endsWith(`; ${n} preemption${n === 1 ? '' : 's'}.`), sentence);
      assert.ok(!sentence.includes('×'), sentence);
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });

  test('Run is disabled, with the reason shown, while the scenario has a problem', { timeout: 60_000 }, async () => {
    const opened = await openApp(site, { context: LAPTOP });
    const { page, record } = opened;
    try {
      const run = page.getByTestId('run-button');
      assert.ok(await run.isEnabled());
      assert.equal(await page.getByTestId('run-blocked').count(), 0);
      await choosePolicies(page, []);
      assert.ok(await run.isDisabled(), 'no policy: Run is disabled');
      assert.match(await page.getByTestId('run-blocked').textContent(), /choose at least one policy/);
      assert.equal(await run.getAttribute('aria-describedby'), 'run-blocked');
      await choosePolicies(page, ['consolidate']);
      const jobs = page.locator('.generator input').nth(0);
      await jobs.fill('0');
      await jobs.dispatchEvent('change');
      await page.getByTestId('run-blocked').waitFor();
      assert.ok(await run.isDisabled(), 'a bad trace field: Run is disabled');
      assert.match(await page.getByTestId('run-blocked').textContent(), /trace/);
      await jobs.fill('50');
      await jobs.dispatchEvent('change');
      await page.getByTestId('run-blocked').waitFor({ state: 'detached' });
      await runAndWait(page, 1);
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });
});
