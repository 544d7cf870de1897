"""The package's layers depend only on the layers before them, and its modules form no new cycle.

Every import counts, those inside functions too (a function-level import is a dependency that
only shows at run time); those under ``if TYPE_CHECKING:`` do not (type checkers read them, the
program never runs them).  ``ORDER`` is the layering, lowest first; a module may import its own
layer and the ones before it.  Import cycles between modules are listed in ``KNOWN_CYCLES``: the
debt the layering issue names, to be paid down.  The list is exact both ways, so a new cycle
fails here, and so does a cycle that is gone but still listed (take it off).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1] / "passviz"

ORDER = [
    "version",
    "ir",
    "trace",
    "importer",
    "recording",
    "rewrite",
    "interpret",
    "compilers",
    "pipelines",
    "view",
    "run",
    "widget",
    "_ipython",
    "notebook",
    "cli",
    "__init__",
]
"""The layers, lowest first: the top-level modules and packages of ``passviz``.  ``interpret``
(the CPU interpreter's core) comes before ``compilers``, whose families add their ops' tables to
it; ``run`` (runs, bisection, the GPU) after them; ``widget`` after ``run`` (the run panel)."""

FAMILY_DEPENDENCIES: dict[str, set[str]] = {
    "mlir": set(),
    "triton": {"mlir"},
    "triton_shared": {"mlir", "triton"},
    "triton_linalg": {"mlir", "triton"},
    "iree": {"mlir"},
    "toy": {"mlir"},
}
"""The families each compiler family may import: upstream MLIR, and for triton-shared and
triton-linalg (which extend Triton) Triton.  No other code under ``compilers/`` but the registry
imports a family."""

GENERIC_LAYERS = ("ir", "trace", "importer", "recording", "rewrite", "interpret")
"""The layers that know no compiler family (nor does ``compilers/mlir``)."""

FAMILY_OP_NAME = re.compile(
    r"\b(?:tt|ttg|tts|toy|flow|hal|util|iree_tensor_ext|iree_encoding|check)\.[a-z_]+"
)
"""A family's op name, as code that names one spells it (``"tt.load"``, ``"toy.func"``)."""

FORBIDDEN_IN_TRACE = {"xdsl", "networkx", "ipywidgets", "IPython", "jupyterlab", "pyvis", "notebook"}
"""What the trace layer (pure data) never imports at run time, directly or through another module."""

KNOWN_CYCLES: frozenset[frozenset[str]] = frozenset(
    frozenset(cycle)
    for cycle in ()  # fmt: skip
)
"""Each known import cycle, by module name without ``passviz.`` (``trace/`` modules by their
name alone)."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in ROOT.rglob("*.py")}


def _type_checking(node: ast.AST) -> bool:
    """Whether ``node`` is ``if TYPE_CHECKING:`` (or ``if typing.TYPE_CHECKING:``)."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_time_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``tree`` that can run: all but the bodies of ``if TYPE_CHECKING:`` blocks
    (their ``else`` runs)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if _type_checking(node):
            assert isinstance(node, ast.If)
            todo.append(node.test)
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))


def _imports(path: Path) -> Iterator[str]:
    """The passviz modules ``path`` imports at run time, anywhere in it (inside functions too)."""
    modules = _modules()
    this = _module_name(path)
    package = this if path.name == "__init__.py" else this.rpartition(".")[0]
    for node in _run_time_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            # ``from P import n`` needs the module ``P.n`` if there is one, else ``P`` (n is in it).
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "lazy":
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                names = [first.value]
            elif isinstance(first, ast.JoinedStr):  # f"{_P}.module": the folder constant, then the rest
                names = [_joined(path, first)]
        for name in names:
            while name and name not in modules:  # a name imported from a module: the module
                name = name.rpartition(".")[0]
            if name.startswith("passviz") and name != this:
                yield name


def _joined(path: Path, text: ast.JoinedStr) -> str:
    """An f-string of the form ``f"{CONSTANT}.rest"`` with ``CONSTANT`` a module-level string of
    ``path``, spelled out."""
    constants = {
        target.id: node.value.value
        for node in ast.parse(path.read_text(encoding="utf-8")).body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
        for target in node.targets
        if isinstance(target, ast.Name) and isinstance(node.value.value, str)
    }
    parts: list[str] = []
    for value in text.values:
        if isinstance(value, ast.Constant):
            parts.append(str(value.value))
        elif isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name):
            parts.append(str(constants.get(value.value.id, "")))
    return "".join(parts)


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _graph() -> nx.DiGraph[str]:
    graph: nx.DiGraph[str] = nx.DiGraph()
    for module, path in _modules().items():
        graph.add_node(module)
        graph.add_edges_from((module, imported) for imported in _imports(path))
    return graph


