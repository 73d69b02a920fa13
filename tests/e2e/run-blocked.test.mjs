// End-to-end tests of Run while the trace the user chose cannot run (dist/ in headless
// Chromium): a refused trace file disables Run, with its reason beside the button, until
// the generator is chosen or a good file loads (before, Run ran the generator's trace in
// its place); an imported cluster greys the parametric form, whose GPU, fabric and size
// are no longer the cluster's.
//
// Run: node --test tests/e2e/run-blocked.test.mjs   (after `trunk build --release`)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkClean, choosePolicies, eventually, openApp, runAndWait, setGenerator, useSite } from './harness.mjs';

const site = useSite();

// The tests start from the teaching cluster (16 GPUs).
const OPEN = { preset: { name: 'teaching', gpus: 16 } };

const HEADER = 'id,submit_s,gpus,model,duration_s\n';
const ROWS = ['a,0,1,resnet50,600', 'b,30,2,resnet50,900', 'c,60,4,bert,1200', 'd,90,1,resnet50,300', 'e,120,2,bert,600'];
const GOOD = HEADER + ROWS.join('\n') + '\n';
// Line 6 (the fifth job) asks for "many" GPUs.
const BAD = GOOD.replace('e,120,2,', 'e,120,many,');

/** Drops a file named `name` holding `text` on the trace's drop zone, as a user's drag would. */
async function dropTrace(page, name, text) {
  const transfer = await page.evaluateHandle(([name, text]) => {
    const t = new DataTransfer();
    t.items.add(new File([text], name, { type: 'text/csv' }));
    return t;
  }, [name, text]);
  await page.locator('#trace .dropzone').dispatchEvent('drop', { dataTransfer: transfer });
}

const runButton = (page) => page.getByTestId('run-button');
const blockedText = async (page) => {
  const box = page.getByTestId('run-blocked');
  return (await box.count()) ? box.textContent() : null;
};
const jobsCompleted = (page) =>
  page.locator('[data-testid=summary-table] td[data-metric=jobs_completed][data-policy=fifo]').getAttribute('data-value');

describe('Run while the trace cannot run', () => {
  test('a refused file disables Run with its reason until the generator is chosen or the file is fixed', { timeout: 120_000 }, async () => {
    const opened = await openApp(site, OPEN);
    const { page, record } = opened;
    try {
      await choosePolicies(page, ['fifo']);
      await setGenerator(page, 40, 0.9, 1);
      await dropTrace(page, 'trace.csv', BAD);
      const problem = page.locator('#trace .dropzone [data-testid=trace-file-problem]');
      await problem.waitFor({ timeout: 10_000 });
      assert.equal(await problem.getAttribute('data-line'), '6');
      assert.equal(await problem.getAttribute('data-field'), 'gpus');
      // Run is disabled, and says why beside it, rather than running the generator's trace.
      await eventually(() => runButton(page).isDisabled(), true, 'Run is disabled after a refused file');
      await eventually(() => blockedText(page), /trace\.csv was refused \(line 6, gpus\): fix the file or choose the generator/);
      assert.equal(await runButton(page).getAttribute('aria-describedby'), 'run-blocked');
      assert.equal(await page.getByTestId('trace-mode-file').isChecked(), true, 'the trace is the file the user chose');

      // Choosing the generator lifts the block; Run runs the generator's 40 jobs.
      await page.getByTestId('trace-mode-generator').check();
      await eventually(() => runButton(page).isDisabled(), false, 'Run is enabled with the generator chosen');
      assert.equal(await blockedText(page), null);
      await runAndWait(page, 1);
      assert.equal(await jobsCompleted(page), '40');

      // Back to the file: blocked again; the file fixed, Run runs its 5 jobs.
      await page.getByTestId('trace-mode-file').check();
      await eventually(() => runButton(page).isDisabled(), true, 'Run is disabled with the refused file chosen again');
      await dropTrace(page, 'trace.csv', GOOD);
      await page.getByTestId('trace-job-count').filter({ hasText: /^5$/ }).waitFor({ timeout: 10_000 });
      await eventually(() => runButton(page).isDisabled(), false, 'Run is enabled once the file is fixed');
      assert.equal(await problem.count(), 0, 'the refusal is gone');
      await runAndWait(page, 1);
      await eventually(() => jobsCompleted(page), '5');
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });

  test('a Slurm import greys the parametric form and says the cluster is the imported one', { timeout: 60_000 }, async () => {
    const opened = await openApp(site, OPEN);
    const { page, record } = opened;
    try {
      const note = page.getByTestId('parametric-not-in-use');
      assert.equal(await note.count(), 0, 'the teaching preset is what the form shows');
      const conf = 'SwitchName=leaf1 Nodes=node[01-04]\nSwitchName=leaf2 Nodes=node[05-08]\nSwitchName=root Switches=leaf[1-2]\n';
      await page.getByTestId('topology-view').getByTestId('slurm-input')
        .setInputFiles({ name: 'topology.conf', mimeType: 'text/plain', buffer: Buffer.from(conf) });
      await page.waitForFunction(() => document.querySelector('[data-testid=gpu-count]').textContent !== '16', null, { timeout: 10_000 });
      const gpus = await page.getByTestId('gpu-count').textContent();
      await note.waitFor({ timeout: 10_000 });
      assert.match(await note.textContent(), new RegExp(`^Not in use: the cluster runs use is the imported or edited one \\(${gpus} GPUs`));
      const opacity = await page.locator('fieldset.parametric label').first().evaluate((el) => getComputedStyle(el).opacity);
      assert.equal(opacity, '0.5', 'the fields are greyed');
      // A preset chosen again: the form is in use again.
      await page.locator('#topology select').first().selectOption('teaching');
      await eventually(() => note.count(), 0, 'the note goes with the imported cluster');
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });
});
