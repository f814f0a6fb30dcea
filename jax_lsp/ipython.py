"""IPython's syntax in notebook cells, blanked so the rest reads as Python: one implementation
for the CLI (`jax_lsp.ipynb`) and the server (`jax_lsp.lsp.notebook_cells`).

What IPython reads differently from Python, at the start of a logical line (not inside a string
or brackets that an earlier line opened):
- `%%magic` on a cell's first line: a cell magic. Its body is Python for the magics that run
  their body as Python (`%%time`, `%%timeit`, `%%capture`, ...), anything else otherwise.
- `%magic ...` and `!command ...`, also as `name = %magic` / `name = !command`; a line ending
  with a backslash continues them.
- Help: `?name`, `??name`, and `name?`, `name??` where `?` ends the line outside comments
  and strings.

A blanked line keeps its number: it becomes `pass` at its indentation when indented (so a block
whose only line was `!pip install ...` stays a block), and empty at the top level.
"""

from __future__ import annotations

import re

# Cell magics whose body IPython runs as Python.
PYTHON_CELL_MAGICS = frozenset(("time", "timeit", "capture", "prun", "debug"))

_ESCAPE = re.compile(r"(?P<indent>[ \t]*)(?:[%!?]|[A-Za-z_][\w.]*\s*=\s*[%!](?!=))")
_CELL_MAGIC = re.compile(r"\s*%%(?P<name>\w+)")
_STRING_START = re.compile(r"""(?i)(?:[rbuf]{0,2})('''|\"\"\"|'|")""")
_CLOSERS = {"(": ")", "[": "]", "{": "}"}


class _Scanner:
    """Where each line starts: in code at the top of a logical line, or inside a string or
    brackets opened earlier (where `%`, `!` and `?` are Python, or text)."""

    def __init__(self) -> None:
        self.quote: str | None = None  # the open triple-quoted string's delimiter
        self.depth = 0  # open brackets
        self.continued = False  # the previous line ended with a backslash

    @property
    def at_statement_start(self) -> bool:
        return self.quote is None and self.depth == 0 and not self.continued

    def code_part(self, line: str) -> str:
        """Scan `line`, updating the state; the line's code with strings and the comment
        replaced by spaces (so a `?` inside them does not count)."""
        kept: list[str] = []
        index, length = 0, len(line)
        self.continued = False
        while index < length:
            if self.quote is not None:
                end = _string_end(line, index, self.quote)
                if end < 0:
                    self.continued = False
                    kept.append(" " * (length - index))
                    return "".join(kept)
                kept.append(" " * (end - index))
                index, self.quote = end, None
                continue
            char = line[index]
            if char == "#":
                break
            match = _STRING_START.match(line, index)
            if match and (index == 0 or not (line[index - 1].isalnum() or line[index - 1] == "_")):
                delimiter = match.group(1)
                start = match.end()
                end = _string_end(line, start, delimiter)
                if end < 0:
                    if len(delimiter) == 3:
                        self.quote = delimiter
                    kept.append(" " * (length - index))
                    return "".join(kept)
                kept.append(" " * (end - index))
                index = end
                continue
            if char in _CLOSERS:
                self.depth += 1
            elif char in ")]}":
                self.depth = max(self.depth - 1, 0)
            elif char == "\\" and index == length - 1:
                self.continued = True
            kept.append(char)
            index += 1
        return "".join(kept)


def _string_end(line: str, index: int, delimiter: str) -> int:
    """The index just after `delimiter` closes a string at or after `index`; -1 if it does
    not close on this line."""
    while index < len(line):
        if line[index] == "\\":
            index += 2
            continue
        if line.startswith(delimiter, index):
            return index + len(delimiter)
        index += 1
    return -1


def _placeholder(line: str) -> str:
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    return f"{indent}pass" if indent else ""


def _is_help(code: str) -> bool:
    return code.rstrip().endswith("?")


def blank_ipython(lines: list[str]) -> list[str]:
    """A cell's lines with IPython's syntax blanked (see the module docstring)."""
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    blanked = list(lines)
    start = 0
    if first is not None and (cell_magic := _CELL_MAGIC.match(lines[first])):
        if cell_magic.group("name") not in PYTHON_CELL_MAGICS:
            return ["" for _ in lines]  # the body is not Python
        blanked[first] = ""
        start = first + 1
    scanner = _Scanner()
    escaped = False  # inside a magic or shell line continued with a backslash
    for index in range(start, len(lines)):
        line = lines[index]
        if escaped:
            blanked[index] = ""
            escaped = line.rstrip().endswith("\\")
            continue
        if scanner.at_statement_start and _ESCAPE.match(line):
            blanked[index] = _placeholder(line)
            escaped = line.rstrip().endswith("\\")
            continue
        at_start = scanner.at_statement_start
        code = scanner.code_part(line)
        if at_start and scanner.at_statement_start and _is_help(code):
            blanked[index] = _placeholder(line)
    return blanked
