// Which Python runs the server: the setting, else the Python extension's choice, else python3.
import { execFile } from 'child_process';
import * as vscode from 'vscode';

const PYTHON_EXTENSION = 'ms-python.python';

/** The small part of the Python extension's API used here. */
interface PythonExtensionApi {
  environments: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(
      environment: { path: string },
    ): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
  };
}

async function pythonExtensionApi(): Promise<PythonExtensionApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (!extension) {
    return undefined;
  }
  try {
    return extension.isActive ? extension.exports : await extension.activate();
  } catch {
    return undefined;
  }
}

/** The interpreter command (path and arguments) the Python extension uses for `resource`. */
export async function pythonExtensionInterpreter(
  resource?: vscode.Uri,
): Promise<string[] | undefined> {
  const api = await pythonExtensionApi();
  if (!api?.environments) {
    return undefined;
  }
  const environment = await api.environments.resolveEnvironment(
    api.environments.getActiveEnvironmentPath(resource),
  );
  const executable = environment?.executable.uri?.fsPath;
  return executable ? [executable] : undefined;
}

/** Calls `listener` when the user picks another interpreter in the Python extension. */
export async function onInterpreterChange(
  listener: () => void,
): Promise<vscode.Disposable | undefined> {
  const api = await pythonExtensionApi();
  return api?.environments?.onDidChangeActiveEnvironmentPath(listener);
}

export interface InterpreterFacts {
  version: string;
  supported: boolean; // Python >= 3.10
  hasServer: boolean; // jax_lsp and its protocol library pygls are importable
}

const PROBE = [
  'import importlib.util, json, sys',
  'print(json.dumps({"version": "%d.%d.%d" % sys.version_info[:3],',
  ' "supported": sys.version_info >= (3, 10),',
  ' "hasServer": all(importlib.util.find_spec(m) for m in ("jax_lsp", "pygls"))}))',
].join('\n');

/** Runs the interpreter once to learn its version and whether it has jax_lsp. */
export function probeInterpreter(
  command: string[],
  env?: NodeJS.ProcessEnv,
  cwd?: string,
): Promise<InterpreterFacts> {
  return new Promise((resolve, reject) => {
    execFile(
      command[0],
      [...command.slice(1), '-c', PROBE],
      { timeout: 20000, env: env ?? process.env, cwd },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`${command.join(' ')} did not run: ${stderr.trim() || error.message}`));
          return;
        }
        resolve(JSON.parse(stdout.trim()) as InterpreterFacts);
      },
    );
  });
}
