// Drives a real VS Code (code-server) in headless Chromium: open a file with a JAX gotcha, see it
// in the Problems panel, apply the quick fix from Ctrl+., save, and check the file on disk.
// Run by tests/clients/test_vscode.py; configured through environment variables:
//   CODE_SERVER (code-server's out/node/entry.js), VSIX, PYTHON (the interpreter for the server),
//   CHROMIUM, ARTIFACTS (folder for screenshots and logs), PLAYWRIGHT (playwright-core's folder).
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const { chromium } = createRequire(import.meta.url)(env('PLAYWRIGHT'));
const artifacts = env('ARTIFACTS');
const GOTCHA = 'import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx[0] = 1.0\n';
const FIXED = 'import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx = x.at[0].set(1.0)\n';
const TWO = 'import jax.numpy as jnp\n\ny = jnp.ones(4)\ny[1] = 0.0\ny[2] += 5.0\n';
const TWO_FIXED = 'import jax.numpy as jnp\n\ny = jnp.ones(4)\ny = y.at[1].set(0.0)\ny = y.at[2].add(5.0)\n';
const started = Date.now();
const log = (message) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);

function prepare() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'jax-lsp-vscode-'));
  const dirs = {
    root,
    workspace: path.join(root, 'workspace'),
    userData: path.join(root, 'user-data'),
    extensions: path.join(root, 'extensions'),
  };
  fs.mkdirSync(path.join(dirs.userData, 'User'), { recursive: true });
  fs.mkdirSync(dirs.workspace);
  fs.writeFileSync(path.join(dirs.workspace, 'gotcha.py'), GOTCHA);
  fs.writeFileSync(path.join(dirs.workspace, 'two.py'), TWO);
  const settings = {
    // An interpreter without jax_lsp: the extension must offer its bundled copy.
    'jax-lsp.interpreter': [env('PYTHON'), '-s'],
    'jax-lsp.importStrategy': 'fromEnvironment',
    'jax-lsp.trace.server': 'off', // 'messages' would flood the output this test reads
    'security.workspace.trust.enabled': false,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'extensions.ignoreRecommendations': true,
    'update.mode': 'none',
    'telemetry.telemetryLevel': 'off',
    'chat.disableAIFeatures': true,
    'files.autoSave': 'off',
  };
  fs.writeFileSync(path.join(dirs.userData, 'User', 'settings.json'), JSON.stringify(settings));
  return dirs;
}

function codeServerArgs(dirs) {
  return [
    env('CODE_SERVER'),
    '--user-data-dir', dirs.userData,
    '--extensions-dir', dirs.extensions,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
    '--disable-getting-started-override',
  ];
}

