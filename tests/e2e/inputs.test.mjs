// The catalogue of bad inputs (tests/inputs/catalogue.json, shared with the CLI's test
// crates/proxima-cli/tests/integration/inputs.rs), fed to the built app in headless Chromium: every
// trace and topology file is loaded through the page's file inputs, and the page must show
// the same `FILE:LINE: field: what` message as the CLI (a trace file's beside the drop zone
// it went to, a topology file's in the error banner) while the previous trace or topology
// stays in place. A few cases only the app has (a tampered share
// link, corrupt saved state, a file above the size limit) follow. The results generate the
// app section of docs/INPUTS.md; `UPDATE_DOCS=1 node --test tests/e2e/inputs.test.mjs`
// rewrites it when the page's messages change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot, useSite } from './harness.mjs';

const site = useSite();

const GOOD_TRACE = 'id,submit_s,gpus,model,duration_s\ngood-a,0,1,resnet50,60\ngood-b,10,2,vgg16,120\ngood-c,20,4,bert,30\n';

function bytesOf(file) {
  return file.text !== undefined ? Buffer.from(file.text, 'utf8') : Buffer.from(file.base64, 'base64');
}

/** A fresh page with a known trace (3 jobs) and the `teaching` preset loaded. */
async function freshPage() {
  const context = await site.browser.newContext();
  // Only the site's own origin may answer.
  await context.route('**/*', (route) =>
    new URL(route.request().url()).origin === site.origin ? route.continue() : route.abort('blockedbyclient'));
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(`${site.origin}/`);
  await page.getByTestId('run-button').waitFor();
  await page.locator('#topology select').first().selectOption('teaching');
  await page.getByTestId('trace-input').setInputFiles({ name: 'good.csv', mimeType: 'text/csv', buffer: Buffer.from(GOOD_TRACE) });
  await page.getByTestId('trace-job-count').filter({ hasText: /^3$/ }).waitFor();
  return { context, page, pageErrors };
}

async function dismissErrors(page) {
  const banner = page.getByTestId('error-banner');
  if (await banner.count()) await banner.getByRole('button').click();
}

/** What the page says beside the trace's drop zone about the file it refused, once it
 * says `expected` (the previous file's refusal may still show for a moment). */
async function dropZoneText(page, expected) {
  const problem = page.locator('#trace .dropzone [data-testid=trace-file-problem]');
  await problem.filter({ hasText: expected }).waitFor({ timeout: 10_000 }).catch(() => {});
  await problem.waitFor({ timeout: 1_000 });
  return problem.textContent();
}

async function bannerText(page) {
  const banner = page.getByTestId('error-banner');
  await banner.waitFor({ timeout: 10_000 });
  return (await banner.locator('li').allTextContents()).join(' | ');
}

const rows = [];

test('every bad trace or topology file gets the CLI\'s message and changes nothing', { timeout: 240_000 }, async () => {
  const catalogue = JSON.parse(await readFile(join(repoRoot, 'tests', 'inputs', 'catalogue.json'), 'utf8'));
  const cases = catalogue.cases.filter((c) => c.app);
  assert.ok(cases.length >= 30, `only ${cases.length} app cases`);
  const { context, page, pageErrors } = await freshPage();
  try {
    for (const c of cases) {
      await dismissErrors(page);
      const input = c.app === 'trace' ? 'trace-input' : 'topology-input';
      const mimeType = c.file.name.endsWith('.json') ? 'application/json' : 'text/csv';
      await page.getByTestId(input).setInputFiles({ name: c.file.name, mimeType, buffer: bytesOf(c.file) });
      if (c.exit === 0) {
        // Odd but fine: it loads, with no error.
        await page.waitForFunction(
          (name) => document.querySelector('[data-testid=trace-preview]')?.textContent.includes(name) ||
            [...document.querySelectorAll('[data-testid=notice-banner] li')].some((li) => li.textContent.includes(name)),
          c.file.name, { timeout: 10_000 }).catch(() => {});
        assert.equal(await page.getByTestId('error-banner').count(), 0, `${c.name}: accepted by the CLI but refused by the page`);
        if (c.app === 'trace') assert.equal(await page.getByTestId('trace-file-problem').count(), 0, `${c.name}: accepted by the CLI but refused by the page`);
        rows.push([c.name, 'loaded', '']);
        // Back to the known trace for the next case.
        await page.getByTestId('trace-input').setInputFiles({ name: 'good.csv', mimeType: 'text/csv', buffer: Buffer.from(GOOD_TRACE) });
        await page.getByTestId('trace-job-count').filter({ hasText: /^3$/ }).waitFor();
        continue;
      }
      const shown = c.app === 'trace' ? await dropZoneText(page, c.expect) : await bannerText(page);
      if (c.app === 'trace') assert.equal(await page.getByTestId('error-banner').count(), 0, `${c.name}: in the banner too`);
      assert.ok(shown.includes(c.expect), `${c.name}: the page said «${shown}», the CLI says «${c.expect}»`);
      // Nothing half-loaded: the previous trace and cluster are still there.
      assert.equal(await page.getByTestId('trace-job-count').textContent(), '3', `${c.name}: the previous trace was replaced`);
      assert.equal(await page.locator('#topology select').first().inputValue(), 'teaching', `${c.name}: the cluster changed`);
      rows.push([c.name, c.app === 'trace' ? 'beside the drop zone' : 'error banner', shown]);
    }
    assert.deepEqual(pageErrors, []);
  } finally {
    await context.close();
  }
});

