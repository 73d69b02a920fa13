// End-to-end tests of the run's notes (issue 32, points 3 and 7), in headless Chromium on
// dist/: a trace file with a submit time far beyond the rest (1e9 s among jobs submitted
// within three hours) is run, not refused, and the results say so, naming the job and its
// line, as `proxima` warns on stderr; a model whose compute time on the cluster's GPU is
// scaled from another GPU is marked "estimated" in the model list beside the mix and in
// the results' notes. Before, both passed silently.
//
// Run: node --test tests/e2e/run-notes.test.mjs   (after `trunk build --release`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkClean, choosePolicies, eventually, openPage, runAndWait, useSite, waitForApp } from './harness.mjs';

const site = useSite();

/** Twenty jobs ten minutes apart, job 17 (line 19) submitted at 1e9 s; vgg16 and resnet50. */
function outlierTrace() {
  const rows = ['id,submit_s,gpus,model,duration_s'];
  for (let i = 0; i < 20; i++) rows.push(`${i},${i === 17 ? 1e9 : 600 * i},2,${i % 2 ? 'vgg16' : 'resnet50'},3600`);
  return rows.join('\n') + '\n';
}

test('a far submit time is warned and estimated models are marked, in the model list and the results', { timeout: 120_000 }, async () => {
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const opened = await openPage(site.browser, `${site.origin}/`, site.origin, context);
  const { page, record } = opened;
  try {
    await waitForApp(opened);
    await page.locator('#topology select').first().selectOption('teaching');
    await page.getByTestId('gpu-t4').check();
    // The list beside the mix: resnet50 measured on T4, vgg16 estimated from its A100 run.
    const hint = page.getByTestId('mix-hint');
    await eventually(() => hint.textContent(), /Models measured on this cluster's T4: resnet50/);
    const estimated = (await hint.getAttribute('data-estimated')).split(',');
    assert.ok(estimated.includes('vgg16') && !estimated.includes('resnet50'), estimated.join(','));
    const [measured, scaled] = (await hint.textContent()).split('Estimated, scaled from another GPU by published throughput ratios: ');
    assert.doesNotMatch(measured, /vgg16/);
    assert.match(scaled, /vgg16 \(from A100\)/);
    await page.getByTestId('trace-input').setInputFiles({ name: 'far.csv', mimeType: 'text/csv', buffer: Buffer.from(outlierTrace()) });
    await page.getByTestId('trace-job-count').filter({ hasText: /^20$/ }).waitFor();
    await choosePolicies(page, ['fifo', 'dally']);
    await runAndWait(page, 2);
    const notes = page.getByTestId('run-notes').locator('li');
    const all = await notes.allTextContents();
    const warning = page.getByTestId('run-notes').locator('li[data-kind=warning]');
    assert.equal(await warning.count(), 1, all.join(' | '));
    assert.match(await warning.textContent(), /^Warning: far\.csv:19: submit: job 17 is submitted at 1000000000 s, 31\.7 years after 99% of the trace.s jobs \(all in by 11400 s; over 10x that\): kept, but the run.s makespan stretches to cover the gap/);
    const note = page.getByTestId('run-notes').locator('li[data-kind=note]');
    assert.equal(await note.count(), 1, all.join(' | '));
    assert.match(await note.textContent(), /^Note: vgg16 on T4: compute time estimated from A100 x \d\.\d\d \(/);
    checkClean(record, { origin: site.origin, prefix: '/' });
  } finally {
    await context.close();
  }
});
