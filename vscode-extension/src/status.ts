// The status bar item: whether the server runs, and a click away from its output.
import * as vscode from 'vscode';

export type ServerState = 'starting' | 'running' | 'stopped' | 'failed';

const ICONS: Record<ServerState, string> = {
  starting: '$(sync~spin)',
  running: '$(check)',
  stopped: '$(circle-slash)',
  failed: '$(error)',
};

export class ServerStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(
    'jax-lsp.status',
    vscode.StatusBarAlignment.Right,
    100,
  );

  constructor() {
    this.item.name = 'jax-lsp';
    this.item.command = 'jax-lsp.showOutput';
    this.show('stopped', 'not started');
  }

  show(state: ServerState, detail: string): void {
    this.item.text = `${ICONS[state]} jax-lsp`;
    this.item.tooltip = `jax-lsp: ${detail}\nClick to show the server output.`;
    this.item.backgroundColor =
      state === 'failed' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
