"""Cross-module facts: does a function imported from another workspace module return a JAX
array, and is it transformed (jitted) where it is defined?

The engine answers first: it finds the imported module's file under the workspace root (no
import, no `sys.path` search beyond the workspace) and builds our own ModuleModel on its
text, which tells exactly whether the function is decorated with a transformation and what
kind each of its `return` values has. Only names the engine cannot answer are left for jedi
(`jax_lsp.lsp.jedi_oracle`, in the server's jedi worker), which infers by reading sources too.
Nothing here imports or executes the code it reads.
"""

from __future__ import annotations

import ast
import os
import re
import sys
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from jax_lsp.analysis.boolean_args import returned_booleans
from jax_lsp.analysis.boolean_entries import returned_boolean_keys
from jax_lsp.analysis.class_readers import base_names, class_readers
from jax_lsp.analysis.document import Document, UnitSource, first_line
from jax_lsp.analysis.external import CallSite, ExternalFacts, facts_key
from jax_lsp.analysis.flow import annotation_container, annotation_kind
from jax_lsp.analysis.hashing import class_unhashable
from jax_lsp.analysis.imports import Resolver, import_bindings
from jax_lsp.analysis.keys import key_conditions
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.lineage import Lineage
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.analysis.nodes import (
    class_header,
    dotted_name,
    lone_class,
    own_returns,
    per_member,
    per_member_of,
    positional_params,
    walk_nodes,
    walk_once,
    walk_statements,
)
from jax_lsp.analysis.sharding import EXPLICIT_MESH_NAMES
from jax_lsp.analysis.summary import ClassRecord, FunctionNode, transform_of
from jax_lsp.analysis.unit_memo import per_unit
from jax_lsp.analysis.values import Container, Instance, Value, portable
from jax_lsp.analysis.workspace import (
    Bindings,
    Target,
    absolute_module,
    module_file,
    package_of,
    read_disk,
    real_file,
    search_roots,
)

__all__ = ["CallSite", "ExternalFacts", "facts_key"]  # their home is analysis/external.py

# Libraries whose functions the local model already knows (or must not guess about), and the
# standard library (never a workspace module, and no source of JAX arrays).
_KNOWN_ROOTS = frozenset(
    {"jax", "jaxlib", "numpy", "builtins", "flax", "equinox", "optax", *sys.stdlib_module_names}
)
_MAX_REEXPORT_DEPTH = 4
_MAX_BINDINGS = 1024  # memoised import sets (documents x their import versions)
_MAX_PATHS = 20_000  # files' path objects kept (`ModuleFactsCache._paths`)
_MAX_MODEL_LINES = 20_000  # lines of imported modules whose models are kept
# Lines of the models analysed last (`ModuleFactsCache.offer`) kept in case a module imports
# them: apart from the imported modules' models, so that they never push those out.
_MAX_OFFERED_LINES = 20_000
# `_ModuleEntry.checked` of an entry whose file must be read again (`ModuleFactsCache.expire`).
_EXPIRED = float("-inf")
# Seconds a file on disk (not open in the editor) is taken as unchanged since its stamp was
# read (`ModuleFactsCache.entry`'s `trust_seconds`): every keystroke confirms the modules the
# one being typed in imports, its importers and their whole upstream, a stat each otherwise.
# The editor's file watcher expires a saved file at once (`files_changed`); this bounds how
# long a change it does not report goes unseen.
STAMP_TRUST_SECONDS = 1.0
_WORD = re.compile(r"\w+")
# Searched in the text after a newline put before it: a literal first character is skipped
# to, where a multiline `^` is tried at every character (seven times slower). Possessive: no
# part gives back what it took, as none could let the rest match.
_LINE_START_ASSIGNMENT = re.compile(r"\n(\w++)[ \t]*+[:=]")
_LINE_START_CLASS = re.compile(r"\nclass[ \t]++(\w++)")
_IMPORT = re.compile(r"\bimport\b")
# A comment, unless a quote comes before it on its line (import statements hold no strings).
_COMMENT = re.compile(r"^([^'\"#\n]*)#[^\n]*", re.MULTILINE)

ReadText = Callable[[str], str | None]


ImportSignature = tuple[tuple[str | None, int, tuple[tuple[str, str | None], ...]], ...]


@per_unit
def _unit_imports(source: UnitSource) -> ImportSignature:
    """A unit's imports (module, level, (name, asname)...) in the order `walk_nodes` meets
    them, memoised with the unit's text. Imports are statements, written with the word
    `import`: only such a text's statements are walked."""
    statements = walk_statements(source.tree) if "import" in source.text else ()
    return tuple(
        (
            node.module if isinstance(node, ast.ImportFrom) else None,
            node.level if isinstance(node, ast.ImportFrom) else -1,
            tuple((a.name, a.asname) for a in node.names),
        )
        for node in statements
        if isinstance(node, ast.Import | ast.ImportFrom)
    )


@per_unit
def _unit_calls(source: UnitSource) -> frozenset[str]:
    """The spellings a unit calls (`make_state`, `ops.step`), found in one walk and memoised
    with the unit's text."""
    cls = lone_class(source.tree)
    if cls is None:
        return _call_spellings([source.tree])
    # member by member: an edit in a class shares the others' nodes
    return _call_spellings(class_header(cls)).union(
        *per_member(cls, _MEMBER_CALLS, lambda member: _call_spellings([member]))
    )


_MEMBER_CALLS: weakref.WeakKeyDictionary[ast.AST, frozenset[str]] = weakref.WeakKeyDictionary()


def _call_spellings(roots: list[ast.AST]) -> frozenset[str]:
    """What the code calls, bare decorators included (`@compiled` calls `compiled`)."""
    found = set()
    for root in roots:
        for node in walk_nodes(root):
            kind = type(node)  # exact types: the parser makes no subclasses
            if kind is ast.Call:
                if spelling := dotted_name(node.func):  # type: ignore[attr-defined]
                    found.add(spelling)
            elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                found.update(
                    spelling
                    for decorator in node.decorator_list
                    if not isinstance(decorator, ast.Call) and (spelling := dotted_name(decorator))
                )
    return frozenset(found)


def _bindings(imports: ImportSignature, path: str | None, roots: tuple[Path, ...]) -> Bindings:
    """Local names bound to functions of workspace modules, and to workspace modules."""
    package = package_of(path)
    names: dict[str, Target] = {}  # `from m import f`: f
    modules: dict[str, str] = {}  # module aliases: `import m.sub as s`, `from m import sub`
    for module, level, aliases in imports:
        if level < 0:  # `import m.sub [as s]`
            for name, asname in aliases:
                if name.split(".")[0] not in _KNOWN_ROOTS:
                    modules[asname or name] = name
            continue
        module = absolute_module(module, level, package)
        if module is None or module.split(".")[0] in _KNOWN_ROOTS:
            continue
        for name, asname in aliases:
            if name == "*":
                continue
            if module_file(f"{module}.{name}", roots):
                modules[asname or name] = f"{module}.{name}"
            else:
                names[asname or name] = Target(module, name)
    return names, modules


