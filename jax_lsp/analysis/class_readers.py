"""The imported names whose class facts a module's model may read: those annotating a
parameter or a field bare, and those its classes derive from (`local_external_facts` asks for
these classes' facts, and for no other's)."""

from __future__ import annotations

import ast
import weakref

from jax_lsp.analysis.document import Document, UnitSource
from jax_lsp.analysis.nodes import dotted_name, lone_class, per_member, walk_statements
from jax_lsp.analysis.unit_memo import per_unit
from jax_lsp.analysis.workspace import Bindings


@per_unit
def _top_level_bases(source: UnitSource) -> frozenset[str]:
    tree = source.tree
    return frozenset(
        base.id
        for statement in tree.body
        if isinstance(statement, ast.ClassDef)
        for base in statement.bases
        if isinstance(base, ast.Name)
    )


def base_names(document: Document) -> frozenset[str]:
    """The names the document's top-level classes derive from (`class Agent(Base)`: Base)."""
    return document.lineage.union(_top_level_bases, document.parsed_sources)


@per_unit
def _unit_class_readers(source: UnitSource) -> frozenset[str]:
    tree = source.tree
    cls = lone_class(tree)
    if cls is None:
        return _class_fact_readers(tree)
    # member by member: an edit in a class shares the others' nodes
    return _class_fact_readers_of(cls).union(
        *per_member(cls, _MEMBER_CLASS_READERS, _class_fact_readers)
    )


def class_readers(document: Document, bindings: Bindings) -> frozenset[str]:
    """The spellings of imported names whose class facts the document's model may read:
    those that annotate a parameter of one of its functions or a field of one of its classes
    bare (`def step(state: EnvState)`, `params: config.Params`, where a PyTree class's fields
    are read: `ObjectFacts._imported_instances`) or that one of its classes derives from
    (`class Agent(Base)`, `Base[T]`, where the attributes instances hold are read:
    `ObjectFacts._imported_class_attributes`). Each unit's statements are walked once per
    text (a class member by member): cheaper than testing its text for the names at every
    keystroke."""
    names, modules = bindings
    if not names and not modules:
        return frozenset()
    found = document.lineage.union(_unit_class_readers, document.parsed_sources)
    return frozenset(
        spelling
        for spelling in found
        if spelling in names or spelling.rpartition(".")[0] in modules
    )


_MEMBER_CLASS_READERS: weakref.WeakKeyDictionary[ast.AST, frozenset[str]] = (
    weakref.WeakKeyDictionary()
)


def _class_fact_readers(root: ast.AST) -> frozenset[str]:
    """The names (`Cls`, `module.Cls`) that annotate a parameter bare or are a class's base,
    under `root`."""
    found: set[str] = set()
    for node in walk_statements(root):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = node.args
            for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
                if arg.annotation is not None and (spelling := _class_spelling(arg.annotation)):
                    found.add(spelling)
        elif isinstance(node, ast.ClassDef):
            found |= _class_fact_readers_of(node)
    return frozenset(found)


def _class_spelling(annotation: ast.expr) -> str | None:
    """The name an annotation gives a class by (`Cls`, `module.Cls`), `Cls | None` and
    `Optional[Cls]` included."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = [annotation.left, annotation.right]
        others = [s for s in sides if not (isinstance(s, ast.Constant) and s.value is None)]
        return dotted_name(others[0]) if len(others) == 1 else None
    if isinstance(annotation, ast.Subscript):
        head = dotted_name(annotation.value) or ""
        return dotted_name(annotation.slice) if head.rpartition(".")[2] == "Optional" else None
    return dotted_name(annotation)


def _class_fact_readers_of(node: ast.ClassDef) -> frozenset[str]:
    """The names a class statement derives from (`Base`, `Base[T]`), and those its fields
    are annotated with bare (`pedestal: params.Pedestal`)."""
    return frozenset(
        [
            *(
                base.id
                for base in (b.value if isinstance(b, ast.Subscript) else b for b in node.bases)
                if isinstance(base, ast.Name)
            ),
            *(
                spelling
                for statement in node.body
                if isinstance(statement, ast.AnnAssign)
                and (spelling := dotted_name(statement.annotation))
            ),
        ]
    )
