"""The package's layers depend only on the layers before them, and its modules form no new cycle.

Every import counts, those inside functions too (a function-level import is a dependency that
only shows at run time).  ``ORDER`` is the layering, lowest first; a module may import its own
layer and the ones before it.  Import cycles between modules are listed in ``KNOWN_CYCLES``: the
debt the layering issue names, to be paid down.  The list is exact both ways, so a new cycle
fails here, and so does a cycle that is gone but still listed (take it off).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1] / "passviz"

ORDER = [
    "version",
    "ir",
    "trace",
    "dialects",
    "passes",
    "pipelines",
    "graph",
    "run",
    "toy",
    "widget",
    "_ipython",
    "notebook",
    "cli",
    "__init__",
]
"""The layers, lowest first: the top-level modules and packages of ``passviz``.  ``run`` comes
before ``widget`` (the run panel executes IR through it), ``toy`` after ``run`` (its ``-emit=jit``
and interpreter use the run layer's)."""

FORBIDDEN_IN_TRACE = {"networkx", "ipywidgets", "IPython", "jupyterlab", "pyvis", "notebook"}

KNOWN_CYCLES: frozenset[frozenset[str]] = frozenset(
    frozenset(cycle)
    for cycle in (
        # trace/: the data model reaches up to replay, printing and queries through imports in functions
        ("apply", "envelope", "initial", "irtext", "model", "query", "replay", "shadow", "store", "summary"),
        # the tt ops find their canonicalization patterns, which import the ops (a family's
        # registration with the canonicalizer would end it)
        (
            "dialects.tt",
            "dialects.tt.control",
            "dialects.tt.dot",
            "dialects.tt.elementwise",
            "dialects.tt.memory",
            "dialects.tt.pointer",
            "dialects.tt.region",
            "dialects.tt.tensor",
            "dialects.tt.traits",
            "dialects.tt_canonicalization",
        ),
    )  # fmt: skip
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


def _imports(path: Path) -> Iterator[str]:
    """The passviz modules ``path`` imports, anywhere in it (inside functions too)."""
    modules = _modules()
    this = _module_name(path)
    package = this if path.name == "__init__.py" else this.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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
        for name in names:
            while name and name not in modules:  # a name imported from a module: the module
                name = name.rpartition(".")[0]
            if name.startswith("passviz") and name != this:
                yield name


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _graph() -> nx.DiGraph[str]:
    graph: nx.DiGraph[str] = nx.DiGraph()
    for module, path in _modules().items():
        graph.add_node(module)
        graph.add_edges_from((module, imported) for imported in _imports(path))
    return graph


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
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                for name in names:
                    assert name.split(".")[0] not in FORBIDDEN_IN_TRACE, f"{source} imports {name}"
