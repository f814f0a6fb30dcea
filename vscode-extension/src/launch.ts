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
    return {
      kind: 'ready',
      plan: { command: executable, args: ['serve'], description: `${executable} serve` },
    };
  }
  const interpreter = await chooseInterpreter(settings, resource);
  const bundled = settings.importStrategy === 'useBundled';
  const env = bundled ? bundledEnvironment(extensionPath) : undefined;
  let facts: InterpreterFacts;
  try {
    // In the folder the server will run in: `python -c` finds modules there too.
    facts = await probeInterpreter(interpreter, env, resource?.fsPath);
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
  return {
    kind: 'ready',
    plan: {
      command: interpreter[0],
      args: [...interpreter.slice(1), '-m', 'jax_lsp', 'serve'],
      env,
      description: `${interpreter.join(' ')} -m jax_lsp serve (Python ${facts.version}, ${source})`,
    },
  };
}
