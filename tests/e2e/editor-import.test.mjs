// End-to-end tests of the topology editor for real clusters (dist/ in headless Chromium):
// a Slurm topology.conf imported in the page (a good file; a file with a bad line, which
// changes nothing), problems named by the element's label, multi-select and "apply to the
// whole rack", link widths and oversubscribed uplinks, the machine presets, and Fit.
//
// Run: node --test tests/e2e/editor-import.test.mjs   (after `trunk build --release`)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkClean, choosePolicies, eventually, openApp, useSite } from './harness.mjs';

const site = useSite();

// These tests start from the teaching cluster (16 GPUs), no longer the page's default,
// in Playwright's default viewport.
const OPEN = { preset: { name: 'teaching', gpus: 16 } };

const editor = (page) => page.getByTestId('topology-view');
const gpuCount = async (page) => Number(await editor(page).getByTestId('gpu-count').textContent());
const nodeIds = (page, kind) =>
  editor(page).locator(`g.${kind}[data-node]`).evaluateAll((gs) => gs.map((g) => g.dataset.node).sort());

/** Chooses a file for the editor's import box, as the file picker would. */
async function importFile(page, name, text) {
  await editor(page).getByTestId('slurm-input').setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(text) });
}

async function setNumber(locator, value) {
  await locator.fill(String(value));
  await locator.dispatchEvent('change');
}

/** Every drawn node and GPU lies inside the <svg>'s box; returns the boxes' union. */
async function drawnInside(page) {
  return editor(page).getByTestId('editor-svg').evaluate((svg) => {
    const view = svg.getBoundingClientRect();
    const outside = [];
    const union = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
    // Boxes, GPU cells and link labels: everything the cluster is drawn with.
    for (const el of svg.querySelectorAll('g[data-node] rect, rect[data-gpu], .link-label')) {
      const r = el.getBoundingClientRect();
      union.left = Math.min(union.left, r.left);
      union.top = Math.min(union.top, r.top);
      union.right = Math.max(union.right, r.right);
      union.bottom = Math.max(union.bottom, r.bottom);
      const inside = r.left >= view.left - 0.5 && r.right <= view.right + 0.5 && r.top >= view.top - 0.5 && r.bottom <= view.bottom + 0.5;
      if (!inside) outside.push(el.closest('[data-node]')?.dataset.node ?? el.dataset.gpu ?? el.textContent);
    }
    return { outside, view: { width: view.width, height: view.height }, used: { width: union.right - union.left, height: union.bottom - union.top } };
  });
}

const GOOD_CONF = `# two racks of four nodes under one switch
SwitchName=leaf1 Nodes=node[01-04]
SwitchName=leaf2 Nodes=node[05-08]
SwitchName=root  Switches=leaf[1-2]
`;

