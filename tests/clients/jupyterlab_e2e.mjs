// Drives a real JupyterLab (started by tests/clients/test_jupyterlab.py, with jupyterlab-lsp and
// this repository's labextension) in headless Chromium: open the notebook, see jupyterlab-lsp's
// squiggles on the right cells (severities as `serverSettings` set them), hover a finding whose
// related place is in another cell (the hover names that cell), apply a quick fix with Ctrl+.
// and another from the cell's context menu, run "Fix All in Notebook" from the notebook's
// context menu, and save. The test then reads the saved .ipynb.
// Configured through environment variables: LAB_URL, NOTEBOOK (its name in Lab's root),
// CHROMIUM, ARTIFACTS (screenshots), PLAYWRIGHT (playwright-core's folder).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const { chromium } = createRequire(import.meta.url)(env('PLAYWRIGHT'));
const artifacts = env('ARTIFACTS');
const started = Date.now();
const log = (message) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);

const CELL_COUNT = 9;
// The lint marks expected per cell (index in the notebook; markdown cells counted).
const EXPECTED_MARKS = {
  2: ['error:x[0]'], // JAX201; `x` comes from `helpers.make_array`: only flagged if the import resolves
  3: ['warning:y[1]'], // JAX202, an error by default: `serverSettings` made it a warning
  4: ['warning:print(v)'], // JAX101: `show` is traced by the next cell
  6: ['error:z[1]'],
  7: ['error:w[0]'],
  8: ['error:jnp.zeros(n)'], // JAX803: a traced shape
};

async function marks(page) {
  return page.locator('.jp-Notebook .jp-Cell').evaluateAll((cells) =>
    cells.map((cell) =>
      [...cell.querySelectorAll('.cm-lintRange')].map(
        (mark) => `${/cm-lintRange-(\w+)/.exec(mark.className)?.[1]}:${mark.textContent}`,
      ),
    ),
  );
}

async function waitForMarks(page, expected, timeout = 90000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const found = await marks(page);
    const wanted = Array.from({ length: CELL_COUNT }, (_, index) => expected[index] ?? []);
    if (JSON.stringify(found) === JSON.stringify(wanted)) return found;
    if (Date.now() > deadline) {
      throw new Error(`lint marks per cell:\n${JSON.stringify(found)}\nexpected:\n${JSON.stringify(wanted)}`);
    }
    await page.waitForTimeout(250);
  }
}

const cellLine = (page, index, text) =>
  page.locator('.jp-Notebook .jp-Cell').nth(index).locator('.cm-line', { hasText: text });

