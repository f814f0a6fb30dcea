// jax-lsp's fixes in JupyterLab notebooks. jupyterlab-lsp shows jax-lsp's diagnostics but never
// asks for code actions; this extension asks jax-lsp for them over jupyterlab-lsp's own
// connection (the notebook's virtual document) and applies their edits to the cells:
//   - "jax-lsp: Fix Problem at Cursor" (Ctrl/Cmd+. in a cell, and the cell's context menu):
//     the fixes for the finding under the cursor, applied at once when there is one, else
//     offered in a menu (the preferred, safe fix first);
//   - "jax-lsp: Fix All in Notebook": every safe fix (jax-lsp's source.fixAll action).
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import {
  ILSPConnection,
  ILSPDocumentConnectionManager,
  IWidgetLSPAdapterTracker,
  VirtualDocument,
  WidgetLSPAdapter
} from '@jupyterlab/lsp';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { Menu } from '@lumino/widgets';
import {
  applyTextEdits,
  cellChanges,
  changedSource,
  commonEnds,
  ICellChange,
  ITextEdit,
  LineOwner
} from './edits';

const SERVER = 'jax-lsp';
const FIX_ALL_KIND = 'source.fixAll.jax-lsp';
const COMMAND_FIX = 'jax-lsp:fix-at-cursor';
const COMMAND_FIX_ALL = 'jax-lsp:fix-all';
const COMMAND_APPLY = 'jax-lsp:apply-fix';

interface ICodeAction {
  title: string;
  kind?: string;
  isPreferred?: boolean;
  edit?: {
    changes?: Record<string, ITextEdit[]>;
    documentChanges?: Array<{ textDocument?: { uri: string }; edits?: ITextEdit[] }>;
  };
}

/** The open notebook's jupyterlab-lsp state that the server's answers refer to. */
interface IContext {
  panel: NotebookPanel;
  adapter: WidgetLSPAdapter<NotebookPanel>;
  document: VirtualDocument;
  connection: ILSPConnection;
}

function findContext(
  panel: NotebookPanel | null,
  adapters: IWidgetLSPAdapterTracker,
  connections: ILSPDocumentConnectionManager
): IContext | string {
  if (!panel) {
    return 'no notebook is active';
  }
  // The tracker holds the adapters JupyterLab made; the connection manager every registered one.
  const adapter = (adapters.find(candidate => candidate.widget === panel) ??
    [...connections.adapters.values()].find(candidate => candidate.widget === panel)) as
    | WidgetLSPAdapter<NotebookPanel>
    | undefined;
  const document = adapter?.virtualDocument;
  if (!adapter || !document) {
    return 'jupyterlab-lsp has not connected this notebook yet (is its kernel running?)';
  }
  const connection = connections.connections.get(document.uri);
  if (!connection) {
    return 'jupyterlab-lsp has no language server for this notebook';
  }
  if (connection.serverIdentifier !== SERVER) {
    return (
      `this notebook is served by ${connection.serverIdentifier ?? 'another server'}, not jax-lsp ` +
      "(raise jax-lsp's priority in the Language Servers settings)"
    );
  }
  return { panel, adapter, document, connection };
}

/** For each line of the virtual document, the cell (index in the notebook) and line it shows. */
function lineOwners(context: IContext, lineCount: number): LineOwner[] {
  const cellOf = new Map<unknown, number>();
  context.adapter.editors.forEach((block, index) => cellOf.set(block.ceEditor, index));
  const owners: LineOwner[] = [];
  for (let line = 0; line < lineCount; line++) {
    let owner: LineOwner = null;
    try {
      // Lines between cells belong to no editor (jupyterlab-lsp throws or answers null).
      const position = context.document.transformVirtualToEditor({ line, ch: 0 } as any);
      const editor = position ? context.document.getEditorAtVirtualLine({ line, ch: 0 } as any) : null;
      const cell = editor ? cellOf.get(editor) : undefined;
      if (position && cell !== undefined) {
        owner = { cell, line: position.line };
      }
    } catch {
      owner = null;
    }
    owners.push(owner);
  }
  return owners;
}

