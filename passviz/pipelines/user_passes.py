"""The passes a user brings: loaded from a Python file or an importable module."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import re
import sys
from pathlib import Path

from xdsl.passes import ModulePass

from passviz.ir.errors import PipelineError


def load_pass_module(source: str) -> dict[str, type[ModulePass]]:
    """The passes defined in a Python file or importable module, by name.

    This is how a user's own passes and patterns (the ones being debugged)
    join a pipeline: ``passviz trace in.mlir --passes-from my_passes.py -p my-pass``.
    """
    path = Path(source)
    try:
        if path.suffix == ".py":
            spec = importlib.util.spec_from_file_location(_private_module_name(path), path)
            if spec is None or spec.loader is None:
                raise PipelineError(f"cannot load passes from {source}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module  # dataclasses look their module up there
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(source)
    except PipelineError:
        raise
    except Exception as exc:
        raise PipelineError(f"cannot load passes from {source}: {exc}") from None
    found: dict[str, type[ModulePass]] = {}
    for value in vars(module).values():
        if (
            isinstance(value, type)
            and issubclass(value, ModulePass)
            and value.__module__ == module.__name__
            and isinstance(getattr(value, "name", None), str)
            and not inspect.isabstract(value)
        ):
            found[value.name] = value
    return found


def _private_module_name(path: Path) -> str:
    """A module name for the user's file ``path`` that no importable module has.

    The file is registered in ``sys.modules`` (dataclasses look their module up
    there), so ``typing.py`` must not go in as ``typing``: the name is made from
    the file's stem and a digest of its full path."""
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    stem = re.sub(r"\W", "_", path.stem)
    return f"_passviz_user_{stem}_{digest}"
