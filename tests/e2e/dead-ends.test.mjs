// End-to-end tests of the dead ends a first visitor met (dist/ in headless Chromium): a
// phone's page that scrolled sideways, a table of every policy that broke names inside
// words, and an imported cluster left where the last one was looked at.
//
// Run: node --test tests/e2e/dead-ends.test.mjs   (after `trunk build --release`)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkClean, eventually, openApp, runAndWait, useSite } from './harness.mjs';

const site = useSite();

/** How far the page scrolls sideways, in CSS px, and the widest element that sticks out. */
async function sideways(page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    let widest = null;
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > width + 0.5 && (!widest || r.right > widest.right)) {
        // An element inside a box that scrolls sideways by design does not count.
        let scroller = el.parentElement;
        while (scroller && scroller !== document.body && getComputedStyle(scroller).overflowX === 'visible') scroller = scroller.parentElement;
        if (scroller && scroller !== document.body) continue;
        widest = { right: r.right, what: `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}#${el.id} in ${el.parentElement?.tagName.toLowerCase()}.${[...(el.parentElement?.classList ?? [])].join('.')}: ${el.textContent.slice(0, 60)}` };
      }
    }
    return { over: document.documentElement.scrollWidth - width, widest };
  });
}

describe('no dead ends', () => {
  test('a phone (390×844): the page never scrolls sideways, before and after a run and its playback', { timeout: 120_000 }, async () => {
    const { page, record, context } = await openApp(site, { context: { viewport: { width: 390, height: 844 } } });
    try {
      assert.deepEqual((await sideways(page)).over, 0, JSON.stringify(await sideways(page)));
      await runAndWait(page, 3);
      const afterRun = await sideways(page);
      assert.equal(afterRun.over, 0, `after the run: ${JSON.stringify(afterRun)}`);
      await page.getByTestId('player').waitFor();
      const withPlayback = await sideways(page);
      assert.equal(withPlayback.over, 0, `with the playback: ${JSON.stringify(withPlayback)}`);
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await context.close();
    }
  });

  test('every policy at once: the table breaks names only after their : or , and scrolls sideways instead', { timeout: 180_000 }, async () => {
    const { page, record, context } = await openApp(site, { context: { viewport: { width: 1024, height: 768 } } });
    try {
      const boxes = page.getByTestId('policy-select').locator('input[type=checkbox]');
      const n = await boxes.count();
      for (let i = 0; i < n; i++) if (!(await boxes.nth(i).isChecked())) await boxes.nth(i).click();
      assert.ok(n >= 12, `${n} policies offered`);
      await runAndWait(page, n, 150_000);
      // Each piece of a name between its breaks is one text node; none is drawn on more
      // than one line.
      const broken = await page.getByTestId('summary-table').locator('thead code').evaluateAll((codes) =>
        codes.flatMap((code) =>
          [...code.childNodes]
            .filter((node) => node.nodeType === Node.TEXT_NODE)
            .filter((node) => {
              const range = document.createRange();
              range.selectNodeContents(node);
              const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
              return lines.size > 1;
            })
            .map((node) => `${code.textContent}: "${node.textContent}"`),
        ),
      );
      assert.deepEqual(broken, [], 'policy names broken inside a word');
      const names = await page.getByTestId('summary-table').locator('thead code').allTextContents();
      assert.ok(names.some((name) => name.includes(':')), `names with options among ${names}`);
      // The page itself does not scroll sideways: the table's box does.
      assert.equal((await sideways(page)).over, 0, JSON.stringify(await sideways(page)));
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await context.close();
    }
  });

  test('an imported cluster is fitted to the view, even with as many nodes as the one before', { timeout: 90_000 }, async () => {
    const { page, record, context } = await openApp(site, { context: { viewport: { width: 1440, height: 900 } } });
    try {
      const editor = page.getByTestId('topology-view');
      await page.locator('#topology select').first().selectOption('teaching');
      await page.waitForFunction(() => document.querySelector('[data-testid=gpu-count]')?.textContent === '16');
      // Zoomed in on the teaching cluster (2 racks of 2 servers under a spine: 7 nodes).
      for (let i = 0; i < 6; i++) await editor.getByTitle('Zoom in (+)').click();
      const outside = () =>
        editor.getByTestId('editor-svg').evaluate((svg) => {
          const view = svg.getBoundingClientRect();
          return [...svg.querySelectorAll('g[data-node] rect, rect[data-gpu]')].filter((el) => {
            const r = el.getBoundingClientRect();
            return r.left < view.left - 0.5 || r.right > view.right + 0.5 || r.top < view.top - 0.5 || r.bottom > view.bottom + 0.5;
          }).length;
        });
      await eventually(outside, (n) => n > 0, 'zoomed in, part of the cluster is out of view');
      // A file with as many switches and servers (3 and 4), 8 GPUs a node.
      const conf = 'SwitchName=s1 Nodes=gpu[1-2]\nSwitchName=s2 Nodes=gpu[3-4]\nSwitchName=top Switches=s[1-2]\n';
      await editor.getByTestId('slurm-gpus').fill('8');
      await editor.getByTestId('slurm-gpus').dispatchEvent('change');
      // A refused file first: said beside the import box, as an error, not as a note.
      await editor.getByTestId('slurm-input').setInputFiles({ name: 'bad.conf', mimeType: 'text/plain', buffer: Buffer.from(conf.replace('s[1-2]', 's[1-3]')) });
      const message = editor.getByTestId('editor-message');
      await eventually(() => message.textContent(), /^bad\.conf:3: Switches: /);
      assert.equal(await message.getAttribute('role'), 'alert');
      assert.match(await message.getAttribute('class'), /\berror\b/);
      const colours = await page.evaluate(() => [getComputedStyle(document.querySelector('[data-testid=editor-message]')).color, getComputedStyle(document.documentElement).getPropertyValue('--error')]);
      assert.equal(colours[0], 'rgb(198, 40, 40)', `the error colour (${colours})`);
      await editor.getByTestId('slurm-input').setInputFiles({ name: 'topology.conf', mimeType: 'text/plain', buffer: Buffer.from(conf) });
      await page.waitForFunction(() => document.querySelector('[data-testid=gpu-count]')?.textContent === '32');
      await eventually(outside, 0, 'the imported cluster is fitted to the view');
      assert.doesNotMatch(await message.getAttribute('class'), /\berror\b/, 'a good import is a note again');
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await context.close();
    }
  });

  test('a refused trace file is said beside the drop zone, with its line and field, not in the banner; Run waits for a good file', { timeout: 90_000 }, async () => {
    const { page, record, context } = await openApp(site, { context: { viewport: { width: 1280, height: 900 } } });
    try {
      await page.locator('#topology select').first().selectOption('teaching');
      const good = 'id,submit_s,gpus,model,duration_s\na,0,1,resnet50,600\nb,30,4,resnet50,1200\nc,60,2,bert,900\n';
      await page.getByTestId('trace-input').setInputFiles({ name: 'good.csv', mimeType: 'text/csv', buffer: Buffer.from(good) });
      await page.getByTestId('trace-job-count').filter({ hasText: /^3$/ }).waitFor();
      // Dropped, as a user drags it from their files onto the zone.
      const drop = (name, text) => page.locator('#trace .dropzone').evaluate((zone, [name, text]) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([text], name, { type: 'text/csv' }));
        zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      }, [name, text]);
      await drop('bad.csv', good.replace('b,30,', 'b,thirty,'));
      const problem = page.locator('#trace .dropzone [data-testid=trace-file-problem]');
      await eventually(() => problem.textContent(), /^bad\.csv:3: submit_s: /);
      assert.deepEqual(
        [await problem.getAttribute('data-source'), await problem.getAttribute('data-line'), await problem.getAttribute('data-field'), await problem.getAttribute('role')],
        ['bad.csv', '3', 'submit_s', 'alert']);
      const colour = await problem.evaluate((el) => getComputedStyle(el).color);
      assert.equal(colour, 'rgb(198, 40, 40)', 'in the error colour');
      assert.equal(await page.getByTestId('error-banner').count(), 0, 'the banner does not carry it');
      // Nothing half-applied: the previous file's preview stays, but Run waits for a file
      // that loads rather than run another in its place (issue 32, point 8).
      assert.equal(await page.getByTestId('trace-job-count').textContent(), '3');
      assert.match(await page.locator('#trace').textContent(), /file \(refused/);
      assert.equal(await page.getByTestId('run-button').isDisabled(), true);
      // A good file clears it.
      await drop('good2.csv', good);
      await page.getByTestId('trace-job-count').filter({ hasText: /^3$/ }).waitFor();
      await eventually(() => page.locator('#trace').textContent(), /file: good2\.csv/);
      assert.equal(await problem.count(), 0, 'cleared by a good file');
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await context.close();
    }
  });
});
