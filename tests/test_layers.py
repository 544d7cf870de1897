"""The package's layers depend only on the layers before them."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "passviz"
# run comes before widget: the widget's run panel executes the IR through it.
ORDER = ["ir", "trace", "dialects", "passes", "pipelines", "graph", "run", "widget", "backend", "cli"]
FORBIDDEN_IN_TRACE = {"networkx", "ipywidgets", "IPython", "jupyterlab", "pyvis", "notebook"}


def _layer(path: Path) -> str | None:
    rel = path.relative_to(ROOT).parts
    name = rel[0].removesuffix(".py")
    return name if name in ORDER else None


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_layers_import_only_earlier_layers() -> None:
    for source in ROOT.rglob("*.py"):
        layer = _layer(source)
        if layer is None:
            continue
        for module in _imports(source):
            parts = module.split(".")
            if parts[0] != "passviz" or len(parts) < 2 or parts[1] not in ORDER:
                continue
            assert ORDER.index(parts[1]) <= ORDER.index(layer), f"{source}: {layer} imports {module}"


def test_trace_layer_is_pure_python() -> None:
    for source in (ROOT / "trace").rglob("*.py"):
        for module in _imports(source):
            assert module.split(".")[0] not in FORBIDDEN_IN_TRACE, f"{source} imports {module}"