def imported_callables(
    document: Document, path: str | None, roots: tuple[Path, ...], cache: ModuleFactsCache
) -> dict[str, Target]:
    """Call spellings in the document (`make_state`, `ops.step`) -> what they import.

    Only absolute and relative imports of workspace modules count; jax, numpy and friends are
    the local model's business.
    """
    return _spelled_callables(document, imported_bindings(document, path, roots, cache))


def imported_bindings(
    document: Document, path: str | None, roots: tuple[Path, ...], cache: ModuleFactsCache
) -> Bindings:
    """The document's local names bound to functions (or values) of workspace modules, and to
    workspace modules."""
    sources = document.parsed_sources
    pieces = tuple(document.lineage.each_unit(_unit_imports, sources))
    # A keystroke rarely changes the document's imports: the last version's.
    imports = document.lineage.reuse(_merged, pieces)
    return cache.bindings(imports, path, roots)


def _spelled_callables(document: Document, bindings: Bindings) -> dict[str, Target]:
    names, modules = bindings
    if not names and not modules:
        return {}
    sources = document.parsed_sources
    # A call spelling that names a workspace import starts with the bound name: only the units
    # whose text may call one are walked for their calls.
    heads = frozenset([*names, *(module.partition(".")[0] for module in modules)])
    lineage = document.lineage
    calls = tuple(lineage.each_unit(_unit_head_calls, sources, heads))
    # A keystroke rarely changes the calls or the imports: the last version's answer.
    return lineage.reuse(_spelled, calls, names, modules)


def _unit_head_calls(source: UnitSource, heads: frozenset[str]) -> frozenset[str]:
    """`_head_calls` of a unit whose text may call a spelling starting with one of `heads`;
    none for another (not walked). Over every unit, so that the units an edit left alone
    answer as last time by identity (a list of the calling units alone was a new one at each
    keystroke)."""
    return _head_calls(source, heads) if _may_call_one_of(source, heads) else frozenset()


def _spelled(
    calls: tuple[frozenset[str], ...], names: dict[str, Target], modules: dict[str, str]
) -> dict[str, Target]:
    """The call spellings of `calls` that name an imported callable, and what they name."""
    spelled: dict[str, Target] = {}
    for spelling in frozenset().union(*calls):
        if spelling in names:
            spelled[spelling] = names[spelling]
            continue
        head, _, attribute = spelling.rpartition(".")
        if head in modules:
            spelled[spelling] = Target(modules[head], attribute)
    return spelled


def _may_call_one_of(source: UnitSource, heads: frozenset[str]) -> bool:
    """Whether the unit's text may call a spelling that starts with one of `heads` (memoised
    with its text): a text where no such word is followed by `(`, past dotted names, closing
    brackets, blanks, comments and line continuations, calls none, and is not walked. A
    class is let through: its members are tested one by one (`_head_calls`), an edit's member
    alone, where a search would read the whole class's text at each keystroke."""
    if source.words().isdisjoint(heads):
        return False
    if lone_class(source.tree) is not None:
        return True
    return _text_may_call_one_of(source, heads)


@per_unit
def _text_may_call_one_of(source: UnitSource, heads: frozenset[str]) -> bool:
    return _text_may_call(source.text, heads & source.words())


def _head_calls(source: UnitSource, heads: frozenset[str]) -> frozenset[str]:
    """The unit's call spellings (`_unit_calls`), the members of a class whose text calls no
    spelling starting with one of `heads` left out: `_spelled` keeps only such spellings,
    and most methods call none, so they are not walked."""
    cls = lone_class(source.tree)
    if cls is None:
        return _unit_calls(source)
    return _class_head_calls(source, heads)


@per_unit
def _class_head_calls(source: UnitSource, heads: frozenset[str]) -> frozenset[str]:
    cls = lone_class(source.tree)
    present = heads & source.words()
    lines = source.text.split("\n")
    callers = []
    for member in cls.body:
        asked = _MEMBER_MAY_CALL.get(member)
        if asked is None or asked[0] != heads:
            text = "\n".join(lines[first_line(member) - 1 : member.end_lineno])
            asked = _MEMBER_MAY_CALL[member] = (heads, _text_may_call(text, present))
        if asked[1]:
            callers.append(member)
    return _call_spellings(class_header(cls)).union(
        *per_member_of(callers, _MEMBER_CALLS, lambda member: _call_spellings([member]))
    )


# Per member of a class: the heads it was tested against, and whether its text may call one.
_MEMBER_MAY_CALL: weakref.WeakKeyDictionary[ast.AST, tuple[frozenset[str], bool]] = (
    weakref.WeakKeyDictionary()
)

# What may stand between a head word and the `(` of a call whose function is a dotted name
# starting with it (`ops.step(`, `(ops .step)(` across lines). Possessive: no backtracking
# into comments or names.
_GAP = r"(?:[\s\\]|#[^\n]*+)"
_CALL_AFTER_HEAD = re.compile(rf"(?:[\s)\\]|#[^\n]*+|\.{_GAP}*\w++)*+\(")


def _text_may_call(text: str, heads: frozenset[str]) -> bool:
    """Whether a head word (whole, as the pattern `\\bhead\\b` finds it) is followed in
    `text` by what may lead to a call's `(`, or follows a decorator's `@`: a superset of the
    calls whose spelling starts with it. The words are found with `str.find` and what follows
    is matched with one fixed pattern: a pattern spelling the heads would be compiled again for
    every file's imports."""
    for head in heads:
        start = text.find(head)
        while start >= 0:
            end = start + len(head)
            if (
                (start == 0 or not _is_word_character(text[start - 1]))
                and (end == len(text) or not _is_word_character(text[end]))
                # a call, or a decorator (`@compiled` calls it with the function)
                and (_CALL_AFTER_HEAD.match(text, end) is not None or text[start - 1] == "@")
            ):
                return True
            start = text.find(head, end)
    return False


def _is_word_character(character: str) -> bool:
    """`\\w` of a `str` pattern: a letter or digit of any script, or `_`."""
    return character.isalnum() or character == "_"


def _merged(pieces: tuple[ImportSignature, ...]) -> ImportSignature:
    """All units' imports, in order."""
    return tuple(entry for unit_imports in pieces for entry in unit_imports)


def call_sites(document: Document, spellings: set[str]) -> dict[str, CallSite]:
    """The first call of each spelling, in absolute document coordinates (for jedi). Only
    the units that call one of them are walked."""
    sites: dict[str, CallSite] = {}
    for unit in document.units:
        if unit.tree is None or _unit_calls(unit.source).isdisjoint(spellings):
            continue
        for node in walk_nodes(unit.tree):
            if not isinstance(node, ast.Call):
                continue
            spelling = dotted_name(node.func)
            if spelling in spellings and spelling not in sites:
                func = node.func
                column = func.end_col_offset - 1 if func.end_col_offset else func.col_offset
                sites[spelling] = CallSite(unit.start_line + func.end_lineno - 1, column)
    return sites


