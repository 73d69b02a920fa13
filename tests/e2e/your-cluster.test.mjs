// End-to-end test of "Your cluster" (issue 34, item 4) on dist/ in headless Chromium: an
// operator drops their nodes file and their job history, sees both summarised (GPUs,
// servers, tiers; jobs, tenants, span), runs the what-if of their scheduler (guessed from
// the nodes file) against its variants and Dally in the worker, and exports the report as
// self-contained HTML and Markdown. A bad history names its file, line and field, and the
// run button stays disabled with the reason.
//
// Run: node --test tests/e2e/your-cluster.test.mjs   (after `trunk build --release`)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkClean, eventually, openApp, repoRoot, useSite } from './harness.mjs';

const site = useSite();

/** Kueue's documented TAS cluster: 8 workers of 8 GPUs, 4 racks in 2 blocks. */
const NODES = join(repoRoot, 'tests/fixtures/kueue/cluster.yaml');

/** A history of 12 jobs from 3 tenants over 55 minutes, 1 to 16 GPUs each. */
const HISTORY = [
  'id,submit_s,gpus,model,duration_s,tenant',
  'j1,0,8,resnet50,1800,vision',
  'j2,60,16,bert,3600,nlp',
  'j3,120,1,resnet50,600,vision',
  'j4,300,4,vgg16,1200,vision',
  'j5,420,8,bert,2400,nlp',
  'j6,600,2,resnet50,900,speech',
  'j7,900,16,bert-large,3000,nlp',
  'j8,1200,4,resnet50,1500,speech',
  'j9,1800,8,vgg16,1800,vision',
  'j10,2400,1,bert,300,speech',
  'j11,3000,16,bert-large,2400,nlp',
  'j12,3300,2,resnet50,600,vision',
].join('\n') + '\n';

/** The page opened, and its "Your cluster" section opened from the menu. */
async function openYourCluster() {
  const opened = await openApp(site);
  const section = opened.page.getByTestId('your-cluster');
  await opened.page.getByRole('link', { name: 'Your cluster' }).click();
  await section.waitFor();
  return { ...opened, section };
}

async function choose(section, which, name, text) {
  await section.getByTestId(`${which}-input`).setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(text) });
}