def _family(module: str) -> str | None:
    """The compiler family ``module`` belongs to (``passviz.compilers.<family>...``), if any."""
    parts = module.split(".")
    return parts[2] if len(parts) > 3 and parts[1] == "compilers" else None


def test_families_import_only_what_they_build_on() -> None:
    wrong: list[str] = []
    for module, imported in _graph().edges:
        family, other = _family(module), _family(imported)
        if other is None or other == family or module == "passviz.compilers.registry":
            continue
        generic = _layer(module) in GENERIC_LAYERS or module.startswith("passviz.compilers.family")
        if (
            generic
            or family is None
            and _layer(module) == "compilers"
            or (family is not None and other not in FAMILY_DEPENDENCIES[family])
        ):
            wrong.append(f"{module} imports {imported}")
    assert not wrong, "\n".join(sorted(wrong))


def _strings(path: Path) -> Iterator[tuple[int, str]]:
    """The string constants of ``path`` that are no docstring, with their lines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def test_generic_code_names_no_family_op() -> None:
    named: list[str] = []
    for module, path in _modules().items():
        generic = _layer(module) in GENERIC_LAYERS or _family(module) == "mlir"
        if not generic:
            continue
        for line, text in _strings(path):
            for match in FAMILY_OP_NAME.finditer(text):
                named.append(f"{path.relative_to(ROOT.parent)}:{line}: {match.group(0)}")
    assert not named, "\n".join(named)


def _short(module: str) -> str:
    name = module.removeprefix("passviz.")
    return name.removeprefix("trace.") if module.startswith("passviz.trace.") else name


def test_every_module_is_in_a_layer() -> None:
    assert {_layer(module) for module in _modules()} <= set(ORDER)


def test_layers_import_only_earlier_layers() -> None:
    back = [
        f"{module} ({_layer(module)}) imports {imported} ({_layer(imported)})"
        for module, imported in _graph().edges
        if ORDER.index(_layer(imported)) > ORDER.index(_layer(module))
    ]
    assert not back, "\n".join(sorted(back))


def test_no_import_cycle_but_the_known_ones() -> None:
    cycles = {
        frozenset(map(_short, component))
        for component in nx.strongly_connected_components(_graph())
        if len(component) > 1
    }
    new = [sorted(cycle) for cycle in cycles - KNOWN_CYCLES]
    gone = [sorted(cycle) for cycle in KNOWN_CYCLES - cycles]
    assert not new, f"new import cycles: {new}"
    assert not gone, f"cycles listed in KNOWN_CYCLES that are gone or changed (update the list): {gone}"


def test_trace_layer_is_pure_python() -> None:
    for source in (ROOT / "trace").rglob("*.py"):
        for node in _run_time_nodes(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                for name in names:
                    assert name.split(".")[0] not in FORBIDDEN_IN_TRACE, f"{source} imports {name}"


def test_trace_layer_loads_no_xdsl() -> None:
    """Importing every trace module, in a fresh interpreter, loads nothing the layer forbids:
    not directly, not through the ``ir`` modules it shares (the region placeholder), not through
    ``passviz/__init__.py``."""
    modules = sorted(module for module in _modules() if _layer(module) == "trace")
    forbidden = sorted(FORBIDDEN_IN_TRACE)
    script = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {forbidden!r}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT.parent, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]", f"importing trace/ loads {done.stdout.strip()}"


_XDSL_PRIVATE_DEFINITION = re.compile(
    r"(?:\bdef|\bclass)\s+(_[A-Za-z0-9]\w*)"  # def _name, class _Name
    r"|^[ \t]*(_[A-Za-z0-9]\w*)[ \t]*(?::|=(?!=))"  # _name = ..., _name: T
    r"|\.(_[A-Za-z0-9]\w*)[ \t]*(?::[^=\n]*)?=(?!=)",  # self._name = ..., self._name: T = ...
    re.MULTILINE,
)
"""What defines a private name in xDSL's sources (read as text: parsing all of xDSL takes seconds)."""


def _xdsl_private_names() -> set[str]:
    """The private names (``_name``, not ``__name__``) xDSL's sources define."""
    import xdsl

    names: set[str] = set()
    for path in Path(xdsl.__file__).parent.rglob("*.py"):
        for match in _XDSL_PRIVATE_DEFINITION.finditer(path.read_text(encoding="utf-8")):
            names.update(group for group in match.groups() if group)
    return names