# -- the engine's answer -----------------------------------------------------------------------
@dataclass(frozen=True)
class _ParsedFacts:
    """What an imported module's parse tells without a model: the names `_facts_in_model`
    may find facts for, and where the names it imports come from."""

    may_have_facts: frozenset[str]
    reexports: dict[str, Target | None]
    assigned: frozenset[str] = frozenset()  # bound by a top-level `name = value`
    # Top-level classes, and those that may be PyTrees (`_maybe_pytree_classes`).
    classes: frozenset[str] = frozenset()
    pytree_classes: frozenset[str] = frozenset()
    # Classes whose instances JAX cannot hash (`hashing.class_unhashable`): why.
    unhashable_classes: dict[str, str] = field(default_factory=dict)
    # Top-level classes of a module whose text may draw random numbers: a method may draw
    # from a key the class stores (`stored_key_draws`).
    drawing_classes: frozenset[str] = frozenset()


@dataclass
class _ModuleEntry:
    stamp: object  # the open document's text, or the file's (mtime, size)
    facts: dict[str, ExternalFacts | Target | None]  # by name: facts, re-export, unknown
    model: ModuleModel | None = None  # dropped when newer models need the memory
    # Its parse (the model's, once it has one): dropped with the model, under the same bound.
    document: Document | None = None
    explicit_meshes: bool | None = None  # its code may build a mesh with explicit axes
    # Read from its text without a parse (`ModuleFactsCache.may_reexport`), None until then:
    import_words: frozenset[str] | None = None  # every word its import statements may hold
    parsed: _ParsedFacts | None = None  # read from its parse, None until then
    line_start_definitions: frozenset[str] | None = None  # read from its text, None until then
    class_facts: dict[str, ExternalFacts | None] = field(default_factory=dict)
    # PyTree classes no other statement binds (`ModuleFactsCache.lone_classes`), None until
    # asked.
    lone_classes: frozenset[str] | None = None
    checked: float = 0.0  # when the file's stamp was last read (`time.monotonic`)


