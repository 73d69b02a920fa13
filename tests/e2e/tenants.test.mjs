// End-to-end test of the tenants section (dist/, from `trunk build --release`): a trace
// with three tenants runs in the page and through the CLI, and the per-tenant table, the
// fairness chart and Jain's index row show exactly the CLI's summary.json figures.
//
// The app's synthetic generator has no tenant field, so the trace is a file in Proxima's
// CSV format with a `tenant` column (docs/FORMATS.md), written here and given to both.
//
// Run: PROXIMA_CLI=target/debug/proxima node --test tests/e2e/tenants.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { serveDirectory } from './static-server.mjs';
import {
  checkClean, choosePolicies, cliBinary, dist, exported, launchBrowser, openPage, readSummaryTable, runAndWait, waitForApp,
} from './harness.mjs';

let browser;
let server;
let dir;

before(async () => {
  browser = await launchBrowser();
  server = await serveDirectory(dist);
  dir = await mkdtemp(join(tmpdir(), 'proxima-tenants-'));
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

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
    const trace = join(dir, 'tenants.csv');
    await writeFile(trace, traceCsv());
    const { origin } = server;
    const opened = await openPage(browser, `${origin}/`, origin);
    const { page, record } = opened;
    const out = join(dir, 'cli');
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
        ...POLICIES.flatMap((p) => ['--policy', p]), '--out', out], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
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
});