describe('your cluster', () => {
  test('nodes and history summarised, the what-if run in the worker, its report exported offline', { timeout: 120_000 }, async () => {
    const { page, record, context, section } = await openYourCluster();
    try {
      const run = section.getByTestId('what-if-run');
      assert.equal(await run.isDisabled(), true);
      assert.match(await section.getByTestId('what-if-blocked').textContent(), /choose a nodes file; choose a job history/);

      await choose(section, 'nodes', 'cluster.yaml', await readFile(NODES, 'utf8'));
      const nodes = section.getByTestId('nodes-summary');
      await nodes.waitFor();
      assert.equal(await nodes.getByTestId('nodes-gpus-total').textContent(), '64');
      assert.equal(await nodes.getByTestId('nodes-servers').textContent(), '8');
      // Racks, blocks and the whole cluster above the servers.
      assert.equal(await nodes.getByTestId('nodes-tiers').getAttribute('data-tiers'), '3');
      assert.match(await nodes.getByTestId('nodes-tiers').textContent(), /^4 × .+, 2 × .+, 1 × .+$/);
      // A Kueue file: its scheduler is guessed.
      assert.equal(await section.getByTestId('scheduler-kueue-tas').isChecked(), true);

      await choose(section, 'history', 'jobs.csv', HISTORY);
      const history = section.getByTestId('history-summary');
      await history.waitFor();
      assert.equal(await history.getByTestId('history-jobs').textContent(), '12');
      assert.equal(await history.getByTestId('history-tenants').textContent(), '3');
      assert.equal(await history.getByTestId('history-span').getAttribute('data-seconds'), '3300');
      const gpus = history.getByTestId('history-gpus');
      assert.deepEqual([await gpus.getAttribute('data-min'), await gpus.getAttribute('data-max')], ['1', '16']);

      await section.getByTestId('what-if-seeds').fill('2');
      await section.getByTestId('what-if-seeds').dispatchEvent('change');
      await eventually(() => run.isDisabled(), false);
      await run.click();
      const table = section.getByTestId('what-if-table');
      await table.waitFor({ timeout: 90_000 });
      const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.dataset.policy, tr.dataset.role]));
      assert.deepEqual(rows[0], ['kueue-tas', 'configured'], JSON.stringify(rows));
      const policies = rows.map((r) => r[0]);
      assert.ok(policies.includes('dally'), JSON.stringify(policies));
      assert.ok(policies.includes('kueue-tas:evict=on'), JSON.stringify(policies));
      // The configured scheduler is the baseline; the others' mean JCT is a ratio to its.
      assert.equal(await table.locator('tbody tr').first().locator('td').nth(1).textContent(), 'baseline');
      const dallyRatio = Number(await table.locator('tbody tr[data-policy="dally"] td').nth(1).getAttribute('data-value'));
      assert.ok(dallyRatio > 0 && Number.isFinite(dallyRatio), `dally's ratio: ${dallyRatio}`);
      assert.match(await table.locator('caption').textContent(), /jobs\.csv on cluster\.yaml: .* over 2 seeds, against kueue-tas/);

      const exported = async (which) => {
        const [download] = await Promise.all([page.waitForEvent('download'), section.getByTestId(`export-what-if-${which}`).click()]);
        return { name: download.suggestedFilename(), text: await readFile(await download.path(), 'utf8') };
      };
      const report = await exported('html');
      assert.equal(report.name, 'what-if.html');
      assert.match(report.text, /^<!doctype html>/i);
      // Self-contained: nothing it shows is fetched (an inline SVG's namespace is a name, not a fetch).
      const references = report.text.replace(/xmlns(:\w+)?="http:\/\/www\.w3\.org\/[^"]*"/g, '').match(/https?:\/\/[^\s"'<>)]*/g);
      assert.equal(references, null, `the report refers to the network: ${references}`);
      assert.match(report.text, /<table/);
      for (const policy of policies) assert.ok(report.text.includes(policy), `the report's table lacks ${policy}`);
      const markdown = await exported('markdown');
      assert.equal(markdown.name, 'what-if.md');
      assert.match(markdown.text, /^\|.*kueue-tas.*\|$/m, 'a table row of the configured scheduler');
      for (const policy of policies) assert.ok(markdown.text.includes(policy), `the Markdown lacks ${policy}`);
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await context.close();
    }
  });

  // The operators' examples (examples/your-cluster/, written on the branches that read their
  // formats): skipped, saying so, until they are in this tree. Figures measured with
  // `proxima run --policy fifo` on the same files (summary.json: gpus, jobs_total, tenants).
  const examples = [
    { nodes: 'kueue-cluster.yaml', history: 'kueue-workloads.json', scheduler: 'kueue-tas', gpus: '128', servers: '16', jobs: '67', tenants: '4' },
    { nodes: 'topology.conf', history: 'sacct.txt', scheduler: 'slurm', gpus: '192', servers: '24', jobs: '124', tenants: '4' },
  ];
  for (const ex of examples) {
    const dir = join(repoRoot, 'examples/your-cluster');
    const missing = [ex.nodes, ex.history].filter((f) => !existsSync(join(dir, f)));
    const skip = missing.length ? `examples/your-cluster/${missing.join(', ')} not in this tree yet` : false;
    test(`the example ${ex.nodes} and ${ex.history}: summarised, ${ex.scheduler} guessed, the what-if runs`, { timeout: 120_000, skip }, async () => {
      const { record, context, section } = await openYourCluster();
      try {
        await choose(section, 'nodes', ex.nodes, await readFile(join(dir, ex.nodes), 'utf8'));
        const nodes = section.getByTestId('nodes-summary');
        await nodes.waitFor();
        assert.equal(await nodes.getByTestId('nodes-gpus-total').textContent(), ex.gpus);
        assert.equal(await nodes.getByTestId('nodes-servers').textContent(), ex.servers);
        assert.equal(await section.getByTestId(`scheduler-${ex.scheduler}`).isChecked(), true);
        await choose(section, 'history', ex.history, await readFile(join(dir, ex.history), 'utf8'));
        const history = section.getByTestId('history-summary');
        await history.waitFor();
        assert.equal(await history.getByTestId('history-jobs').textContent(), ex.jobs);
        assert.equal(await history.getByTestId('history-tenants').textContent(), ex.tenants);
        // Both examples have rows a history leaves out (pending, still running, CPU-only).
        assert.ok((await history.getByTestId('history-left-out').locator('li').count()) > 0);
        await section.getByTestId('what-if-seeds').fill('1');
        await section.getByTestId('what-if-seeds').dispatchEvent('change');
        await section.getByTestId('what-if-run').click();
        const table = section.getByTestId('what-if-table');
        await table.waitFor({ timeout: 100_000 });
        const policies = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.policy));
        assert.equal(policies[0], ex.scheduler);
        assert.ok(policies.includes('dally'), JSON.stringify(policies));
        checkClean(record, { origin: site.origin, prefix: '/' });
      } finally {
        await context.close();
      }
    });
  }

  test('a GB200 node list (kubectl -o json) shows its NVLink domains', { timeout: 60_000 }, async () => {
    const { record, context, section } = await openYourCluster();
    try {
      const file = join(repoRoot, 'examples/your-cluster/gb200-nodes.json');
      await choose(section, 'nodes', 'gb200-nodes.json', await readFile(file, 'utf8'));
      const nodes = section.getByTestId('nodes-summary');
      await nodes.waitFor();
      // 8 trays of 4 GB200 in two cliques of 4 trays.
      assert.equal(await nodes.getByTestId('nodes-gpus-total').textContent(), '32');
      assert.equal(await nodes.getByTestId('nodes-gpu-kind').textContent(), 'GB200');
      assert.equal(await nodes.getByTestId('nodes-nvlink-domains').textContent(), '2');
      assert.match(await nodes.textContent(), /NVLink domains: 2 of 16 GPUs each\./);
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await context.close();
    }
  });

  test('a bad history names its file, line and field, and the run stays disabled with the reason', { timeout: 60_000 }, async () => {
    const { record, context, section } = await openYourCluster();
    try {
      await choose(section, 'nodes', 'cluster.yaml', await readFile(NODES, 'utf8'));
      await section.getByTestId('nodes-summary').waitFor();
      await choose(section, 'history', 'bad.csv', HISTORY.replace('j5,420,8,', 'j5,420,eight,'));
      const problem = section.getByTestId('history-problem');
      await problem.waitFor();
      assert.deepEqual(
        [await problem.getAttribute('data-source'), await problem.getAttribute('data-line'), await problem.getAttribute('data-field')],
        ['bad.csv', '6', 'gpus'],
      );
      assert.match(await problem.textContent(), /^bad\.csv:6: gpus: /);
      assert.equal(await section.getByTestId('what-if-run').isDisabled(), true);
      assert.equal(await section.getByTestId('what-if-blocked').textContent(), 'Run is disabled: the job history bad.csv could not be read.');
      // A job larger than the cluster blocks the run too, saying so.
      await choose(section, 'history', 'big.csv', HISTORY.replace('j5,420,8,', 'j5,420,128,'));
      await eventually(
        () => section.getByTestId('what-if-blocked').textContent(),
        "Run is disabled: the history has a job of 128 GPUs, more than the cluster's 64.",
      );
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await context.close();
    }
  });
});
