// End-to-end tests of tenants in the page (dist/, from `trunk build --release`):
// - a trace file in Proxima's CSV format with a `tenant` column (docs/FORMATS.md) runs in
//   the page and through the CLI, and the per-tenant table, the fairness chart and Jain's
//   index row show exactly the CLI's summary.json figures;
// - the generator's tenants field makes a multi-tenant synthetic trace (bad values refused
//   with the CLI's message, the field kept across a reload), the page's run is the CLI's
//   run of `synthetic:...,tenants=3`, and the playback colours jobs by tenant with a
//   legend in the per-tenant table's colours; with one tenant that choice is disabled.
//
// Run: PROXIMA_CLI=target/debug/proxima node --test tests/e2e/tenants.test.mjs
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  checkClean, choosePolicies, cliBinary, exported, openPage, readSummaryTable, runAndWait, useSite, waitForApp,
} from './harness.mjs';

const site = useSite({ tempPrefix: 'proxima-tenants-' });

const TENANTS = ['alpha', 'beta', 'gamma'];
const POLICIES = ['fifo', 'dally'];

/**
 * 90 jobs over an hour and a half on 16 GPUs, enough to queue: `alpha` sends the most and
 * the largest jobs, so that the tenants' figures differ.
 */
function traceCsv() {
  const models = ['resnet50', 'vgg16', 'bert'];
  const rows = ['id,submit_s,gpus,model,duration_s,tenant'];
  for (let i = 0; i < 90; i++) {
    const tenant = i % 5 < 3 ? 'alpha' : TENANTS[1 + (i % 2)];
    const gpus = tenant === 'alpha' ? [2, 4, 8][i % 3] : [1, 2][i % 2];
    rows.push(`j${i},${i * 60},${gpus},${models[i % 3]},${600 + ((i * 397) % 2400)},${tenant}`);
  }
  return `${rows.join('\n')}\n`;
}

/** The per-tenant table as {tenant: {metric: data-value or null}}, with the run it shows. */
async function readTenantTable(page) {
  return page.getByTestId('tenant-table').evaluate((table) => {
    const rows = {};
    for (const td of table.querySelectorAll('td[data-tenant][data-metric]')) {
      rows[td.dataset.tenant] ??= {};
      rows[td.dataset.tenant][td.dataset.metric] = td.dataset.value ?? null;
    }
    return { policy: table.dataset.policy, rows };
  });
}