def _own_private_names(trees: list[ast.Module]) -> set[str]:
    """The private names passviz's modules ``trees`` define: functions, classes, and names and
    attributes assigned (``_name = ...``, ``self._name = ...``), but not what a class whose base
    is imported from xDSL assigns to ``self`` (the state it inherits: ``self._known_ops = ...``)."""
    names: set[str] = set()
    for tree in trees:
        from_xdsl = _names_from_xdsl(tree)
        inherited: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and any(_root_name(base) in from_xdsl for base in node.bases):
                inherited.update(
                    id(store)
                    for store in ast.walk(node)
                    if isinstance(store, ast.Attribute)
                    and isinstance(store.ctx, ast.Store)
                    and isinstance(store.value, ast.Name)
                    and store.value.id == "self"
                )
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and id(node) not in inherited
            ):
                names.add(node.attr)
    return {name for name in names if name.startswith("_") and not name.startswith("__") and name != "_"}


def _names_from_xdsl(tree: ast.Module) -> set[str]:
    """The names a module binds to what it imports from xDSL."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "xdsl":
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(
                (a.asname or a.name).split(".")[0] for a in node.names if a.name.split(".")[0] == "xdsl"
            )
    return names


def _root_name(node: ast.expr) -> str | None:
    """``a`` of ``a``, ``a.b.c`` and ``a[T]``."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


class _PrivateXdslUses(ast.NodeVisitor):
    """The uses of ``private`` names in one module of passviz, but for the overrides ``declared``
    (``(module.Class, name)``), which their class may use on ``self``, ``cls`` and ``super()``."""

    def __init__(self, module: str, private: set[str], declared: set[tuple[str, str]]) -> None:
        self.module = module
        self.private = private
        self.declared = declared
        self.classes: list[str] = []
        self.found: list[tuple[int, str]] = []

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append(node.name)
        self.generic_visit(node)
        self.classes.pop()

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if (node.module or "").split(".")[0] == "xdsl":
            self.found.extend((node.lineno, f"import {a.name}") for a in node.names if a.name.startswith("_"))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in self.private and not self._own_override(node):
            self.found.append((node.lineno, f".{node.attr}"))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.found.extend((node.lineno, f"{k.arg}=") for k in node.keywords if k.arg in self.private)
        if isinstance(node.func, ast.Name) and node.func.id in ("getattr", "setattr", "hasattr", "delattr"):
            if (
                len(node.args) > 1
                and isinstance(name := node.args[1], ast.Constant)
                and name.value in self.private
            ):
                self.found.append((node.lineno, f"{node.func.id}(..., {name.value!r})"))
        self.generic_visit(node)

    def _own_override(self, node: ast.Attribute) -> bool:
        receiver = node.value
        on_self = (isinstance(receiver, ast.Name) and receiver.id in ("self", "cls")) or (
            isinstance(receiver, ast.Call)
            and isinstance(receiver.func, ast.Name)
            and receiver.func.id == "super"
        )
        owner = f"{self.module}.{'.'.join(self.classes)}"
        return on_self and bool(self.classes) and (owner, node.attr) in self.declared


def test_only_xdsl_compat_uses_private_xdsl_names() -> None:
    """Only ``passviz/ir/xdsl_compat.py`` uses xDSL's private names, so an xDSL upgrade fails there.

    A private xDSL name is one xDSL's sources define (``def _name``, ``class _Name``,
    ``_name = ...``, ``self._name = ...``), less passviz's own private names (defined outside the
    compat module, and not as an override it lists): an attribute's receiver cannot be typed
    here, so ``x._stream`` on passviz's own objects must pass.  A use is ``x._name`` (read,
    written or called), ``f(_name=...)``, ``getattr(x, "_name")``, or ``from xdsl... import
    _name``; the overrides ``xdsl_compat.OVERRIDES`` lists are their class's own, on ``self``,
    ``cls`` and ``super()``."""
    from passviz.ir.xdsl_compat import OVERRIDES

    compat = ROOT / "ir" / "xdsl_compat.py"
    trees = {
        path: ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(ROOT.rglob("*.py"))
        if path != compat
    }
    overridden = {override.name for override in OVERRIDES}
    private = _xdsl_private_names() - (_own_private_names(list(trees.values())) - overridden)
    declared = {(override.by, override.name) for override in OVERRIDES}
    found: list[str] = []
    for path, tree in trees.items():
        relative = path.relative_to(ROOT.parent)
        module = ".".join(relative.with_suffix("").parts).removesuffix(".__init__")
        uses = _PrivateXdslUses(module, private, declared)
        uses.visit(tree)
        found.extend(f"{relative}:{line}: {what}" for line, what in uses.found)
    assert not found, "private xDSL names outside passviz/ir/xdsl_compat.py:\n" + "\n".join(found)