function editsFor(action: ICodeAction, uri: string): ITextEdit[] | string {
  const edit = action.edit;
  if (!edit) {
    return `"${action.title}" came without its edit`;
  }
  const found: ITextEdit[] = [];
  for (const change of edit.documentChanges ?? []) {
    if (change.textDocument?.uri !== uri || !change.edits) {
      return `"${action.title}" edits another document`;
    }
    found.push(...change.edits);
  }
  for (const [target, edits] of Object.entries(edit.changes ?? {})) {
    if (target !== uri) {
      return `"${action.title}" edits another document`;
    }
    found.push(...edits);
  }
  return found;
}

/** Applies a code action of the virtual document to the notebook's cells (one undo step). */
function applyAction(context: IContext, action: ICodeAction, versionAsked: number): string | null {
  if (context.document.documentInfo.version !== versionAsked) {
    return 'the notebook changed while jax-lsp was asked: try again';
  }
  const edits = editsFor(action, context.document.documentInfo.uri);
  if (typeof edits === 'string') {
    return edits;
  }
  const before = context.document.value;
  const after = applyTextEdits(before, edits);
  const cells = context.panel.content.widgets;
  const changes = cellChanges(before, after, lineOwners(context, before.split('\n').length), cell =>
    cells[cell].model.sharedModel.getSource().split('\n')
  );
  if (typeof changes === 'string') {
    return `"${action.title}" cannot be applied to the cells: ${changes}`;
  }
  const byCell = new Map<number, ICellChange[]>();
  for (const change of changes) {
    byCell.set(change.cell, [...(byCell.get(change.cell) ?? []), change]);
  }
  const notebook = context.panel.content.model!.sharedModel;
  notebook.transact(() => {
    for (const [index, ofCell] of byCell) {
      const shared = cells[index].model.sharedModel;
      const source = shared.getSource();
      const updated = changedSource(source, ofCell);
      // Only the changed middle is replaced, so the cursor and the rest of the cell stay.
      const [start, end] = commonEnds(source, updated);
      shared.updateSource(start, source.length - end, updated.slice(start, updated.length - end));
    }
  });
  return null;
}

async function askForActions(
  context: IContext,
  range: { start: { line: number; character: number }; end: { line: number; character: number } },
  only: string[]
): Promise<{ actions: ICodeAction[]; version: number }> {
  // The server must have the text the cells show now (jupyterlab-lsp sends edits after a pause).
  await context.adapter.updateFinished;
  const version = context.document.documentInfo.version;
  const answer = await context.connection.clientRequests['textDocument/codeAction'].request({
    textDocument: { uri: context.document.documentInfo.uri },
    range,
    // The server answers from its own findings at the range (it keeps the fixes with them).
    context: { diagnostics: [], only }
  });
  const actions = (answer ?? []).filter(
    (item): item is ICodeAction & Record<string, unknown> => 'title' in item && !('command' in item && typeof item.command === 'string')
  );
  return { actions: actions as ICodeAction[], version };
}

