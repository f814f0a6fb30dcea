// Entry point: starts the jax-lsp language server and wires commands, settings and status.
import * as vscode from 'vscode';
import {
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';
import { Launch, LaunchPlan, resolveLaunch } from './launch';
import { onInterpreterChange } from './python';
import { affectsLaunch, readLaunchSettings, readServerSettings, SECTION } from './settings';
import { ServerStatus } from './status';

const FIX_ALL_KIND = 'source.fixAll.jax-lsp';

/**
 * The language client, quiet about a clean exit: the server exits with status 0 after
 * `shutdown` (every stop and restart), which vscode-languageclient logs as an error.
 */
class JaxLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
    if (message === 'Server process exited with code 0.') {
      this.info(message, data, false);
      return;
    }
    super.error(message, data, showNotification);
  }
}

let client: LanguageClient | undefined;
/** Bumped by each restart: a client of an older generation is being replaced. */
let launchGeneration = 0;
let output: vscode.LogOutputChannel;
let status: ServerStatus;
let extensionPath: string;
let pending: Promise<void> = Promise.resolve();

function workspaceResource(): vscode.Uri | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri;
}

function clientOptions(): LanguageClientOptions {
  const generation = launchGeneration;
  return {
    documentSelector: [
      { scheme: 'file', language: 'python' },
      { scheme: 'untitled', language: 'python' },
      { scheme: 'vscode-notebook-cell', language: 'python' },
    ],
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: readServerSettings(workspaceResource()),
    synchronize: {
      configurationSection: SECTION,
      // The files the project's settings and its JAX release are read from.
      fileEvents: vscode.workspace.createFileSystemWatcher('**/{pyproject.toml,requirements.txt}'),
    },
    middleware: {
      workspace: {
        // A launch setting changed (`jax-lsp.path`...): a new server starts with the new
        // settings, so the one stopping is not told (that would race its shutdown, and
        // fail with "Starting server failed").
        didChangeConfiguration: (sections, next) =>
          generation === launchGeneration ? next(sections) : Promise.resolve(),
        // Answer `workspace/configuration` for our section with the server's keys only.
        configuration: (params, token, next) => {
          const ours = params.items.every((item) => item.section === SECTION);
          if (!ours) {
            return next(params, token);
          }
          return params.items.map((item) =>
            readServerSettings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined),
          );
        },
      },
    },
  };
}

async function offerBundled(launch: Extract<Launch, { kind: 'missing' }>): Promise<void> {
  const useBundled = 'Use the bundled server';
  const selectInterpreter = 'Select Interpreter';
  const answer = await vscode.window.showWarningMessage(
    `jax-lsp: the interpreter ${launch.interpreter.join(' ')} (Python ${launch.facts.version}) ` +
      'has no jax_lsp module. Install it there from a clone of jax-lsp ' +
      '(pip install -e /path/to/jax-lsp), or use the copy bundled with this extension.',
    useBundled,
    selectInterpreter,
  );
  if (answer === useBundled) {
    const target = vscode.workspace.workspaceFolders
      ? vscode.ConfigurationTarget.Workspace
      : vscode.ConfigurationTarget.Global;
    // The configuration change restarts the server.
    await vscode.workspace.getConfiguration(SECTION).update('importStrategy', 'useBundled', target);
  } else if (answer === selectInterpreter) {
    await vscode.commands.executeCommand('python.setInterpreter');
  }
}

function serverOptions(plan: LaunchPlan): ServerOptions {
  return { command: plan.command, args: plan.args, options: { env: plan.env, cwd: plan.cwd } };
}

async function start(): Promise<void> {
  status.show('starting', 'starting');
  const settings = readLaunchSettings(workspaceResource());
  const launch = await resolveLaunch(settings, extensionPath, workspaceResource());
  if (launch.kind === 'failed') {
    output.error(launch.reason);
    status.show('failed', launch.reason);
    void vscode.window.showErrorMessage(`jax-lsp: ${launch.reason}`, 'Show Output').then(
      (answer) => answer && output.show(),
    );
    return;
  }
  if (launch.kind === 'missing') {
    const reason = `${launch.interpreter.join(' ')} has no jax_lsp`;
    output.warn(reason);
    status.show('stopped', reason);
    void offerBundled(launch);
    return;
  }
  output.info(`starting: ${launch.plan.description}`);
  client = new JaxLanguageClient(SECTION, 'jax-lsp', serverOptions(launch.plan), clientOptions());
  client.onDidChangeState((event) => {
    if (event.newState === State.Running) {
      const version = client?.initializeResult?.serverInfo?.version ?? '?';
      status.show('running', `server ${version}\n${launch.plan.description}`);
    } else if (event.newState === State.Stopped) {
      status.show('stopped', 'stopped');
    }
  });
  try {
    await client.start();
  } catch (error) {
    const reason = `the server did not start: ${(error as Error).message}`;
    output.error(reason);
    status.show('failed', reason);
  }
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    try {
      await running.dispose(4000);
    } catch (error) {
      output.warn(`stopping the server: ${(error as Error).message}`);
    }
  }
}

/** Restarts are queued so that overlapping triggers never run two servers. */
function restart(): Promise<void> {
  launchGeneration += 1;
  pending = pending.then(async () => {
    await stop();
    await start();
  });
  return pending;
}

async function fixAll(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'python') {
    void vscode.window.showInformationMessage('jax-lsp: open a Python file to fix.');
    return;
  }
  // Ask the server for its fix-all action and apply it here, rather than through
  // `editor.action.sourceAction`: that request is cancelled when new diagnostics re-trigger
  // the editor's automatic code actions while it is pending (right after a quick fix), and
  // the command then silently does nothing.
  const document = editor.document;
  const whole = new vscode.Range(0, 0, document.lineCount, 0);
  const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
    'vscode.executeCodeActionProvider',
    document.uri,
    whole,
    FIX_ALL_KIND,
    1,
  );
  const action = actions?.find((candidate) => candidate.edit || candidate.command);
  if (!action) {
    void vscode.window.showInformationMessage('jax-lsp: nothing to fix.');
    return;
  }
  if (action.edit) {
    await vscode.workspace.applyEdit(action.edit);
  }
  if (action.command) {
    await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments ?? []));
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionPath = context.extensionPath;
  output = vscode.window.createOutputChannel('jax-lsp', { log: true });
  status = new ServerStatus();
  context.subscriptions.push(
    output,
    status,
    vscode.commands.registerCommand('jax-lsp.restart', restart),
    vscode.commands.registerCommand('jax-lsp.showOutput', () => output.show()),
    vscode.commands.registerCommand('jax-lsp.fixAll', fixAll),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (affectsLaunch(event)) {
        void restart();
      }
    }),
  );
  const interpreterWatch = await onInterpreterChange(() => {
    if (vscode.workspace.getConfiguration(SECTION).get<string[]>('interpreter', []).length === 0) {
      void restart();
    }
  });
  if (interpreterWatch) {
    context.subscriptions.push(interpreterWatch);
  }
  await restart();
}

export async function deactivate(): Promise<void> {
  await stop();
}