describe('the editor for real clusters', () => {
  test('a Slurm topology.conf imports with the GPUs per node given; a bad line changes nothing and names file:line:field', { timeout: 60_000 }, async () => {
    const opened = await openApp(site, OPEN);
    const { page, record } = opened;
    try {
      assert.equal(await gpuCount(page), 16);
      const before = { servers: await nodeIds(page, 'server'), switches: await nodeIds(page, 'switch') };
      // A bad line first: line 4 names a switch no line defines.
      await importFile(page, 'bad.conf', GOOD_CONF.replace('leaf[1-2]', 'leaf[1-3]'));
      const message = editor(page).getByTestId('editor-message');
      await message.waitFor();
      assert.equal(await message.textContent(), "bad.conf:4: Switches: unknown switch 'leaf3' (no line SwitchName=leaf3)");
      assert.equal(await gpuCount(page), 16, 'the previous cluster stays');
      assert.deepEqual({ servers: await nodeIds(page, 'server'), switches: await nodeIds(page, 'switch') }, before);
      // The good file, with 4 GPUs per node and two 100 Gbit/s NICs.
      await setNumber(editor(page).getByTestId('slurm-gpus'), 4);
      await setNumber(editor(page).getByTestId('slurm-nics'), 2);
      await setNumber(editor(page).getByTestId('slurm-nic'), 100);
      await importFile(page, 'topology.conf', GOOD_CONF);
      await page.waitForFunction(() => document.querySelector('[data-testid=gpu-count]').textContent === '32', null, { timeout: 10_000 });
      assert.deepEqual(await nodeIds(page, 'switch'), ['leaf1', 'leaf2', 'root']);
      assert.deepEqual(await nodeIds(page, 'server'), ['node01', 'node02', 'node03', 'node04', 'node05', 'node06', 'node07', 'node08']);
      assert.equal(await editor(page).locator('[data-gpu]').count(), 32);
      assert.match(await message.textContent(), /Imported topology\.conf: 3 switches, 8 servers/);
      assert.equal(await page.locator('#topology select').first().inputValue(), 'imported');
      // Each node's link is its two NICs; the leaves' uplinks carry all four nodes (no LinkSpeed).
      const titles = await editor(page).locator('g.link title').allTextContents();
      assert.ok(titles.some((t) => t.startsWith('link node01 → leaf1: 200 Gb/s')), titles.join('\n'));
      assert.ok(titles.some((t) => t.startsWith('uplink leaf1 → root: 800 Gb/s')), titles.join('\n'));
      // A bad line now leaves the imported cluster as it is.
      await importFile(page, 'again.conf', 'SwitchName=leaf1 Nodes=node[01-04]\nSwitchName=leaf1 Nodes=node[05-08]\n');
      await page.waitForFunction(() => document.querySelector('[data-testid=editor-message]')?.textContent.startsWith('again.conf:2:'));
      assert.equal(await gpuCount(page), 32);
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });

  test('an invalid edit names the element by its label, and thin uplinks show their oversubscription', { timeout: 60_000 }, async () => {
    const opened = await openApp(site, OPEN);
    const { page, record } = opened;
    try {
      // teaching: rack uplinks carry 2 servers x 200 Gbit/s / 2.
      const uplink = editor(page).locator('[data-link="0"]');
      assert.equal(await uplink.locator('title').textContent().then((t) => t.split(':')[0]), 'uplink tor0 → spine');
      assert.equal(await uplink.getAttribute('data-oversub'), '2');
      assert.match(await uplink.getAttribute('class'), /\bthin\b/);
      assert.equal(await editor(page).locator('[data-link="1"]').getAttribute('data-oversub'), null);
      // A thinner uplink: 8:1, and drawn thinner than the servers' links.
      await uplink.locator('.hit').click();
      const bandwidth = editor(page).getByTestId('editor-properties').locator('input[type=number]').first();
      await setNumber(bandwidth, 50);
      await eventually(() => uplink.getAttribute('data-oversub'), '8');
      await eventually(() => uplink.locator('.link-label').textContent(), /50 Gb\/s · 8:1/);
      const width = async (i) => Number((await editor(page).locator(`[data-link="${i}"]`).getAttribute('class')).match(/bw-(\d)/)[1]);
      assert.ok((await width(0)) < (await width(1)), `uplink bw-${await width(0)}, server link bw-${await width(1)}`);
      // Zero: a problem, said with the element's label, not its place in the file.
      await setNumber(bandwidth, 0);
      await eventually(() => uplink.getAttribute('aria-invalid'), 'true');
      const problems = await eventually(() => page.getByTestId('topology-problems').textContent(), /uplink tor0 → spine: bandwidth must be a positive number of Gbit\/s, got 0/);
      assert.doesNotMatch(problems, /links\[/);
      await choosePolicies(page, ['fifo']);
      // Run is disabled while the cluster is invalid, with the same words beside it.
      await eventually(() => page.getByTestId('run-button').isDisabled(), true);
      await eventually(() => page.locator('#run-blocked').textContent(), /uplink tor0 → spine: bandwidth must be/);
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });

  test('multi-select and "apply to the whole rack" change every server they name', { timeout: 60_000 }, async () => {
    const opened = await openApp(site, OPEN);
    const { page, record } = opened;
    try {
      const gpusOf = (server) => editor(page).locator(`[data-gpu][data-server="${server}"]`).count();
      // One server set to 6 GPUs, then its rack.
      await editor(page).locator('[data-node="r0s0"] > rect').click({ position: { x: 4, y: 4 } });
      await setNumber(editor(page).getByTestId('editor-properties').locator('input[data-field^="ServerGpus"]'), 6);
      await eventually(async () => [await gpusOf('r0s0'), await gpusOf('r0s1')], [6, 4]);
      await editor(page).getByTestId('apply-to-rack').click();
      await eventually(async () => [await gpusOf('r0s0'), await gpusOf('r0s1')], [6, 6]);
      await eventually(() => gpuCount(page), 20);
      // Shift-click: two servers of the other rack, set at once (one undo step).
      await editor(page).locator('[data-node="r1s0"] > rect').click({ position: { x: 4, y: 4 } });
      await editor(page).locator('[data-node="r1s1"] > rect').click({ position: { x: 4, y: 4 }, modifiers: ['Shift'] });
      await eventually(() => editor(page).getByTestId('multi-selection').textContent(), '2 servers selected');
      await setNumber(editor(page).locator('input[data-field="many-Gpus"]'), 2);
      await setNumber(editor(page).locator('input[data-field="many-Nic"]'), 100);
      await eventually(async () => [await gpusOf('r1s0'), await gpusOf('r1s1'), await gpuCount(page)], [2, 2, 16]);
      const titles = await editor(page).locator('g.link title').allTextContents();
      assert.ok(titles.some((t) => t.startsWith('link r1s1 → tor1: 100 Gb/s')), titles.join('\n'));
      await page.getByTestId('undo-button').click();
      await page.getByTestId('undo-button').click();
      await eventually(() => gpuCount(page), 20);
      // A box drawn with Shift over rack 0's servers selects both (and nothing else).
      await editor(page).locator('[data-node="spine"] > rect').click({ position: { x: 4, y: 4 } });
      await eventually(() => editor(page).getByTestId('multi-selection').count(), 0);
      // The mouse works in the viewport: bring the drawing into it first.
      await editor(page).getByTestId('editor-svg').scrollIntoViewIfNeeded();
      const a = await editor(page).locator('[data-node="r0s0"] > rect').boundingBox();
      const b = await editor(page).locator('[data-node="r0s1"] > rect').boundingBox();
      await page.keyboard.down('Shift');
      await page.mouse.move(a.x - 4, a.y - 4);
      await page.mouse.down();
      await page.mouse.move(b.x + b.width + 4, b.y + b.height + 4, { steps: 5 });
      await page.mouse.up();
      await page.keyboard.up('Shift');
      await eventually(() => editor(page).getByTestId('multi-selection').textContent(), '2 servers selected');
      await eventually(() => editor(page).locator('[data-testid=editor-properties] .hint').first().textContent(), 'r0s0, r0s1');
      await setNumber(editor(page).locator('input[data-field="many-Gpus"]'), 1);
      await eventually(async () => [await gpusOf('r0s0'), await gpusOf('r0s1')], [1, 1]);
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });

  test('the machine presets are offered, and Fit shows every server with no wide empty band', { timeout: 90_000 }, async () => {
    const opened = await openApp(site, OPEN);
    const { page, record } = opened;
    try {
      const presets = await page.locator('#topology select').first().locator('option').evaluateAll((os) => os.map((o) => o.value));
      for (const name of ['dgx-a100-pod', 'dgx-h100-pod', 'fat-tree-k8', 'rail-pod-oversub']) assert.ok(presets.includes(name), `${name} in ${presets}`);
      // The cluster fills the view's width or its height, less the margins.
      const filled = (d) => Math.max(d.used.width / d.view.width, d.used.height / d.view.height);
      const fits = async (what) => {
        await editor(page).getByTestId('fit-button').click();
        // The fitted view is drawn on a later render than the click: read until it is.
        await eventually(() => drawnInside(page), (d) => d.outside.length === 0 && filled(d) > 0.85, `${what}: nothing drawn outside the view, and the cluster fills more than 85% of it`);
      };
      await fits('teaching');
      await page.getByTestId('add-rack-button').click();
      await fits('teaching and a rack');
      for (const preset of ['rail-pod-oversub', 'fat-tree-k8']) {
        await page.locator('#topology select').first().selectOption(preset);
        await page.waitForFunction((p) => document.querySelector('#topology select').value === p, preset);
        await fits(preset);
      }
      checkClean(record, { origin: site.origin, prefix: '/' });
    } finally {
      await opened.context.close();
    }
  });
});
