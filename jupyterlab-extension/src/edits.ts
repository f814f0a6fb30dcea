// Carrying a language server's edits of jupyterlab-lsp's virtual document (the notebook's code
// cells joined, blank lines between them) back to the cells. The edits are applied to the
// virtual text, the result is compared line by line with the text before, and each changed run
// of lines goes to the one cell it lies in: a fix may replace the whole text (fix-all) or edit
// two cells at once (an import added to the first cell), and lines that no cell holds (the
// blank lines between cells) are never edited.

export interface IPosition {
  line: number;
  character: number;
}

export interface ITextEdit {
  range: { start: IPosition; end: IPosition };
  newText: string;
}

/** Where a virtual line comes from: a cell (by index) and its line there; null between cells. */
export type LineOwner = { cell: number; line: number } | null;

/** A change of one cell: its source lines `start`..`end` (exclusive) become `lines`. */
export interface ICellChange {
  cell: number;
  start: number;
  end: number;
  lines: string[];
}

function offsetOf(lineStarts: number[], text: string, position: IPosition): number {
  if (position.line >= lineStarts.length) {
    return text.length;
  }
  const start = lineStarts[position.line];
  const next = position.line + 1 < lineStarts.length ? lineStarts[position.line + 1] - 1 : text.length;
  // LSP counts UTF-16 code units, as JavaScript strings do.
  return Math.min(start + position.character, next);
}

/** `text` with the edits applied (positions of the original text, as LSP defines them). */
export function applyTextEdits(text: string, edits: ITextEdit[]): string {
  const lineStarts = [0];
  for (let index = 0; index < text.length; index++) {
    if (text[index] === '\n') {
      lineStarts.push(index + 1);
    }
  }
  const located = edits
    .map(edit => ({
      start: offsetOf(lineStarts, text, edit.range.start),
      end: offsetOf(lineStarts, text, edit.range.end),
      newText: edit.newText
    }))
    .sort((a, b) => b.start - a.start || b.end - a.end);
  let result = text;
  for (const edit of located) {
    result = result.slice(0, edit.start) + edit.newText + result.slice(edit.end);
  }
  return result;
}

interface IHunk {
  oldStart: number;
  oldEnd: number;
  newLines: string[];
}

const MAX_DIFF_CELLS = 4_000_000; // lines x lines compared at most (a notebook is far smaller)

/** How many leading and trailing items (lines, or characters) `before` and `after` share,
 * the trailing ones counted apart from the leading ones. */
export function commonEnds<T>(before: ArrayLike<T>, after: ArrayLike<T>): [number, number] {
  let prefix = 0;
  while (prefix < before.length && prefix < after.length && before[prefix] === after[prefix]) {
    prefix++;
  }
  let suffix = 0;
  while (
    suffix < before.length - prefix &&
    suffix < after.length - prefix &&
    before[before.length - 1 - suffix] === after[after.length - 1 - suffix]
  ) {
    suffix++;
  }
  return [prefix, suffix];
}

/** The changed runs of lines between `before` and `after` (a longest common subsequence). */
export function lineHunks(before: string[], after: string[]): IHunk[] {
  const [prefix, suffix] = commonEnds(before, after);
  const a = before.slice(prefix, before.length - suffix);
  const b = after.slice(prefix, after.length - suffix);
  if (a.length === 0 && b.length === 0) {
    return [];
  }
  if ((a.length + 1) * (b.length + 1) > MAX_DIFF_CELLS) {
    return [{ oldStart: prefix, oldEnd: prefix + a.length, newLines: b }];
  }
  // common[i][j]: the longest common subsequence of a[i:] and b[j:].
  const width = b.length + 1;
  const common = new Int32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i * width + j] =
        a[i] === b[j]
          ? common[(i + 1) * width + j + 1] + 1
          : Math.max(common[(i + 1) * width + j], common[i * width + j + 1]);
    }
  }
  const hunks: IHunk[] = [];
  let current: IHunk | null = null;
  let i = 0;
  let j = 0;
  const open = () => {
    if (current === null) {
      current = { oldStart: prefix + i, oldEnd: prefix + i, newLines: [] };
      hunks.push(current);
    }
    return current;
  };
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      current = null;
      i++;
      j++;
    } else if (
      j < b.length &&
      (i === a.length || common[i * width + j + 1] >= common[(i + 1) * width + j])
    ) {
      open().newLines.push(b[j]);
      j++;
    } else {
      const hunk = open();
      hunk.oldEnd = prefix + i + 1;
      i++;
    }
  }
  return hunks;
}

/**
 * The cell changes that turn `before` (the virtual text the server edited) into `after`, or an
 * error naming the first change no single cell holds. `owners[k]` says where virtual line k
 * comes from; `cellLines(cell)` is a cell's current source, cut into lines.
 */
export function cellChanges(
  before: string,
  after: string,
  owners: LineOwner[],
  cellLines: (cell: number) => string[]
): ICellChange[] | string {
  const oldLines = before.split('\n');
  const changes: ICellChange[] = [];
  for (const hunk of lineHunks(oldLines, after.split('\n'))) {
    if (hunk.oldStart === hunk.oldEnd) {
      // Lines inserted: after the line above if a cell holds it, else before the line below.
      const above = hunk.oldStart > 0 ? owners[hunk.oldStart - 1] : null;
      const below = owners[hunk.oldStart] ?? null;
      if (above) {
        changes.push({ cell: above.cell, start: above.line + 1, end: above.line + 1, lines: hunk.newLines });
      } else if (below) {
        changes.push({ cell: below.cell, start: below.line, end: below.line, lines: hunk.newLines });
      } else {
        return `lines inserted between cells (virtual line ${hunk.oldStart + 1})`;
      }
      continue;
    }
    const first = owners[hunk.oldStart];
    const last = owners[hunk.oldEnd - 1];
    if (!first || !last || first.cell !== last.cell || last.line - first.line !== hunk.oldEnd - 1 - hunk.oldStart) {
      return `a change across cells (virtual lines ${hunk.oldStart + 1}-${hunk.oldEnd})`;
    }
    // The cell must hold exactly these lines (a line rewritten for the server, such as an
    // IPython magic, is not the cell's text and is left alone).
    const source = cellLines(first.cell);
    for (let k = hunk.oldStart; k < hunk.oldEnd; k++) {
      if (source[first.line + k - hunk.oldStart] !== oldLines[k]) {
        return `cell ${first.cell + 1} differs from the text the server fixed (line ${first.line + k - hunk.oldStart + 1})`;
      }
    }
    changes.push({ cell: first.cell, start: first.line, end: last.line + 1, lines: hunk.newLines });
  }
  return changes;
}

/** A cell's new source: its lines with `changes` (of this cell, not overlapping) applied. */
export function changedSource(source: string, changes: ICellChange[]): string {
  const lines = source.split('\n');
  for (const change of [...changes].sort((x, y) => y.start - x.start || y.end - x.end)) {
    lines.splice(change.start, change.end - change.start, ...change.lines);
  }
  return lines.join('\n');
}