class ModuleFactsCache:
    """Models of imported modules and the facts read from them, rebuilt only when a module
    changes. `open_text` gives an open document's current text (None: read the file).

    The facts found are kept per module version; the models they come from are kept for the
    modules used most recently, up to _MAX_MODEL_LINES lines (a workspace's imported modules
    would otherwise hold every tree they parsed).
    """

    def __init__(self, open_text: ReadText | None = None) -> None:
        self._open_text = open_text
        # Lines of imported modules' parses (and models) kept: raised for a `check` run,
        # whose project graph reads every module that may import another.
        self.model_lines = _MAX_MODEL_LINES
        self._entries: dict[Path, _ModuleEntry] = {}
        # One path object per file, by its name: a dict looks a path up by identity before
        # comparing it (a Python-level comparison of its parts), and the callers make their
        # own paths for the files they ask about again at every keystroke.
        self._paths: dict[str, Path] = {}
        self._bindings: dict[tuple, Bindings] = {}
        self._models: OrderedDict[Path, int] = OrderedDict()  # files with a parse: lines
        self._model_lines = 0
        # The last analyses' models, or their documents alone (see `offer`).
        self._offered: OrderedDict[Path, ModuleModel | Document] = OrderedDict()
        self._real_files: dict[str, Path] = {}  # each offered path, links resolved
        self._offered_lines = 0
        # Bumped whenever a module's entry is made (a module read first, or at a new version):
        # what was confirmed against the entries holds while it stands.
        self.generation = 0
        # The files do not change but by the analyses offered (one `check` run, whose --fix
        # writes the file it analyses): a file's stamp is read once, and again only when
        # `offer` finds it changed.
        self.trusted = False

    @property
    def reads_open_documents(self) -> bool:
        """Are modules read from the editor's open documents (else from the files alone)?"""
        return self._open_text is not None

    def bindings(
        self, imports: ImportSignature, path: str | None, roots: tuple[Path, ...]
    ) -> Bindings:
        key = (imports, path, tuple(roots))
        if key not in self._bindings:
            if len(self._bindings) > _MAX_BINDINGS:
                self._bindings.clear()
            self._bindings[key] = _bindings(imports, path, roots)
        return self._bindings[key]

    def offer(self, model: ModuleModel) -> None:
        """A model the engine built for a module's text as it analysed it. When it is a model
        an importer would build (no facts of imported modules, no 64-bit setting), it is kept
        for a while: a module imported after it was analysed (a `check` run, most often) then
        needs no model of its own, if its text is still the same. Otherwise its document is
        kept: the importer's model (or the parse its facts are first read from) shares its
        parses instead of parsing the text again."""
        if not (path := document_file(model.document)):
            return
        kept = model.document if model.external or model.x64_setting else model
        file = self._real_file(path)
        known = self._entries.get(file) if self.trusted else None
        if known is not None and known.stamp != file_stamp(file):
            known.checked = _EXPIRED  # written since it was read (`check --fix`)
        self._offered_lines -= _lines(self._offered.pop(file, None))
        self._offered[file] = kept
        self._offered_lines += _lines(kept)
        while self._offered_lines > _MAX_OFFERED_LINES and len(self._offered) > 1:
            self._offered_lines -= _lines(self._offered.popitem(last=False)[1])

    def parsed(self, path: str | None, text: str) -> Document | None:
        """The document parsed from `text` as the module at `path` imported by others, if one
        is kept (with its model, if one was built): a document analysed from it shares its
        parses and, with the same settings and imported facts, its model (`ModuleModel.of`)."""
        if not path or path.startswith("<") or not self._entries:
            return None
        entry = self._entries.get(self._real_file(path))
        document = entry.document if entry is not None else None
        return document if document is not None and document.text == text else None

    def _real_file(self, path: str) -> Path:
        """The file at `path`, links resolved (memoised: asked at each analysis). A stale
        answer (a link changed) costs reuse only: a kept model's text is compared."""
        file = self._real_files.get(path)
        if file is None:
            if len(self._real_files) > _MAX_BINDINGS:
                self._real_files.clear()
            file = self._real_files[path] = Path(real_file(path))
        return file

    def _text(self, file: Path) -> str | None:
        text = self._open_text(str(file)) if self._open_text else None
        return text if text is not None else read_disk(str(file))

    def entry(self, file: Path, trust_seconds: float = 0.0) -> _ModuleEntry | None:
        """The module's entry for its version now (None: no such file). Its model is built
        when a fact first needs one: most imported modules are only asked whether they may
        build explicit meshes, which their text answers without a parse. `trust_seconds`: a
        file on disk whose stamp was read that recently is taken as unchanged, unread (an
        open document is always compared, and so is a file whose entry was an open document's
        text: it was closed since)."""
        name = str(file)
        file = self.path(name, file)
        text = self._open_text(name) if self._open_text else None
        entry = self._entries.get(file)
        if text is None and entry is not None and self.trusted and entry.checked > _EXPIRED:
            return entry
        now = time.monotonic()
        if (
            text is None
            and entry is not None
            and now - entry.checked < trust_seconds
            and type(entry.stamp) is not str  # not a document closed since (its text then)
        ):
            return entry
        stamp: object = text if text is not None else file_stamp(file)
        if entry is not None and entry.stamp == stamp:
            entry.checked = now
            return entry
        if stamp is None:
            return None
        self._model_lines -= self._models.pop(file, 0)  # the old version's model goes with it
        entry = self._entries[file] = _ModuleEntry(stamp, {}, checked=now)
        self.generation += 1
        return entry

    def path(self, name: str, made: Path | None = None) -> Path:
        """The one path object of the file `name` (`made`, or a new one, the first time): a
        dict looks a key up by identity before comparing it, and a `Path` compares its parts
        in Python; the files asked about again at every keystroke are found by identity."""
        path = self._paths.get(name)
        if path is None:
            if len(self._paths) > _MAX_PATHS:
                self._paths.clear()
            path = self._paths[name] = made if made is not None else Path(name)
        return path

    def expire(self, paths: list[str]) -> None:
        """The files at `paths` changed on disk (or were made or removed): their stamps are
        read again at the next ask, however recently they were read."""
        for file in {Path(path) for path in paths} | {Path(real_file(path)) for path in paths}:
            entry = self._entries.get(file)
            if entry is not None:
                entry.checked = _EXPIRED
        self.generation += 1  # what was confirmed against the entries is asked again

    def model(self, file: Path, entry: _ModuleEntry) -> ModuleModel | None:
        """The entry's model, built again if it was dropped."""
        if entry.model is None:
            document = self._document(file, entry)
            if document is None:
                return None
            if entry.model is None:  # not the model an analysis of this text built
                entry.model = ModuleModel.of(document)
        self._models.move_to_end(file)
        return entry.model

    def explicit_meshes(self, file: Path, entry: _ModuleEntry) -> bool:
        """Whether the module's code may build a mesh with explicit axes (`analysis.sharding`),
        memoised with its version."""
        if entry.explicit_meshes is None:
            # The model reads the names from the units' words: a text that never spells
            # them (most modules) is answered without building one.
            text = self._known_text(file, entry)
            if not any(name in text for name in EXPLICIT_MESH_NAMES):
                entry.explicit_meshes = False
            else:
                model = self.model(file, entry)
                entry.explicit_meshes = model is not None and model.may_make_explicit_meshes
        return entry.explicit_meshes

    def may_reexport(self, file: Path, entry: _ModuleEntry, name: str) -> bool:
        """Whether the module may re-export `name` (bind it by an import): False when no
        import statement of its text spells the word, which `_answer` would parse the module
        and build its model to find out (memoised with its version). Once the module is
        parsed, its parse answers exactly what `_answer` would find."""
        if entry.parsed is not None:
            return name in entry.parsed.reexports
        if entry.import_words is None:
            entry.import_words = import_words(self._known_text(file, entry))
        return name in entry.import_words

    def text(self, file: Path, entry: _ModuleEntry) -> str:
        """The entry's text, without parsing it ("" when it is gone)."""
        return self._known_text(file, entry)

    def import_words(self, file: Path, entry: _ModuleEntry) -> frozenset[str]:
        """The words the module's import statements may spell, memoised with its version
        (as `may_reexport` reads them)."""
        if entry.import_words is None:
            entry.import_words = import_words(self._known_text(file, entry))
        return entry.import_words

    def parsed_facts(self, file: Path, entry: _ModuleEntry) -> _ParsedFacts | None:
        """What the module's parse tells without a model (None: no text), once per version."""
        if entry.parsed is None:
            document = self._document(file, entry)
            if document is None:
                return None
            entry.parsed = _ParsedFacts(
                _may_have_facts(document),
                _reexports(document, file),
                _assigned(document),
                _classes(document),
                _maybe_pytree_classes(document),
                _unhashable_classes(document),
                _classes(document) if "random" in document.text else frozenset(),
            )
        return entry.parsed

    def lone_classes(self, file: Path, entry: _ModuleEntry) -> frozenset[str]:
        """The module's PyTree classes that no other statement binds (no `def`, assignment
        or other class of the name anywhere in it): `_facts_in_model` finds a class's facts
        for them and nothing else, so an importer that reads no class facts needs no model
        to know it (memoised with its version)."""
        if entry.lone_classes is None:
            parsed = self.parsed_facts(file, entry)
            document = self._document(file, entry) if parsed is not None else None
            entry.lone_classes = (
                _lone_classes(document, parsed.pytree_classes)
                if parsed is not None and document is not None
                else frozenset()
            )
        return entry.lone_classes

    def document(self, file: Path, entry: _ModuleEntry) -> Document | None:
        """The entry's parse, as `_document` keeps it."""
        return self._document(file, entry)

    def _document(self, file: Path, entry: _ModuleEntry) -> Document | None:
        """The entry's parse (None: no text), kept with it for its model and for an analysis
        of the same text (`parsed`); parsed afresh only if no analysis parsed this text."""
        if entry.document is None:
            text = self._text(file)
            if text is None:
                return None
            offered = self._offered.get(file)
            if type(offered) is ModuleModel and offered.document.text == text:
                entry.model = offered  # the model an analysis of this text built: same facts
                entry.document = offered.document
            elif type(offered) is Document and offered.text == text:
                # Its parses, not its lineage: that analysis read other modules' facts, and
                # its next versions reuse from its own models.
                entry.document = Document(text, str(file), previous=offered)
                entry.document.lineage = Lineage()
            else:
                entry.document = Document(text, str(file))
            self._hold(file, len(entry.document.lines))
        return entry.document

    def line_start_definitions(self, file: Path, entry: _ModuleEntry) -> frozenset[str]:
        """The names a line of the module's text starts assigning (`name =`, `name: T =`) or
        defining as a class: a superset of those its top-level statements assign or define,
        read without a parse (memoised with its version)."""
        if entry.line_start_definitions is None:
            lines = "\n" + self._known_text(file, entry)
            entry.line_start_definitions = frozenset(
                [*_LINE_START_ASSIGNMENT.findall(lines), *_LINE_START_CLASS.findall(lines)]
            )
        return entry.line_start_definitions

    def _known_text(self, file: Path, entry: _ModuleEntry) -> str:
        """The entry's text: its parse's, else read again ("" when it is gone)."""
        return entry.document.text if entry.document is not None else self._text(file) or ""

    def _hold(self, file: Path, lines: int) -> None:
        """Count the file's parse (and the model built on it) in the bound, dropping the
        least recently used others' beyond it."""
        self._model_lines += lines - self._models.pop(file, 0)
        self._models[file] = lines
        while self._model_lines > self.model_lines and len(self._models) > 1:
            dropped, dropped_lines = self._models.popitem(last=False)
            self._model_lines -= dropped_lines
            if (old := self._entries.get(dropped)) is not None:
                old.model = None
                old.document = None


