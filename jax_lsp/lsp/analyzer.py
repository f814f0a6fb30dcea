"""Analysis for the server: a document (or a notebook's code cells, as one module) analyzed on
the engine thread, jedi's answers waited for within a budget (a notebook's questions asked as a
file's are, of its cells' text as one module), and the result stored on the
document if it is still current when ready. Every result is tagged with the document version
and the settings generation it was computed from.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from jax_lsp.config import Settings
from jax_lsp.engine import Analysis, TracedFunction, syntax_error, traced_functions
from jax_lsp.lsp import notebook_cells
from jax_lsp.lsp.conversion import analysis_diagnostics, cell_diagnostic
from jax_lsp.lsp.crossmodule import Asker
from jax_lsp.lsp.documents import AnalysisResult, OpenDocument
from jax_lsp.workspace import ExternalFacts

if TYPE_CHECKING:
    from jax_lsp.lsp.server_view import ServerView

log = logging.getLogger(__name__)


class Analyzer:
    """Reads and stores the server's state (`ls`: documents, settings, engine, jedi)."""

    def __init__(self, ls: ServerView) -> None:
        self._ls = ls
        self._reported_failures: set[tuple[str, str]] = set()

    def report_failures(self, analysis: Analysis, path: str | None) -> None:
        for failure in analysis.failures:
            key = (failure.code, path or "")
            if key in self._reported_failures:
                continue
            self._reported_failures.add(key)
            self._ls.log_to_client(
                f"jax-lsp: rule {failure.code} failed on {path or 'an unsaved file'} "
                f"(line {failure.line + 1}): {failure.error}. Its findings in this file may be "
                "incomplete; the other rules still ran."
            )

    def excluded(self, path: str | None, settings: Settings) -> bool:
        """Whether the editor's file is excluded by the settings: no findings, no fixes (a file
        named on the `check` command line is checked all the same; one opened here is not)."""
        return bool(path and settings.root and settings.is_excluded(path))

    async def first_pass(self, document: OpenDocument) -> list[types.Diagnostic] | None:
        """The diagnostics of a document's first analysis without the traces the project's
        other modules give it, when those are not known yet: reading its importers for them
        takes seconds in a large project, and the full analysis follows at once. None when
        they are known (the full analysis is as quick)."""
        text, version, known_lines = document.text, document.version, document.split_already()
        uri, path, encoding = document.uri, document.path, self._ls.client.encoding
        settings = self._ls.settings.for_path(path)
        self._ls.report_settings_errors()  # before the diagnostics they change

        def work() -> list[types.Diagnostic] | None:
            if self.excluded(path, settings) or self._ls.cross.workspace.traces_known(path):
                return None
            engine = self._ls.engine
            analysis = engine.check(uri, text, path, settings, None, known_lines, False)
            return analysis_diagnostics(analysis, encoding, version, uri)

        return await self._ls.engine.run(work)

    async def analyze(self, document: OpenDocument) -> AnalysisResult:
        """Analyze the document as it is now; store the result if it is still current."""
        text, version, generation = document.text, document.version, self._ls.settings.generation
        known_lines = document.split_already()  # kept up to date edit by edit: no re-split
        uri = document.uri
        path, encoding = document.path, self._ls.client.encoding
        settings = self._ls.settings.for_path(path)
        self._ls.report_settings_errors()

        def work(answers: dict[str, ExternalFacts] | None = None):
            """The analysis and its diagnostics, with jedi's `answers` if any."""
            if self.excluded(path, settings):
                return Analysis([], []), []
            analysis = self._ls.engine.check(uri, text, path, settings, answers, known_lines)
            # On the parse's lines, not the open document's: those are split only when a
            # request needs them (most open files are never edited).
            return analysis, analysis_diagnostics(analysis, encoding, version, uri)

        quick = self._ls.engine.quick(uri, text)
        analysis, diagnostics = await self._ls.engine.run(work, inline=quick)
        if analysis.questions:
            asker = Asker(
                path,
                lambda: self._ls.documents.get(uri) is document and document.version == version,
                lambda: self._ls.jedi.answered(document),
            )
            found = await self._ls.cross.jedi_within_budget(
                asker, text, self._ls.settings.root, analysis.questions
            )
            if found:
                analysis, diagnostics = await self._ls.engine.run(work, found, inline=quick)
        self.report_failures(analysis, path)
        result = AnalysisResult(version, generation, analysis.findings, diagnostics)
        if document.version == version and self._ls.settings.generation == generation:
            document.result = result
        return result

    def _cells(self, notebook_uri: str) -> list[types.NotebookCell]:
        notebook = self._ls.workspace.get_notebook_document(notebook_uri=notebook_uri)
        return notebook.cells if notebook is not None else []

    def _code_cells(self, notebook_uri: str) -> list[str]:
        cells = self._cells(notebook_uri)
        return [cell.document for cell in cells if cell.kind == types.NotebookCellKind.Code]

    def open_code_cells(self, notebook_uri: str) -> list[OpenDocument]:
        """The notebook's code cells, in order."""
        return [doc for doc in map(self._ls.documents.get, self._code_cells(notebook_uri)) if doc]

    async def analyze_notebook(self, notebook_uri: str) -> bool:
        """Analyze a notebook's code cells as one module; store each cell's part if the notebook
        is unchanged meanwhile (then True)."""
        code_cells = self._code_cells(notebook_uri)
        cells = self.open_code_cells(notebook_uri)
        text, slices = notebook_cells.combine([(c.uri, c.version, c.text) for c in cells])
        generation, encoding = self._ls.settings.generation, self._ls.client.encoding
        path = to_fs_path(notebook_uri)
        settings = self._ls.settings.for_path(path)
        self._ls.report_settings_errors()

        def work(answers: dict[str, ExternalFacts] | None = None) -> Analysis:
            """The analysis of the cells, with jedi's `answers` if any."""
            if self.excluded(path, settings):
                return Analysis([], [])
            return self._ls.engine.check(notebook_uri, text, path, settings, answers)

        # Each cell's place in the notebook, markdown cells counted (VS Code's "Cell 3 of 7").
        numbers = {cell.document: n for n, cell in enumerate(self._cells(notebook_uri), start=1)}

        def in_cells(
            analysis: Analysis,
        ) -> tuple[
            dict[str, list[notebook_cells.CellFinding]],
            dict[str, list[notebook_cells.CellFinding]],
            list[TracedFunction],
        ]:
            """The findings of each cell, its syntax error (`engine.syntax_error`: shown, never
            fixed), and the traced functions."""
            by_cell = notebook_cells.findings_by_cell(analysis.findings, slices, numbers)
            syntax = syntax_error(analysis)
            errors: dict[str, list[notebook_cells.CellFinding]] = {}
            if syntax is not None:
                errors = notebook_cells.findings_by_cell([syntax], slices, numbers)
            return by_cell, errors, traced_functions(analysis)

        quick = self._ls.engine.quick(notebook_uri, text)
        analysis = await self._ls.engine.run(work, inline=quick)
        if analysis.questions:  # asked as a file's are: the cells' text as one module
            state = self.notebook_state(notebook_uri)
            asker = Asker(
                path,
                lambda: self.notebook_state(notebook_uri) == state,
                lambda: self._ls.jedi.notebook_answered(notebook_uri),
            )
            found = await self._ls.cross.jedi_within_budget(
                asker, text, self._ls.settings.root, analysis.questions
            )
            if found:
                analysis = await self._ls.engine.run(work, found, inline=quick)
        self.report_failures(analysis, path)
        # Fixes that edit other cells are split into them here, off the event loop.
        by_cell, errors, traced = await self._ls.engine.run(in_cells, analysis, inline=quick)
        if (
            self._ls.settings.generation != generation
            or code_cells != self._code_cells(notebook_uri)
            or any(
                self._ls.documents.get(cell.uri) is not cell or cell.version != piece.version
                for cell, piece in zip(cells, slices, strict=True)
            )
        ):
            return False
        by_uri = {cell.uri: cell for cell in cells}
        others_changed = False  # the diagnostics of a cell not edited since its last analysis
        for cell in cells:
            found = by_cell[cell.uri]
            shown = [*found, *errors.get(cell.uri, ())]
            diagnostics = [cell_diagnostic(f, cell, by_uri, encoding) for f in shown]
            findings = [f.finding for f in found]
            old = cell.result
            if old is not None and old.version == cell.version:
                others_changed = others_changed or old.diagnostics != diagnostics
            cell.result = AnalysisResult(cell.version, generation, findings, diagnostics)
        self._ls.notebook_traced[notebook_uri] = (self.notebook_state(notebook_uri), traced, slices)
        # An edit of one cell changes what another means (its import or the cell jitting its
        # function deleted): the client asks again only about the cell edited, unless told.
        if others_changed and not self._ls.client.pushes_notebooks():
            self._ls.publisher.refresh_pulled()
        if self._ls.traced_shown.outdated(cells, traced, slices):
            self._ls.publisher.refresh_views()
        return True

    async def current_result(self, document: OpenDocument) -> AnalysisResult:
        """The analysis of the current version; if the engine crashes, the last good one."""
        current = document.current(self._ls.settings.generation)
        if current is not None:
            return current
        try:
            if document.notebook:
                await self.analyze_notebook_once(document.notebook)
                return document.current(self._ls.settings.generation) or _empty(document)
            key = (document.version, self._ls.settings.generation)
            return await self._ls.engine.once(document.uri, key, partial(self.analyze, document))
        except Exception as error:  # an engine bug: keep serving the last good result
            log.exception("analysis of %s failed", document.uri)
            key = ("engine", document.uri)
            if key not in self._reported_failures:
                self._reported_failures.add(key)
                self._ls.log_to_client(
                    f"jax-lsp: analyzing {document.path or document.uri} failed: "
                    f"{type(error).__name__}: {error}",
                    types.MessageType.Error,
                )
            return document.result or _empty(document)

    def notebook_state(self, notebook_uri: str) -> tuple:
        """The notebook's code cells and their versions: what its analysis is of."""
        return tuple((cell.uri, cell.version) for cell in self.open_code_cells(notebook_uri))

    async def analyze_notebook_once(self, notebook_uri: str) -> bool:
        """`analyze_notebook`, shared by every caller asking about the same cell versions."""
        key = (self.notebook_state(notebook_uri), self._ls.settings.generation)
        return await self._ls.engine.once(
            notebook_uri, key, partial(self.analyze_notebook, notebook_uri)
        )


def _empty(document: OpenDocument) -> AnalysisResult:
    return AnalysisResult(document.version, -1, [], [])