/** The cursor of the active cell as a position in the virtual document. */
function cursorInDocument(context: IContext): { line: number; character: number } | string {
  const cell = context.panel.content.activeCell;
  if (!cell || cell.model.type !== 'code' || !cell.editor) {
    return 'the cursor is not in a code cell';
  }
  const index = context.panel.content.widgets.indexOf(cell);
  const block = context.adapter.editors[index];
  const cursor = cell.editor.getCursorPosition();
  const root = context.document.transformFromEditorToRoot(block.ceEditor, {
    line: cursor.line,
    ch: cursor.column
  } as any);
  if (!root) {
    return 'this cell is not in the document jax-lsp sees yet';
  }
  const virtual = context.document.virtualPositionAtDocument(root as any);
  return { line: virtual.line, character: virtual.ch };
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jax-lsp-jupyterlab:plugin',
  description: "jax-lsp's quick fixes and fix-all in notebooks",
  autoStart: true,
  requires: [INotebookTracker, IWidgetLSPAdapterTracker, ILSPDocumentConnectionManager],
  optional: [ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    notebooks: INotebookTracker,
    adapters: IWidgetLSPAdapterTracker,
    connections: ILSPDocumentConnectionManager,
    palette: ICommandPalette | null
  ) => {
    let offered: { context: IContext; actions: ICodeAction[]; version: number } | null = null;
    const fail = (message: string) => {
      Notification.warning(`jax-lsp: ${message}`, { autoClose: 6000 });
    };
    const current = () => findContext(notebooks.currentWidget, adapters, connections);
    const isEnabled = () => notebooks.currentWidget !== null;

    const apply = (context: IContext, action: ICodeAction, version: number) => {
      const error = applyAction(context, action, version);
      if (error) {
        fail(error);
      }
    };

    app.commands.addCommand(COMMAND_FIX, {
      label: 'jax-lsp: Fix Problem at Cursor',
      caption: "Apply jax-lsp's fix for the finding under the cursor",
      isEnabled,
      execute: async () => {
        const context = current();
        if (typeof context === 'string') {
          return fail(context);
        }
        const cursor = cursorInDocument(context);
        if (typeof cursor === 'string') {
          return fail(cursor);
        }
        const { actions, version } = await askForActions(
          context,
          { start: cursor, end: cursor },
          ['quickfix']
        );
        // "Ignore ... for this line" actions are offered by the server too: fixes first.
        const fixes = actions.filter(action => action.edit);
        if (fixes.length === 0) {
          return fail('no fix at the cursor');
        }
        if (fixes.length === 1) {
          return apply(context, fixes[0], version);
        }
        offered = { context, actions: fixes, version };
        const menu = new Menu({ commands: app.commands });
        menu.addClass('jp-jax-lsp-fixes');
        fixes.forEach((_, index) => menu.addItem({ command: COMMAND_APPLY, args: { index } }));
        const cell = context.panel.content.activeCell!;
        const where = cell.editor!.getCoordinateForPosition(cell.editor!.getCursorPosition());
        const box = cell.editor!.host.getBoundingClientRect();
        menu.open(where?.left ?? box.left, where?.bottom ?? box.bottom);
        menu.activeIndex = 0;
      }
    });

    app.commands.addCommand(COMMAND_APPLY, {
      label: args => {
        const action = offered?.actions[args.index as number];
        return action ? `${action.title}${action.isPreferred ? ' (preferred)' : ''}` : '';
      },
      execute: args => {
        const action = offered?.actions[args.index as number];
        if (offered && action) {
          apply(offered.context, action, offered.version);
        }
        offered = null;
      }
    });

    app.commands.addCommand(COMMAND_FIX_ALL, {
      label: 'jax-lsp: Fix All in Notebook',
      caption: "Apply every safe jax-lsp fix in this notebook's code cells",
      isEnabled,
      execute: async () => {
        const context = current();
        if (typeof context === 'string') {
          return fail(context);
        }
        const lines = context.document.value.split('\n');
        const end = { line: lines.length - 1, character: lines[lines.length - 1].length };
        const { actions, version } = await askForActions(
          context,
          { start: { line: 0, character: 0 }, end },
          [FIX_ALL_KIND]
        );
        const fixAll = actions.find(action => action.kind === FIX_ALL_KIND && action.edit);
        if (!fixAll) {
          return Notification.info('jax-lsp: nothing to fix in this notebook', { autoClose: 4000 });
        }
        apply(context, fixAll, version);
      }
    });

    app.commands.addKeyBinding({
      command: COMMAND_FIX,
      keys: ['Accel .'],
      selector: '.jp-Notebook.jp-mod-editMode'
    });
    app.contextMenu.addItem({ command: COMMAND_FIX, selector: '.jp-Notebook .jp-CodeCell', rank: 0 });
    app.contextMenu.addItem({ command: COMMAND_FIX_ALL, selector: '.jp-Notebook', rank: 0 });
    for (const command of [COMMAND_FIX, COMMAND_FIX_ALL]) {
      palette?.addItem({ command, category: 'Language server protocol' });
    }
  }
};

export default plugin;
