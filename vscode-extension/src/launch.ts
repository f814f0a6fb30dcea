// Turns the launch settings into the server command line, or says why there is none.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { InterpreterFacts, probeInterpreter, pythonExtensionInterpreter } from './python';
import { LaunchSettings } from './settings';

export interface LaunchPlan {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** The server's working directory: never the user's folder, which `python -m` would put on
   * `sys.path` (a `types.py` there would be imported in place of the standard library's, by
   * runpy itself, before jax_lsp runs: the e2e test saw it with a `jax-lsp.path` wrapper). */
  cwd?: string;
  /** For the output channel and the status bar tooltip. */
  description: string;
}

export type Launch =
  | { kind: 'ready'; plan: LaunchPlan }
  /** `fromEnvironment`, but the interpreter has no jax_lsp: the caller offers the bundled one. */
  | { kind: 'missing'; interpreter: string[]; facts: InterpreterFacts }
  | { kind: 'failed'; reason: string };

/** `bundled/libs` holds jax_lsp and its pure-Python dependencies (scripts/bundle_python.py). */
export function bundledEnvironment(extensionPath: string): NodeJS.ProcessEnv {
  const libs = path.join(extensionPath, 'bundled', 'libs');
  const inherited = process.env.PYTHONPATH;
  return {
    ...process.env,
    PYTHONPATH: inherited ? `${libs}${path.delimiter}${inherited}` : libs,
  };
}

export async function chooseInterpreter(
  settings: LaunchSettings,
  resource?: vscode.Uri,
): Promise<string[]> {
  if (settings.interpreter.length > 0) {
    return settings.interpreter;
  }
  return (await pythonExtensionInterpreter(resource)) ?? ['python3'];
}

export async function resolveLaunch(
  settings: LaunchSettings,
  extensionPath: string,
  resource?: vscode.Uri,
): Promise<Launch> {
  if (settings.path.length > 0) {
    const executable = settings.path.find((candidate) => fs.existsSync(candidate));
    if (!executable) {
      return { kind: 'failed', reason: `none of jax-lsp.path exists: ${settings.path.join(', ')}` };
    }
    // Absolute, as found: it runs in the extension's folder (see LaunchPlan.cwd).
    const command = path.resolve(executable);
    return {
      kind: 'ready',
      plan: { command, args: ['serve'], cwd: extensionPath, description: `${command} serve` },
    };
  }
  const interpreter = await chooseInterpreter(settings, resource);
  const bundled = settings.importStrategy === 'useBundled';
  const env = bundled ? bundledEnvironment(extensionPath) : undefined;
  let facts: InterpreterFacts;
  try {
    // In the folder the server will run in: `python -c` imports from there too, so never in
    // the user's folder (a `json.py` there would run).
    facts = await probeInterpreter(interpreter, env, extensionPath);
  } catch (error) {
    return { kind: 'failed', reason: (error as Error).message };
  }
  if (!facts.supported) {
    return {
      kind: 'failed',
      reason: `jax-lsp needs Python >= 3.10; ${interpreter.join(' ')} is Python ${facts.version}`,
    };
  }
  if (!bundled && !facts.hasServer) {
    return { kind: 'missing', interpreter, facts };
  }
  const source = bundled ? 'bundled jax_lsp' : 'jax_lsp from the environment';
  // -P (Python >= 3.11): the working directory is not put on sys.path at all; on 3.10 the
  // server's entry point takes it off before importing anything else.
  const safePath = safePathSupported(facts.version) ? ['-P'] : [];
  const args = [...interpreter.slice(1), ...safePath, '-m', 'jax_lsp', 'serve'];
  return {
    kind: 'ready',
    plan: {
      command: interpreter[0],
      args,
      env,
      cwd: extensionPath,
      description: `${[interpreter[0], ...args].join(' ')} (Python ${facts.version}, ${source})`,
    },
  };
}

/** Python >= 3.11 has `-P` (leave the working directory off sys.path). */
export function safePathSupported(version: string): boolean {
  const [major, minor] = version.split('.').map(Number);
  return major > 3 || (major === 3 && minor >= 11);
}