test('cases only the app has: tampered links, corrupt saved state, files above the limit', { timeout: 120_000 }, async () => {
  // A file above the size limit is refused before it is read, the previous trace stays.
  {
    const { context, page } = await freshPage();
    const big = Buffer.alloc(17 * 1024 * 1024, 'a');
    await page.getByTestId('trace-input').setInputFiles({ name: 'huge.csv', mimeType: 'text/csv', buffer: big });
    const shown = await dropZoneText(page, 'huge.csv');
    assert.match(shown, /huge\.csv/);
    assert.equal(await page.getByTestId('trace-job-count').textContent(), '3');
    rows.push(['trace file above 16 MiB (17 MiB)', 'beside the drop zone', shown]);
    // A file name that is HTML shows as text, never as markup.
    await dismissErrors(page);
    await page.getByTestId('trace-input').setInputFiles({ name: '<img src=x onerror=alert(1)>.csv', mimeType: 'text/csv', buffer: Buffer.from('x') });
    await page.locator('#trace [data-testid=trace-file-problem]').filter({ hasText: '<img src=x' }).waitFor();
    const named = await dropZoneText(page, '<img src=x');
    assert.ok(named.includes('<img src=x onerror=alert(1)>.csv'), named);
    assert.equal(await page.locator('#trace img').count(), 0, 'the name became markup');
    rows.push(['a file name that is HTML markup', 'beside the drop zone, as text', named]);
    await context.close();
  }
  // A tampered share link: the error names the problem, the last scenario stands in.
  for (const [name, fragment] of [
    ['tampered share link (checksum)', '#s=1.eyJ0cCI6InRlYWNoaW5nIn0AAAA'],
    ['share link of a newer version', '#s=9.eyJ0cCI6InRlYWNoaW5nIn0'],
    ['share link that is not base64', '#s=1.%%%%'],
  ]) {
    const context = await site.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${site.origin}/${fragment}`);
    await page.getByTestId('run-button').waitFor();
    const shown = await bannerText(page);
    assert.match(shown, /share link could not be read/);
    assert.equal(await page.locator('#topology select').first().inputValue(), 'parametric');
    rows.push([name, 'error banner, defaults or the saved scenario stand in', shown]);
    await context.close();
  }
  // Corrupt or outdated saved state: a notice, and the defaults. The app keeps its share
  // code as a JSON string (gloo's local storage); earlier versions kept it bare, which is
  // still read as a share code (the last case).
  for (const [name, saved] of [
    ['corrupt saved scenario', JSON.stringify('{not a code')],
    ['saved scenario from a newer version', JSON.stringify('9.eyJ0cCI6InRlYWNoaW5nIn0')],
    ['saved scenario stored bare, as earlier versions did, from a newer version', '9.eyJ0cCI6InRlYWNoaW5nIn0'],
  ]) {
    const context = await site.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${site.origin}/`);
    await page.getByTestId('run-button').waitFor();
    const key = await page.evaluate(() => Object.keys(localStorage)[0]);
    assert.ok(key, 'the page saves its scenario in local storage');
    await page.evaluate(([k, v]) => localStorage.setItem(k, v), [key, saved]);
    await page.reload();
    await page.getByTestId('run-button').waitFor();
    const notice = page.getByTestId('notice-banner');
    await notice.waitFor();
    const shown = (await notice.locator('li').allTextContents()).join(' | ');
    assert.match(shown, /saved scenario could not be read/);
    assert.equal(await page.getByTestId('error-banner').count(), 0);
    rows.push([name, 'notice, defaults', shown]);
    await context.close();
  }
});

const BEGIN = '<!-- BEGIN APP CATALOGUE (generated by tests/e2e/inputs.test.mjs) -->';
const END = '<!-- END APP CATALOGUE -->';

test('docs/INPUTS.md shows what the page says', async () => {
  assert.ok(rows.length >= 30, 'the catalogue tests above ran');
  const md = (s) => s.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const span = (s) => (s.includes('`') ? `\`\` ${md(s)} \`\`` : `\`${md(s)}\``);
  const table = ['| # | input | what the page does | what the user sees |', '|---:|---|---|---|']
    .concat(rows.map(([name, what, shown], i) => `| ${i + 1} | ${md(name)} | ${what} | ${shown ? span(shown) : ''} |`))
    .join('\n');
  const path = join(repoRoot, 'docs', 'INPUTS.md');
  const doc = await readFile(path, 'utf8');
  const b = doc.indexOf(BEGIN);
  const e = doc.indexOf(END);
  assert.ok(b >= 0 && e > b, 'docs/INPUTS.md lacks the app catalogue markers');
  const wanted = `\n${table}\n`;
  if (doc.slice(b + BEGIN.length, e) !== wanted) {
    if (process.env.UPDATE_DOCS) {
      await writeFile(path, doc.slice(0, b + BEGIN.length) + wanted + doc.slice(e));
    } else {
      assert.fail('docs/INPUTS.md is out of date with the app; run UPDATE_DOCS=1 node --test tests/e2e/inputs.test.mjs');
    }
  }
});