def import_words(text: str) -> frozenset[str]:
    """Every word of what follows an `import` (a parenthesised list, or the rest of the line
    and its continuations) and of the module before it, comments removed, and perhaps a few
    more: the words after an
    `import` on its line, and those of the lines an open parenthesis or a backslash carries
    the list onto. Only the lines holding `import` are read: a pattern run over the whole text
    cost every character of every module asked. (A superset is enough: a name it holds is
    looked up in the module's parse.)"""
    words: set[str] = set()
    position = text.find("import")
    while position >= 0:
        start = text.rfind("\n", 0, position) + 1
        end = _line_end(text, position)
        code = _COMMENT.sub(r"\1", text[start:end])  # per line, as the pattern reads lines
        found = _IMPORT.search(code)
        if found is not None:
            rest = code[found.end() :]
            words.update(_WORD.findall(rest))
            # and the module a `from` names (`from pkg.sub import f`: pkg, sub)
            words.update(_WORD.findall(code[: found.start()]))
            # `import (` may close on a later line, `import` find its `(` on one: read to the
            # first `)` not in a comment. A line ending in a backslash goes on.
            in_list = ")" not in rest and (not rest.strip() or rest.lstrip().startswith("("))
            line = rest
            while end < len(text) and (in_list or line.rstrip().endswith("\\")):
                following = end + 1
                end = _line_end(text, following)
                line = _COMMENT.sub(r"\1", text[following:end])
                words.update(_WORD.findall(line))
                if in_list and ")" in line:
                    end = following - 1  # that line may begin another import after its `)`
                    break
        position = text.find("import", end + 1)
    return frozenset(words)


def _line_end(text: str, position: int) -> int:
    end = text.find("\n", position)
    return len(text) if end < 0 else end


def _lines(kept: ModuleModel | Document | None) -> int:
    if kept is None:
        return 0
    return len(kept.lines if type(kept) is Document else kept.document.lines)


def file_stamp(file: Path | None) -> tuple[int, int] | None:
    """(mtime, size) of a file: changes when it is saved."""
    try:
        status = file.stat() if file is not None else None
    except OSError:
        return None
    if status is None:
        return None
    return (status.st_mtime_ns, status.st_size)


def _returns_array(model: ModuleModel, node: FunctionNode) -> bool | None:
    """True: every return is a JAX array; False: known not to be; None: cannot tell."""
    declared = annotation_kind(node.returns, model.resolver)
    if declared is Kind.ARRAY:
        return True
    if declared is Kind.NUMPY:
        return False
    info = model.trace.get(node)
    if info is not None and not info.direct:
        return None  # its kinds depend on what this module's traced callers pass
    returns = own_returns(node, may_yield=False)  # statements only: a yield is not seen
    if not returns or any(value is None for value in returns):
        return False  # it returns None (or yields)
    kinds = model.scope_kinds(node).kinds
    found = [kinds.get(value, Kind.UNKNOWN) for value in returns]
    if all(kind.is_jax for kind in found):
        return True
    if any(kind in (Kind.NUMPY, Kind.STATIC, Kind.SEQUENCE, Kind.ITERATOR) for kind in found):
        return False
    return None


def _jit_binding(model: ModuleModel, name: str) -> tuple[str, str] | None:
    """`name = jax.jit(f, ...)` at module level: (transform label, f)."""
    for bound, call, passed in _call_bindings(model.document):
        if bound == name:
            found = transform_of(call.func, model.resolver)
            if found is not None:
                return found[0].label, passed
    return None


def _call_bindings(document: Document) -> Iterator[tuple[str, ast.Call, str]]:
    """The module-level `name = call(f, ...)` statements (one name bound, a name passed
    first), where `_jit_binding` looks: (name, call, f)."""
    for unit in document.units:
        if unit.tree is None:
            continue
        for statement in unit.tree.body:
            if (
                isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(target := statement.targets[0], ast.Name)
                and isinstance(call := statement.value, ast.Call)
                and call.args
                and isinstance(first := call.args[0], ast.Name)
            ):
                yield target.id, call, first.id


