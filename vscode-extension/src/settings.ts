// The extension's settings: how to start the server, and what to tell it.
import * as vscode from 'vscode';

export const SECTION = 'jax-lsp';

export type ImportStrategy = 'useBundled' | 'fromEnvironment';

/** How the server process is found and started (changing any of these restarts it). */
export interface LaunchSettings {
  interpreter: string[];
  path: string[];
  importStrategy: ImportStrategy;
}

/** What the server reads: the `jax-lsp` section of `workspace/configuration`. */
export interface ServerSettings {
  select?: string[];
  ignore?: string[];
  severity?: Record<string, string>;
  fixAll?: boolean;
  unsafeFixes?: boolean;
  codeLens?: boolean;
  inlayHints?: boolean;
}

export const LAUNCH_KEYS = ['interpreter', 'path', 'importStrategy'] as const;
const SERVER_KEYS = [
  'select',
  'ignore',
  'severity',
  'fixAll',
  'unsafeFixes',
  'codeLens',
  'inlayHints',
] as const;

export function readLaunchSettings(scope?: vscode.ConfigurationScope): LaunchSettings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  return {
    interpreter: config.get<string[]>('interpreter') ?? [],
    path: config.get<string[]>('path') ?? [],
    importStrategy: config.get<ImportStrategy>('importStrategy') ?? 'fromEnvironment',
  };
}

/** Only the keys the user set: an unset key must leave the project's pyproject.toml in charge. */
export function readServerSettings(scope?: vscode.ConfigurationScope | null): ServerSettings {
  const config = vscode.workspace.getConfiguration(SECTION, scope ?? undefined);
  const settings: Record<string, unknown> = {};
  for (const key of SERVER_KEYS) {
    const value = config.get(key);
    if (value !== null && value !== undefined) {
      settings[key] = value;
    }
  }
  return settings as ServerSettings;
}

export function affectsLaunch(event: vscode.ConfigurationChangeEvent): boolean {
  return LAUNCH_KEYS.some((key) => event.affectsConfiguration(`${SECTION}.${key}`));
}