function startCodeServer(dirs) {
  execFileSync('node', [...codeServerArgs(dirs), '--install-extension', env('VSIX')], {
    stdio: 'inherit',
  });
  const server = spawn(
    'node',
    [...codeServerArgs(dirs), '--auth', 'none', '--bind-addr', '127.0.0.1:0', dirs.workspace],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output = fs.createWriteStream(path.join(artifacts, 'code-server.log'));
  server.stdout.pipe(output);
  server.stderr.pipe(output);
  const url = new Promise((resolve, reject) => {
    let seen = '';
    server.stdout.on('data', (chunk) => {
      seen += chunk;
      const match = /HTTP server listening on (http:\/\/[\d.:]+)/.exec(seen);
      if (match) resolve(match[1]);
    });
    server.on('exit', (code) => reject(new Error(`code-server exited with ${code}`)));
    setTimeout(() => reject(new Error('code-server did not listen within 60 s')), 60000);
  });
  return { server, url };
}

async function openFile(page, name, text) {
  await page.locator('.part.editor').click();
  await page.keyboard.press('Control+P');
  await page.locator('.quick-input-widget input').fill(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.monaco-editor .view-lines', { hasText: text }).waitFor();
  log(`${name} open`);
}

async function runCommand(page, title) {
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor();
  await page.keyboard.press('Enter');
}

async function waitForFile(file, expected) {
  const deadline = Date.now() + 20000;
  while (fs.readFileSync(file, 'utf8') !== expected) {
    if (Date.now() > deadline) {
      throw new Error(`${file} on disk is not as expected:\n${fs.readFileSync(file, 'utf8')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function main() {
  fs.mkdirSync(artifacts, { recursive: true });
  fs.rmSync(path.join(artifacts, 'vscode-failure.png'), { force: true });
  const dirs = prepare();
  const { server, url } = startCodeServer(dirs);
  const browser = await chromium.launch({
    executablePath: env('CHROMIUM'),
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run',
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  const file = path.join(dirs.workspace, 'gotcha.py');
  try {
    const base = await url;
    log(`code-server at ${base}`);
    await page.goto(`${base}/?folder=${encodeURIComponent(dirs.workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
    log('workbench loaded');

    // The interpreter lacks jax_lsp: the status bar says the server is stopped, and a
    // notification (a toast, or in the notification centre when VS Code holds toasts back at
    // start-up) offers the bundled server.
    await page.locator('.statusbar-item', { hasText: 'jax-lsp' }).locator('.codicon-circle-slash')
      .waitFor({ timeout: 60000 });
    const offer = page.locator('.notification-list-item', { hasText: 'has no jax_lsp module' });
    if (!(await offer.first().isVisible())) {
      await runCommand(page, 'Notifications: Show Notifications');
    }
    await offer.first().waitFor({ timeout: 10000 });
    log(`offered: ${(await offer.first().locator('.notification-list-item-message').innerText()).trim()}`);
    await offer.first().locator('.monaco-button', { hasText: 'Use the bundled server' }).click();

    await openFile(page, 'gotcha.py', 'jnp.zeros');

    // The finding in the Problems panel.
    await page.keyboard.press('Control+Shift+M');
    const problem = page.locator('.markers-panel .monaco-list-row', { hasText: 'JAX201' });
    await problem.first().waitFor({ timeout: 90000 });
    log(`problems panel: ${(await problem.first().innerText()).replace(/\s+/g, ' ')}`);

    // Ctrl+. on the flagged line offers the quick fix.
    await page.locator('.monaco-editor .view-line', { hasText: 'x[0] = 1.0' }).click();
    await page.keyboard.press('Control+.');
    // The preferred (safe) fix comes focused: Enter applies it, as a user would.
    const action = page.locator('.action-widget .monaco-list-row.focused', { hasText: 'JAX201' });
    await action.waitFor({ timeout: 30000 });
    log(`quick fix offered: ${(await action.innerText()).replace(/\s+/g, ' ')}`);
    await page.screenshot({ path: path.join(artifacts, 'vscode-quickfix.png') });
    await page.keyboard.press('Enter');
    await page.locator('.monaco-editor .view-lines', { hasText: 'x.at[0].set(1.0)' }).waitFor();
    await page.keyboard.press('Control+S');

    await waitForFile(file, FIXED);
    log('saved file on disk is fixed');
    await problem.first().waitFor({ state: 'detached', timeout: 30000 });
    log('problem cleared');
    const status = page.locator('.statusbar-item', { hasText: 'jax-lsp' }).locator('.codicon-check');
    await status.waitFor({ timeout: 5000 });
    log('status bar: jax-lsp running');
    await page.screenshot({ path: path.join(artifacts, 'vscode-fixed.png') });

    // The "Fix All" command applies every safe fix in the active file.
    await openFile(page, 'two.py', 'jnp.ones');
    await page.locator('.markers-panel .monaco-list-row', { hasText: 'JAX202' }).first().waitFor();
    await runCommand(page, 'jax-lsp: Fix All');
    await page.locator('.monaco-editor .view-lines', { hasText: 'y.at[2].add(5.0)' }).waitFor();
    await page.keyboard.press('Control+S');
    await waitForFile(path.join(dirs.workspace, 'two.py'), TWO_FIXED);
    log('fix all: both findings fixed and saved');

    // Restart Server, then Show Output: the log names the interpreter and the bundled copy.
    await runCommand(page, 'jax-lsp: Restart Server');
    await runCommand(page, 'jax-lsp: Show Output');
    const output = page.locator('.part.panel .view-lines').first();
    let text = '';
    const deadline = Date.now() + 30000;
    // Two starts logged (the first and the restart), each naming the bundled copy.
    while ((text.match(/bundled jax_lsp/g) ?? []).length < 2) {
      if (Date.now() > deadline) throw new Error(`output after restart:\n${text}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
      text = (await output.innerText()).replace(/[\s\u00a0]+/g, ' ');
    }
    const lines = text.split(/(?=\d{4}-\d\d-\d\d \d\d:\d\d)/).filter((l) => l.includes('starting:'));
    log(`output after restart: ${lines.at(-1).trim()}`);
    await page.locator('.statusbar-item', { hasText: 'jax-lsp' }).locator('.codicon-check').waitFor();
    log('status bar: running again after the restart');
    console.log('VSCODE E2E OK');
  } catch (error) {
    await page.screenshot({ path: path.join(artifacts, 'vscode-failure.png') }).catch(() => {});
    throw error;
  } finally {
    await browser.close();
    server.kill();
    fs.rmSync(dirs.root, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