def _may_have_facts(document: Document) -> frozenset[str]:
    """The names `_facts_in_model` may find facts for in a module: the names of its `def`s
    (a function's path is its name only if it is one), of its `name = call(f, ...)`
    bindings and of its other top-level `name = value` assignments (a module-level value).
    Read from the parse: a name outside these needs no model."""
    defined = [
        node.name
        for unit in document.units
        if unit.tree is not None
        for node in walk_statements(unit.tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    called = (name for name, _, _ in _call_bindings(document))
    return frozenset([*defined, *_assigned(document), *_maybe_pytree_classes(document), *called])


def _classes(document: Document) -> frozenset[str]:
    return frozenset(
        statement.name
        for unit in document.units
        if unit.tree is not None
        for statement in unit.tree.body
        if isinstance(statement, ast.ClassDef)
    )


def _maybe_pytree_classes(document: Document) -> frozenset[str]:
    """Top-level classes that may be PyTrees (`_class_facts` tells): those with a base or a
    decorator, and any class of a module whose text may register one."""
    registers = "register" in document.text
    return frozenset(
        statement.name
        for unit in document.units
        if unit.tree is not None
        for statement in unit.tree.body
        if isinstance(statement, ast.ClassDef)
        and (registers or statement.bases or statement.decorator_list)
    )


def _unhashable_classes(document: Document) -> dict[str, str]:
    """The module's top-level classes whose instances JAX cannot hash (a dataclass not
    frozen, `__eq__` without `__hash__`), read from the parse: why."""
    statements = [s for unit in document.units if unit.tree is not None for s in unit.tree.body]
    candidates = [
        s
        for s in statements
        if isinstance(s, ast.ClassDef)
        and (s.decorator_list or any(getattr(m, "name", None) == "__eq__" for m in s.body))
    ]
    if not candidates:
        return {}
    resolver = Resolver(import_bindings(statements))
    found: dict[str, str] = {}
    for node in candidates:
        decorators = tuple(resolver.qualname(d) or "" for d in node.decorator_list)
        bases = tuple(resolver.qualname(b) or "" for b in node.bases)
        why = class_unhashable(ClassRecord(node.name, node, decorators, bases))
        if why is not None:
            found[node.name] = why
    return found


def _lone_classes(document: Document, classes: frozenset[str]) -> frozenset[str]:
    """Those of the module's top-level `classes` that only their own class statement binds,
    nested blocks and definitions included."""
    if not classes:
        return frozenset()
    bindings: dict[str, int] = {}
    for unit in document.units:
        if unit.tree is None:
            continue
        for node in walk_statements(unit.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                bindings[node.name] = bindings.get(node.name, 0) + 1
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = node.targets if type(node) is ast.Assign else [node.target]
                for target in targets:
                    for bound in walk_once(target):
                        if isinstance(bound, ast.Name):
                            bindings[bound.id] = bindings.get(bound.id, 0) + 1
    return frozenset(name for name in classes if bindings.get(name) == 1)


# What an importer that reads no class facts (`class_readers`) is given for a lone class it
# calls (`EnvState(...)`): answered, as the class's facts would answer it, with nothing read.
_UNREAD_CLASS_FACTS = ExternalFacts(False)


def _class_facts(model: ModuleModel, name: str) -> ExternalFacts | None:
    """A class of the module: the attributes its instances hold that the module sees (for
    the modules deriving from it), and of a PyTree class (`EnvState(NamedTuple)`) the values
    of a traced instance's fields (for the modules whose traced code holds one). None for a
    name bound to several classes."""
    if name not in model.classes or model.class_defined_twice(name):
        return None
    some = model.instance_of_class(name)
    every = model.instance_of_class(name, every_leaf=True)
    fields: dict[str, object] = {}
    if some is not None and every is not None:
        fields["instance_fields"] = _portable_fields(some)
        fields["leaf_instance_fields"] = _portable_fields(every)
    if name in model.key_facts.quiet_linen_classes:
        fields["quiet_linen"] = True
    stored = _stored_key_draws(model, name)
    if stored:
        fields["stored_key_draws"] = stored
    unhashable = class_unhashable(model.classes[name])
    if unhashable is not None:
        fields["unhashable_instances"] = unhashable
    return ExternalFacts(False, instance_attributes=model.instance_attributes(name), **fields)


def _stored_key_draws(model: ModuleModel, name: str) -> tuple[tuple[str, str], ...]:
    """`KeyFacts.stored_key_draws` of a class of the module deriving from nothing (a base
    the model cannot see may assign the key), as (method, attribute) pairs."""
    record = model.classes.get(name)
    if record is None or model.class_defined_twice(name):
        return ()
    if record.node.keywords or any(
        not (isinstance(base, ast.Name) and base.id == "object") for base in record.node.bases
    ):
        return ()
    return tuple(sorted(model.key_facts.stored_key_draws(name).items()))


def _portable_fields(instance: Instance) -> tuple[tuple[str, Value], ...]:
    """The fields of a traced instance as an importer holds them: a field holding an
    instance of a PyTree class keeps its own fields (`params.pedestal.mode`)."""
    return tuple(
        (key, Instance(value.class_name, _portable_fields(value)))
        if type(value) is Instance
        else (key, portable(value))
        for key, value in instance.fields
    )


def _class_answer(
    cache: ModuleFactsCache, entry: _ModuleEntry, name: str, file: Path
) -> ExternalFacts | None:
    """`_class_facts` of one class of a module (memoised with its version)."""
    if name not in entry.class_facts:
        model = cache.model(file, entry)
        entry.class_facts[name] = _class_facts(model, name) if model is not None else None
    return entry.class_facts[name]


def _assigned(document: Document) -> frozenset[str]:
    """The names top-level `name = value` (or `name: T = value`) statements bind."""
    return frozenset(
        target.id
        for unit in document.units
        if unit.tree is not None
        for statement in unit.tree.body
        if isinstance(statement, ast.Assign | ast.AnnAssign)
        for target in (statement.targets if type(statement) is ast.Assign else [statement.target])
        if isinstance(target, ast.Name)
    )


def _value_facts(model: ModuleModel, name: str) -> ExternalFacts | None:
    """A module-level value the module binds once and never changes (`stable_globals`), as
    its importers may hold it: None when nothing of it is known."""
    if name not in model.stable_globals or name in model.functions:
        return None
    form = annotation_container(model.stable_globals[name], model.resolver)
    if form is not None:  # `Cache = dict[str, jax.Array]`: a type alias
        return ExternalFacts(False, container_form=form)
    value = portable(model.global_values.get(name, Kind.UNKNOWN))
    unhashable = _unhashable_instance(model, name)
    if unhashable is not None:
        known = None if value is Kind.UNKNOWN else value
        return ExternalFacts(False, value=known, unhashable_value=unhashable)
    return None if value is Kind.UNKNOWN else ExternalFacts(False, value=value)


def _unhashable_instance(model: ModuleModel, name: str) -> str | None:
    """Why JAX cannot hash the value of a module-level name bound once to an instance of a
    class of the module whose instances it cannot hash (`DEFAULT = Config()`)."""
    values = model.module_globals.top_level_values.get(name, [])
    if len(values) != 1 or not isinstance(values[0], ast.Call):
        return None
    func = values[0].func
    record = model.classes.get(func.id) if isinstance(func, ast.Name) else None
    if record is None or model.class_defined_twice(func.id):
        return None
    return class_unhashable(record)


def _facts_in_model(model: ModuleModel, name: str) -> ExternalFacts | None:
    wraps = model.wrapper_transforms.get(name)
    if wraps is not None:
        return ExternalFacts(False, wraps=wraps)
    record = model.functions.get(name)
    transform: str | None = None
    if record is None:
        binding = _jit_binding(model, name)
        if binding is None:
            return _value_facts(model, name) or _class_facts(model, name)
        transform, inner = binding
        record = model.functions.get(inner)
        if record is None:
            return None
    info = model.trace.get(record.node)
    if info is not None and info.direct:
        transform = transform or info.via
    returns = _returns_array(model, record.node)
    container = _returned_container(model, record.path, transform)
    keys = _key_facts(model, record.path)
    booleans = returned_booleans(model, record.node) if transform is None else frozenset()
    boolean_keys = returned_boolean_keys(model, record.node) if transform is None else frozenset()
    traced_returns = _returned_given_tracers(model, record.path, transform)
    known = (returns, container, traced_returns)
    if all(fact is None for fact in known) and not keys and not booleans and not boolean_keys:
        return None
    return ExternalFacts(
        bool(returns),
        transform,
        model.static_signatures.get(name),
        returns=container,
        traced_returns=traced_returns,
        returned_booleans=booleans,
        returned_boolean_keys=boolean_keys,
        **keys,
    )


def _key_facts(model: ModuleModel, path: str) -> dict[str, object]:
    """What a caller sees of the function's key parameters (`ExternalFacts.key_params` and
    the rest), from the module's key summaries; empty when it neither consumes nor derives
    from one."""
    consumed = model.key_helpers.get(path, frozenset())
    summary = model.key_summaries.get(path)
    derived = summary.derived if summary is not None else ()
    if not consumed and not derived:
        return {}
    node = model.functions[path].node
    return {
        "key_params": tuple(positional_params(node)),
        "consumed_keys": consumed,
        "derived_keys": derived,
        "returned_keys": summary.returned if summary is not None else (),
        **key_conditions(node, consumed, model.functions, model.key_helpers),
    }


def _returned_container(model: ModuleModel, path: str, transform: str | None) -> Container | None:
    """The tuple or dict a plain (untransformed) function of the model returns, if it
    returns one."""
    if transform is not None:
        return None
    found = model.return_value(path, False)
    return found if type(found) is Container else None


def _returned_given_tracers(
    model: ModuleModel, path: str, transform: str | None
) -> Container | Kind | None:
    """What a plain function returns when every parameter is a tracer: a tuple or dict, a
    tracer computed from them, or a Python value made from their static parts
    (`sum(jnp.size(v) for v in leaves)`)."""
    if transform is not None:
        return None
    found = model.return_value(path, True)
    if found is Kind.TRACED:  # news only where its summary does not say it already
        return found if model.return_value(path, False) is Kind.UNKNOWN else None
    return found if type(found) is Container or found is Kind.STATIC else None


def _reexports(document: Document, file: Path) -> dict[str, Target | None]:
    """The names a module binds by `from .impl import name` (or `import`): where each
    really lives (None: a relative import above the top package), the first binding's."""
    # `pkg/__init__.py` and `pkg/impl.py` both have the package `pkg`, which `.` names.
    package = package_of(str(file))
    found: dict[str, Target | None] = {}
    for unit in document.units:
        if unit.tree is None:
            continue
        for statement in unit.tree.body:
            if not isinstance(statement, ast.ImportFrom):
                continue
            module = absolute_module(statement.module, statement.level, package)
            for alias in statement.names:
                target = Target(module, alias.name) if module else None
                found.setdefault(alias.asname or alias.name, target)
    return found


def _answer(
    cache: ModuleFactsCache, entry: _ModuleEntry, name: str, file: Path, classes: bool = True
) -> ExternalFacts | Target | None:
    """The facts of `name` in one module, or where it is re-exported from (memoised).
    Without `classes` (the importer reads no class facts of the name), a lone class's facts
    are not worked out: no model is built for them."""
    if name not in entry.facts:
        parsed = cache.parsed_facts(file, entry)
        if parsed is None:
            return None
        if (
            not classes
            and name in parsed.pytree_classes
            and name in cache.lone_classes(file, entry)
        ):
            unhashable = parsed.unhashable_classes.get(name)
            if unhashable is not None:
                return ExternalFacts(False, unhashable_instances=unhashable)
            return _UNREAD_CLASS_FACTS
        if name in parsed.may_have_facts:  # else a class, a constant, ...: no model needed
            model = cache.model(file, entry)
            if model is None:
                return None
            facts = _facts_in_model(model, name)
            if facts is not None or name in model.functions:
                entry.facts[name] = facts
                return facts
        elif name in parsed.drawing_classes:  # a plain class: only its stored keys are read
            model = cache.model(file, entry)
            stored = _stored_key_draws(model, name) if model is not None else ()
            if stored:
                facts = ExternalFacts(False, stored_key_draws=stored)
                entry.facts[name] = facts
                return facts
        entry.facts[name] = parsed.reexports.get(name)
    return entry.facts[name]


class _Lookups:
    """The module files and module versions one computation read, each looked up once however
    often it is asked, and remembered so that the computation can tell later whether they
    still read the same (`still_hold`)."""

    def __init__(self, roots: tuple[Path, ...], cache: ModuleFactsCache) -> None:
        self._roots = roots
        self.cache = cache
        self._files: dict[str, Path | None] = {}
        self._entries: dict[Path, _ModuleEntry | None] = {}

    @property
    def roots(self) -> tuple[Path, ...]:
        return self._roots

    def file(self, module: str) -> Path | None:
        if module not in self._files:
            self._files[module] = module_file(module, self._roots)
        return self._files[module]

    def entry(self, module: str) -> tuple[Path, _ModuleEntry] | None:
        """The module's file and its version now, if it is a workspace module."""
        file = self.file(module)
        if file is None:
            return None
        if file not in self._entries:
            self._entries[file] = self.cache.entry(file)
        entry = self._entries[file]
        return (file, entry) if entry is not None else None

    def still_hold(self) -> bool:
        """Every module is found where it was, each file at the version read (an open
        document's text; a file's stamp, a stat each unless read within
        `STAMP_TRUST_SECONDS`)."""
        return all(
            module_file(module, self._roots) == file for module, file in self._files.items()
        ) and all(
            self.cache.entry(file, STAMP_TRUST_SECONDS) is entry
            for file, entry in self._entries.items()
        )


def engine_facts(target: Target, lookups: _Lookups, classes: bool = True) -> ExternalFacts | None:
    """The engine's answer for one imported callable (following re-exports), if it has one
    (a lone class's facts only if `classes`, see `_answer`)."""
    for _ in range(_MAX_REEXPORT_DEPTH):
        found = lookups.entry(target.module)
        if found is None:
            return None
        answer = _answer(lookups.cache, found[1], target.attribute, found[0], classes)
        if not isinstance(answer, Target):
            return answer
        target = answer
    return None


def _engine_value(
    target: Target, lookups: _Lookups, derived: bool, read: bool
) -> ExternalFacts | None:
    """The engine's facts for an imported module-level value or class (following
    re-exports): a PyTree class, or any class when the document `derived` from it, if the
    document may `read` its class facts at all (`class_readers`). A module whose text cannot
    assign or define the name nor re-export it is not parsed, and only the one assigning or
    defining it is modelled: most imported names are functions and plain classes."""
    cache = lookups.cache
    for _ in range(_MAX_REEXPORT_DEPTH):
        found = lookups.entry(target.module)
        if found is None:
            return None
        file, entry = found
        name = target.attribute
        if name in cache.line_start_definitions(file, entry):
            parsed = cache.parsed_facts(file, entry)
            if parsed is not None and name in parsed.assigned:
                answer = _answer(cache, entry, name, file)
                if isinstance(answer, ExternalFacts) and (
                    answer.value is not None
                    or answer.unhashable_value is not None
                    or answer.container_form is not None
                ):
                    return answer
                return None
            if parsed is not None and name in parsed.classes:
                if not read or (not derived and name not in parsed.pytree_classes):
                    return None
                return _class_answer(cache, entry, name, file)
        if not cache.may_reexport(file, entry, name):
            return None
        parsed = cache.parsed_facts(file, entry)
        following = parsed.reexports.get(name) if parsed is not None else None
        if following is None:
            return None
        target = following
    return None


def document_file(document: Document) -> str | None:
    """The document's file as an absolute path (None for "<unknown>" and the like)."""
    path = document.path
    return os.path.abspath(path) if path and not path.startswith("<") else None


def local_external_facts(
    document: Document, root: str | None, cache: ModuleFactsCache
) -> tuple[dict[str, ExternalFacts], dict[str, Target]]:
    """The engine's facts for the document's imported callables, and those it could not
    answer (for jedi). A keystroke rarely changes the imports or what they call: the last
    version's facts are reused while the modules they were read from are unchanged."""
    path = document_file(document)
    roots = search_roots(root, path)
    if not roots:
        return {}, {}
    bindings = imported_bindings(document, path, roots, cache)
    spelled = _spelled_callables(document, bindings)
    bases = base_names(document) if bindings[0] else frozenset()
    readers = class_readers(document, bindings)
    if "rngs" in document.text:  # `apply(..., rngs=...)`: whether the modules called draw
        readers = readers.union(spelled)
    return document.lineage.reuse_while(
        _workspace_facts, cache, roots, bindings, spelled, bases, readers
    )


class FactsRead:
    """Facts of a document's imported names as read from the modules they come from
    (`local_external_facts`), and how to tell whether they still hold without the document:
    `still_read()`, are those modules at the versions read; `read_again()`, the facts as
    they read now (the inputs the document gave, kept)."""

    def __init__(
        self,
        facts: dict[str, ExternalFacts],
        lookups: _Lookups,
        inputs: tuple[Bindings, dict[str, Target], frozenset[str], frozenset[str]],
    ) -> None:
        self.facts = facts
        self._lookups = lookups
        self._inputs = inputs

    def still_read(self) -> bool:
        return self._lookups.still_hold()

    __call__ = still_read  # the check `Lineage.reuse_while` asks

    def read_again(self) -> FactsRead:
        bindings, spelled, bases, readers = self._inputs
        lookups = _Lookups(self._lookups.roots, self._lookups.cache)
        return _read_facts(bindings, spelled, lookups, bases, readers)[1]


def last_external_facts(document: Document) -> FactsRead | None:
    """What `local_external_facts` last gave the document, and what it was read from; None
    if it was never asked, or reads no module of the project."""
    last = document.lineage.last_checked(_workspace_facts)
    return last[1] if last is not None else None  # type: ignore[return-value]


def _workspace_facts(
    cache: ModuleFactsCache,
    roots: tuple[Path, ...],
    bindings: Bindings,
    spelled: dict[str, Target],
    bases: frozenset[str],
    readers: frozenset[str],
) -> tuple[tuple[dict[str, ExternalFacts], dict[str, Target]], FactsRead]:
    return _read_facts(bindings, spelled, _Lookups(roots, cache), bases, readers)


def _read_facts(
    bindings: Bindings,
    spelled: dict[str, Target],
    lookups: _Lookups,
    bases: frozenset[str] = frozenset(),
    readers: frozenset[str] = frozenset(),
) -> tuple[tuple[dict[str, ExternalFacts], dict[str, Target]], FactsRead]:
    """`local_external_facts` read from the imported modules, and what they were read from
    (its `still_read` tells whether they still hold)."""
    facts: dict[str, ExternalFacts] = {}
    unanswered: dict[str, Target] = {}
    for spelling, target in spelled.items():
        found = engine_facts(target, lookups, spelling in readers)
        if found is not None:
            facts[spelling] = found
        else:
            unanswered[spelling] = target
    # Imported names that are not called: the values of those their modules bind once, the
    # fields of PyTree classes, the attributes of classes the document derives from.
    for local, target in bindings[0].items():
        if local not in facts and local not in unanswered:
            found = _engine_value(target, lookups, local in bases, local in readers)
            if found is not None:
                facts[local] = found
    # Classes of imported modules whose class facts are read (`state: envs.EnvState`).
    for spelling in readers:
        head, _, attribute = spelling.rpartition(".")
        if head in bindings[1] and spelling not in facts and spelling not in unanswered:
            found = _engine_value(Target(bindings[1][head], attribute), lookups, False, True)
            if found is not None:
                facts[spelling] = found
    for spelling in readers:
        known = facts.get(spelling)
        if known is not None and known.instance_fields is not None:
            target = spelled.get(spelling) or _reader_target(spelling, bindings)
            if target is not None:
                facts[spelling] = _with_imported_fields(known, target, lookups, 0)
    # Names (and modules) imported from a module that may build meshes with explicit axes: a
    # mesh, or an array placed on one, may come in through any of them. Held by the imported
    # name's spelling, as a call's facts are; a name called too keeps its call facts, and
    # jedi's answer for it takes the flag over (`external.with_answers`).
    for spelling in _from_explicit_mesh_modules(bindings, lookups):
        known = facts.get(spelling)
        facts[spelling] = (
            ExternalFacts(False, explicit_meshes=True)
            if known is None
            else replace(known, explicit_meshes=True)
        )
    return (facts, unanswered), FactsRead(facts, lookups, (bindings, spelled, bases, readers))


def _reader_target(spelling: str, bindings: Bindings) -> Target | None:
    """What an imported name (`Cls`) or a module's attribute (`module.Cls`) names."""
    names, modules = bindings
    if spelling in names:
        return names[spelling]
    head, _, attribute = spelling.rpartition(".")
    return Target(modules[head], attribute) if head in modules else None


_MAX_NESTED_CLASSES = 3  # a PyTree field of a PyTree field of ...


def _with_imported_fields(
    facts: ExternalFacts, target: Target, lookups: _Lookups, depth: int
) -> ExternalFacts:
    """The facts of a PyTree class with the fields its module declares with a PyTree class
    imported in turn (`pedestal: pedestal_params.RuntimeParams`) holding instances of it,
    whose own static fields stay Python values (`params.pedestal.mode`). Read through
    `lookups`, so that an edit of any module on the way is seen."""
    defined = _class_definition(target, lookups)
    if defined is None or depth >= _MAX_NESTED_CLASSES:
        return facts
    file, entry, node = defined
    document = lookups.cache.document(file, entry)
    if document is None:
        return facts
    bindings = imported_bindings(document, str(file), lookups.roots, lookups.cache)
    some, every = dict(facts.instance_fields or ()), dict(facts.leaf_instance_fields or ())
    for statement in node.body:
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            continue
        name = statement.target.id
        spelling = dotted_name(statement.annotation)
        held_target = _reader_target(spelling, bindings) if spelling else None
        if held_target is None or some.get(name) is Kind.STATIC:
            continue
        held = _engine_value(held_target, lookups, False, True)
        if held is None or held.instance_fields is None:
            continue
        held = _with_imported_fields(held, held_target, lookups, depth + 1)
        some[name] = Instance(spelling, held.instance_fields or ())
        every[name] = Instance(spelling, held.leaf_instance_fields or ())
    return replace(
        facts,
        instance_fields=tuple(sorted(some.items())),
        leaf_instance_fields=tuple(sorted(every.items())),
    )


def _class_definition(
    target: Target, lookups: _Lookups
) -> tuple[Path, _ModuleEntry, ast.ClassDef] | None:
    """The module file, version and class statement of the class `target` names, following
    re-exports."""
    cache = lookups.cache
    for _ in range(_MAX_REEXPORT_DEPTH):
        found = lookups.entry(target.module)
        if found is None:
            return None
        file, entry = found
        parsed = cache.parsed_facts(file, entry)
        if parsed is None:
            return None
        if target.attribute in parsed.classes:
            model = cache.model(file, entry)
            record = model.classes.get(target.attribute) if model is not None else None
            return (file, entry, record.node) if record is not None else None
        following = parsed.reexports.get(target.attribute)
        if following is None:
            return None
        target = following
    return None


def _from_explicit_mesh_modules(bindings: Bindings, lookups: _Lookups) -> list[str]:
    """The local names bound to something of a workspace module that may build a mesh with
    explicit axes: the module a name is imported from, or one it is re-exported from on the
    way to its definition; for a module alias, that module. Each module is looked up once
    (one stat of its file) however many names come from it."""
    names, modules = bindings
    cache = lookups.cache

    def meshes(module: str) -> bool:
        found = lookups.entry(module)
        return found is not None and cache.explicit_meshes(*found)

    marked = [local for local, module in modules.items() if meshes(module)]
    for local, target in names.items():
        for _ in range(_MAX_REEXPORT_DEPTH):
            found = lookups.entry(target.module)
            if found is None:
                break
            if cache.explicit_meshes(*found):
                marked.append(local)
                break
            if not cache.may_reexport(*found, target.attribute):
                break  # defined there (or unknown): its module does not build such meshes
            answer = _answer(cache, found[1], target.attribute, found[0], classes=False)
            if not isinstance(answer, Target):
                break
            target = answer
    return marked
