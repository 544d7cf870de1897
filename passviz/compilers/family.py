"""The protocol through which a compiler family registers itself with passviz.

A family is one folder under ``passviz/compilers/`` (its dialects, passes, pipelines, interpreter
functions and display hints side by side) and one ``Family`` value in its ``family.py``, listed
once in ``passviz.compilers.registry.FAMILIES``.  Everything a family brings is reached through
loaders, so that naming a family imports none of its dialects or passes: a pipeline pays only for
what it uses.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialect_interfaces import DialectInterface
from xdsl.interpreter import InterpreterFunctions
from xdsl.ir import Dialect
from xdsl.passes import ModulePass

from passviz.trace.model import DispatchVocabulary


def lazy(module: str, name: str) -> Callable[[], Any]:
    """Loads ``name`` from ``module`` when called: how a family names what it brings without
    importing it.  ``tests/test_layers.py`` counts each ``lazy`` call as an import of ``module``."""

    def load() -> Any:
        return getattr(importlib.import_module(module), name)

    load.__qualname__ = f"lazy({module}.{name})"
    return load


DialectLoader = Callable[[], Dialect]
"""Imports and returns one dialect."""

PassLoader = Callable[[], type[ModulePass]]
"""Imports and returns one pass class."""

InterfaceLoader = Callable[[], type[DialectInterface]]
"""Imports and returns one dialect interface class."""


def extended(load: DialectLoader, *interfaces: InterfaceLoader) -> DialectLoader:
    """Loads ``load``'s dialect with ``interfaces`` added to its own: MLIR's dialect extension
    (``DialectRegistry::addExtension`` calling ``Dialect::addInterfaces``).

    Generic passes find a dialect's interfaces in the context: the inliner's
    (``passviz.rewrite.inliner``) and the canonicalizer's (``passviz.rewrite.canonicalization``).
    A family attaches them this way to a dialect whose module cannot import them (they import its
    ops) or that it takes from xDSL; a dialect that can holds its own, as MLIR's do."""

    def extend() -> Dialect:
        dialect = load()
        own: list[DialectInterface] = list(dialect._interfaces)  # pyright: ignore[reportPrivateUsage]
        added = [interface() for interface in (loader() for loader in interfaces)]
        return Dialect(dialect.name, list(dialect.operations), list(dialect.attributes), [*own, *added])

    extend.__qualname__ = f"extended({getattr(load, '__qualname__', load)})"
    return extend


@dataclass(frozen=True)
class NamedPipeline:
    """A pipeline a spec may name as one pass (``make-ttir``, ``toy-ch5``, ``iree-flow``)."""

    origin: str
    """What it reproduces, for ``passviz pipelines`` (``{major}``/``{minor}`` filled in by the
    family's ``describe``)."""
    spec: Callable[[], str]
    """Its passes as a pipeline spec; a function, since a family's version may choose them."""


@dataclass(frozen=True)
class Syntax:
    """How a family's IR text depends on a version the trace must record (``meta.syntax``)."""

    key: str
    """Its key in ``meta.syntax``."""
    current: Callable[[], str]
    """The version the family's dialects read and print as here."""
    scope: Callable[[str | None], AbstractContextManager[object]]
    """Enters the recorded version (None: the trace records none) while IR is parsed and printed."""
    problem: Callable[[str], str | None]
    """Why a recorded value is unusable (it reads as ``current`` then), or None."""


@dataclass(frozen=True)
class DispatchHints:
    """How a family's IR reads as a dispatch graph (what IREE's ``--iree-flow-dump-dispatch-graph``
    draws): the ops that play each part.  A trace records them (``meta.dispatch``), so that the
    viewer and ``passviz.view.dispatch`` draw the graph from the trace, naming no op themselves."""

    dispatch_ops: tuple[str, ...]
    """The ops that are one dispatch each, whatever they hold."""
    function_ops: tuple[str, ...]
    """The functions at the top of the module whose bodies the graph draws."""
    return_ops: tuple[str, ...]
    """Their returns."""
    plumbing_ops: tuple[str, ...]
    """Ops in a dispatch that move its tensors in and out rather than compute: no member of it."""
    container_ops: tuple[str, ...]
    """Ops besides functions whose bodies a dispatch's or executable's members are looked for in."""
    executable_op: str
    """The op an outlined dispatch calls, drawn as a node of its own."""
    call_op: str
    """The outlined dispatch, which calls an executable."""
    entry_points: str
    """The call's attribute naming what it calls (``[@executable::@entry]``)."""

    def recorded(self) -> DispatchVocabulary:
        """As a trace records it (``meta.dispatch``)."""
        return DispatchVocabulary(
            dispatch_ops=list(self.dispatch_ops),
            function_ops=list(self.function_ops),
            return_ops=list(self.return_ops),
            plumbing_ops=list(self.plumbing_ops),
            container_ops=list(self.container_ops),
            executable_op=self.executable_op,
            call_op=self.call_op,
            entry_points=self.entry_points,
        )


@dataclass(frozen=True)
class Family:
    """What one compiler family brings to passviz."""

    name: str
    """The family's folder under ``passviz/compilers/``."""
    dialects: Mapping[str, DialectLoader] = field(default_factory=lambda: dict[str, DialectLoader]())
    """Its dialects by name; they take precedence over xDSL's of the same name.  A loader may
    add interfaces to the dialect (``extended``), xDSL's too."""
    passes: Mapping[str, PassLoader] = field(default_factory=lambda: dict[str, PassLoader]())
    """Its passes by pipeline name, recorded rewrite by rewrite."""
    pipelines: Mapping[str, NamedPipeline] = field(default_factory=lambda: dict[str, NamedPipeline]())
    """Pipelines a spec may name as one pass."""
    interpreter: Callable[[], Sequence[InterpreterFunctions]] = lambda: ()
    """The CPU interpreter's implementations of its ops."""
    aliases: Mapping[str, str] = field(default_factory=lambda: dict[str, str]())
    """Attributes its printer aliases: how each one's text begins, and its alias (``#blocked``).
    A trace records them (``meta.aliases``), so the viewer aliases what the CLI aliases."""
    syntax: Syntax | None = None
    """The version its syntax depends on, if any."""
    dispatch: DispatchHints | None = None
    """How its IR reads as a dispatch graph, if it has one.  A trace records it (``meta.dispatch``)."""
    describe: Callable[[str], str] = lambda origin: origin
    """Fills the family's version into a named pipeline's ``origin``."""