describe('tenants', () => {
  test('the per-tenant table, the fairness chart and Jain\'s index equal the CLI\'s summary.json', { timeout: 240_000 }, async () => {
    const trace = join(site.dir, 'tenants.csv');
    await writeFile(trace, traceCsv());
    const { origin } = site;
    const opened = await openPage(site.browser, `${origin}/`, origin);
    const { page, record } = opened;
    const out = join(site.dir, 'cli');
    try {
      await waitForApp(opened);
      await page.locator('#topology select').selectOption('teaching');
      await page.getByTestId('trace-input').setInputFiles(trace);
      await page.getByTestId('trace-job-count').filter({ hasText: '90' }).waitFor();
      await choosePolicies(page, POLICIES);
      const started = Date.now();
      await runAndWait(page, POLICIES.length, 120_000);
      console.log(`# 90 jobs, 3 tenants, fifo + dally with isolated runs in the page: ${Date.now() - started} ms from click to results`);

      const t0 = Date.now();
      execFileSync(resolve(cliBinary()), ['compare', '--topology', 'teaching', '--trace', 'tenants.csv', '--seed', '1',
        ...POLICIES.flatMap((p) => ['--policy', p]), '--out', out], { cwd: site.dir, stdio: ['ignore', 'ignore', 'pipe'] });
      console.log(`# the same with ${cliBinary()}: ${Date.now() - t0} ms`);

      const summaryTable = await readSummaryTable(page);
      const legend = await page.getByTestId('tenant-legend').locator('li').evaluateAll((lis) => lis.map((li) => [li.dataset.tenant, li.dataset.colour]));
      assert.deepEqual(legend.map((l) => l[0]), TENANTS);
      assert.equal(new Set(legend.map((l) => l[1])).size, 3, 'three colours');
      const chart = page.getByTestId('fairness-chart');
      assert.equal(await chart.getAttribute('data-measure'), 'rho', 'the worker made the isolated runs');

      for (const policy of POLICIES) {
        const summary = JSON.parse(await readFile(join(out, policy, 'summary.json'), 'utf8'));
        assert.equal(await exported(page, `${policy}/summary.json`), await readFile(join(out, policy, 'summary.json'), 'utf8'),
          `${policy}/summary.json (with ρ) differs from the CLI's`);
        assert.equal(summaryTable[policy].jain_slowdown, summary.jain_slowdown, `${policy} Jain's index`);
        assert.deepEqual(summary.tenants.map((t) => t.name), TENANTS);

        if ((await page.getByTestId('tenant-table').getAttribute('data-policy')) !== policy) {
          await page.getByTestId('tenant-policy-select').selectOption(policy);
          await page.locator(`[data-testid=tenant-table][data-policy="${policy}"]`).waitFor();
        }
        const shown = await readTenantTable(page);
        assert.equal(shown.policy, policy);
        assert.deepEqual(Object.keys(shown.rows), TENANTS);
        let compared = 0;
        for (const tenant of summary.tenants) {
          const row = shown.rows[tenant.name];
          for (const [metric, value] of Object.entries(row)) {
            if (value === null) {
              assert.equal(tenant[metric], undefined, `${policy} ${tenant.name} ${metric}: summary.json has it, the page does not`);
            } else {
              assert.equal(Number(value), tenant[metric], `${policy} ${tenant.name} ${metric}`);
              compared++;
            }
          }
          assert.ok(tenant.rho > 0, `${policy} ${tenant.name} has ρ`);
          const bar = chart.locator(`rect[data-policy="${policy}"][data-tenant="${tenant.name}"]`);
          assert.equal(Number(await bar.getAttribute('data-value')), tenant.rho, `${policy} ${tenant.name} chart bar`);
        }
        assert.equal(compared, 3 * 9, `${policy}: every figure of every tenant compared`);
      }
      checkClean(record, { origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });

  test('the generator\'s tenants field, and playback coloured by tenant', { timeout: 240_000 }, async () => {
    const { origin } = site;
    const opened = await openPage(site.browser, `${origin}/`, origin);
    const { page, record } = opened;
    const spec = 'synthetic:jobs=150,load=1.2,seed=1';
    try {
      await waitForApp(opened);
      await page.locator('#topology select').selectOption('teaching');
      const gen = page.locator('.generator input');
      for (const [i, v] of [[0, 150], [1, 1.2], [2, 1]]) await gen.nth(i).fill(String(v));
      const tenants = page.getByTestId('generator-tenants');

      // A bad value: refused with the message the CLI prints for the same spec.
      await tenants.fill('16');
      const error = page.locator('.generator .field-error');
      await error.waitFor();
      const message = await error.textContent();
      const cli = spawnSync(resolve(cliBinary()), ['run', '--topology', 'teaching', '--trace', `${spec},tenants=16`, '--policy', 'fifo', '--out', join(site.dir, 'bad')], { encoding: 'utf8' });
      assert.notEqual(cli.status, 0);
      assert.equal(message, 'tenants: expected a whole number of tenants from 1 to 15, got \'16\'');
      assert.ok(cli.stderr.includes(message), `the CLI says: ${cli.stderr}`);

      await tenants.fill('3');
      await page.getByTestId('trace-tenant-count').filter({ hasText: '3' }).waitFor();
      assert.equal(await error.count(), 0);
      await choosePolicies(page, POLICIES);
      await runAndWait(page, POLICIES.length, 120_000);

      // The page ran the CLI's scenario: the watched policy's event-log hash is the CLI's.
      const watched = await page.getByTestId('playback-policy').locator('option:checked').textContent();
      const out = execFileSync(resolve(cliBinary()), ['run', '--topology', 'teaching', '--trace', `${spec},tenants=3`, '--seed', '1',
        '--policy', watched, '--events', join(site.dir, 'events.jsonl'), '--out', join(site.dir, 'synthetic')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      assert.equal(await page.getByTestId('event-hash').getAttribute('data-event-hash'), out.match(/event-log hash ([0-9a-f]{16})/)[1]);
      const tableColours = Object.fromEntries(await page.getByTestId('tenant-legend').locator('li')
        .evaluateAll((lis) => lis.map((li) => [li.dataset.tenant, li.dataset.colour])));
      assert.deepEqual(Object.keys(tableColours), ['t1', 't2', 't3']);

      // Playback: by job at first; by tenant, a legend in the table's colours.
      const colourBy = page.getByTestId('colour-by');
      assert.equal(await colourBy.isDisabled(), false);
      assert.equal(await colourBy.inputValue(), 'job');
      assert.equal(await page.getByTestId('playback-tenant-legend').count(), 0);
      const slider = page.getByTestId('time-slider');
      await slider.fill(String(Number(await slider.getAttribute('max')) * 0.3));
      const rgb = Object.values(tableColours).map((hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)));
      const tenantPixels = () => page.getByTestId('cluster-canvas').first().evaluate((canvas, colours) => {
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        const counts = colours.map(() => 0);
        for (let p = 0; p < data.length; p += 4) {
          colours.forEach((c, k) => { if (data[p] === c[0] && data[p + 1] === c[1] && data[p + 2] === c[2]) counts[k]++; });
        }
        return counts;
      }, rgb);
      const byJob = await tenantPixels();
      await colourBy.selectOption('tenant');
      const legend = page.getByTestId('playback-tenant-legend').locator('li');
      await legend.first().waitFor();
      const shown = await legend.evaluateAll((lis) => lis.map((li) => [li.dataset.tenant, li.dataset.colour, li.textContent]));
      assert.deepEqual(shown.map((l) => [l[0], l[1]]), Object.entries(tableColours), 'the playback legend has the table\'s colours');
      const jobs = shown.map((l) => Number(l[2].match(/\((\d+) jobs?\)/)[1]));
      assert.equal(jobs.reduce((a, b) => a + b, 0), 150, `jobs per tenant: ${jobs}`);
      // The canvas now paints busy GPUs in the tenants' colours.
      await page.waitForTimeout(200);
      const byTenant = await tenantPixels();
      console.log(`# pixels of the three tenant colours on the canvas: by job ${byJob}, by tenant ${byTenant}`);
      const sum = (a) => a.reduce((x, y) => x + y, 0);
      assert.ok(sum(byTenant) > 1000 && sum(byTenant) > 10 * sum(byJob), `by job ${byJob}, by tenant ${byTenant}`);

      // The field is kept with the scenario (local storage), across a reload.
      await page.reload();
      await waitForApp(opened);
      assert.equal(await page.getByTestId('generator-tenants').inputValue(), '3');

      // One tenant: colouring by tenant is offered but disabled, with the reason.
      await page.getByTestId('generator-tenants').fill('');
      await page.getByTestId('trace-status').waitFor({ state: 'detached' });
      await choosePolicies(page, ['fifo']);
      await runAndWait(page, 1, 120_000);
      await page.getByTestId('player').waitFor();
      assert.equal(await page.getByTestId('colour-by').isDisabled(), true);
      assert.match(await page.getByTestId('colour-by').locator('xpath=..').getAttribute('title'), /one tenant \(default\)/);
      // ...and says so in words beside it, not only in a tooltip.
      assert.match(await page.getByTestId('colour-by-why').textContent(), /one tenant: set tenants in the generator/);
      checkClean(record, { origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });
});