async function main() {
  fs.mkdirSync(artifacts, { recursive: true });
  fs.rmSync(path.join(artifacts, 'jupyterlab-failure.png'), { force: true });
  const browser = await chromium.launch({
    executablePath: env('CHROMIUM'),
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  try {
    await page.goto(`${env('LAB_URL')}/lab/tree/${env('NOTEBOOK')}?reset`);
    await page.locator('.jp-Notebook .jp-Cell').first().waitFor({ timeout: 90000 });
    log('notebook open');

    const found = await waitForMarks(page, EXPECTED_MARKS);
    log(`squiggles per cell: ${JSON.stringify(found)}`);
    await page.screenshot({ path: path.join(artifacts, 'jupyterlab-diagnostics.png') });

    // Hover (Ctrl held, jupyterlab-lsp's default) on `print`: the place that traces `show` is
    // named by its cell, not by a line of the joined cells.
    const print = page.locator('.jp-Notebook .jp-Cell').nth(4).locator('.cm-lintRange');
    const box = await print.boundingBox();
    const named = page.getByText(/cell 6, line 1: `?jax\.jit`? traces `?show`?/);
    for (let attempt = 0; attempt < 3 && !(await named.count()); attempt++) {
      await page.mouse.move(box.x + box.width / 2 - 4 + attempt, box.y + box.height / 2);
      await page.keyboard.down('Control');
      await page.mouse.move(box.x + box.width / 2 + attempt, box.y + box.height / 2);
      try {
        await named.first().waitFor({ timeout: 5000 });
      } catch {
        log(`no hover yet (attempt ${attempt + 1})`);
      }
      await page.keyboard.up('Control');
    }
    log(`hover names the cell: ${(await named.first().innerText()).replace(/\s+/g, ' ')}`);
    await page.screenshot({ path: path.join(artifacts, 'jupyterlab-hover.png') });
    await page.mouse.move(5, 600);
    await page.keyboard.press('Escape');

    // Ctrl+. on the flagged line: the fixes in a menu, the preferred one first; Enter applies it.
    await cellLine(page, 2, 'x[0] = 1.0').click();
    await page.keyboard.press('Home');
    await page.keyboard.press('Control+.');
    const menu = page.locator('.jp-jax-lsp-fixes');
    await menu.waitFor({ timeout: 30000 });
    const offered = await menu.locator('.lm-Menu-item').allInnerTexts();
    log(`Ctrl+. offers: ${JSON.stringify(offered.map((text) => text.trim()))}`);
    if (!/JAX201.*x\.at\[0\]\.set\(1\.0\).*preferred/.test(offered[0])) {
      throw new Error(`the preferred fix is not first: ${JSON.stringify(offered)}`);
    }
    await page.screenshot({ path: path.join(artifacts, 'jupyterlab-quickfix.png') });
    await page.keyboard.press('Enter');
    await cellLine(page, 2, 'x = x.at[0].set(1.0)').waitFor({ timeout: 10000 });
    log('quick fix applied to cell 3');

    // The cell's context menu: "jax-lsp: Fix Problem at Cursor" (the cursor put on `w[0]` first).
    await cellLine(page, 7, 'w[0] = 5.0').click();
    await page.keyboard.press('Home');
    await cellLine(page, 7, 'w[0] = 5.0').click({ button: 'right', position: { x: 5, y: 5 } });
    await page.locator('.lm-Menu-item', { hasText: 'jax-lsp: Fix Problem at Cursor' }).click();
    const second = page.locator('.jp-jax-lsp-fixes .lm-Menu-item').first();
    await second.waitFor({ timeout: 30000 });
    await second.click();
    await cellLine(page, 7, 'w = w.at[0].set(5.0)').waitFor({ timeout: 10000 });
    log('quick fix from the context menu applied to cell 8');

    // A fix that needs an import (not the preferred one: it changes how `padded` is called):
    // chosen in the Ctrl+. menu with the arrow keys; it edits this cell and the first one.
    await page.locator('.jp-Notebook .jp-Cell').nth(8).locator('.cm-lintRange').click();
    await page.keyboard.press('Control+.');
    await menu.waitFor({ timeout: 30000 });
    const choices = (await menu.locator('.lm-Menu-item').allInnerTexts()).map((text) => text.trim());
    log(`Ctrl+. in cell 9 offers: ${JSON.stringify(choices)}`);
    const wanted = choices.findIndex((text) => text.includes('static_argnames'));
    if (wanted < 0) throw new Error('the static_argnames fix is not offered');
    for (let step = 0; step < wanted; step++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await cellLine(page, 8, '@partial(jax.jit').waitFor({ timeout: 10000 });
    await cellLine(page, 0, 'from functools import partial').waitFor({ timeout: 10000 });
    log('the fix with an import edited cell 9 and cell 1');

    // The fixed cells lose their marks once the server has the new text (jupyterlab-lsp sends it
    // after a pause); then Fix All from the notebook's context menu.
    await waitForMarks(page, { 3: EXPECTED_MARKS[3], 4: EXPECTED_MARKS[4], 6: EXPECTED_MARKS[6] });
    await cellLine(page, 6, 'z[1] = 3.0').click({ button: 'right' });
    await page.locator('.lm-Menu-item', { hasText: 'jax-lsp: Fix All in Notebook' }).click();
    await cellLine(page, 3, 'y = y.at[1].add(2.0)').waitFor({ timeout: 30000 });
    await cellLine(page, 6, 'z = z.at[1].set(3.0)').waitFor({ timeout: 10000 });
    log('fix all applied');
    await page.screenshot({ path: path.join(artifacts, 'jupyterlab-fixall.png') });

    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+s');
    await page.locator('.jp-mod-dirty').waitFor({ state: 'detached', timeout: 30000 });
    log('saved');
    if (errors.length) throw new Error(`errors in the page:\n${errors.join('\n')}`);
    console.log('JUPYTERLAB E2E OK');
  } catch (error) {
    await page.screenshot({ path: path.join(artifacts, 'jupyterlab-failure.png') }).catch(() => {});
    throw error;
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
