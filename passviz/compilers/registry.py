"""The registry of compiler families: every family passviz knows, and what generic code asks of
them (a context with their dialects, their passes and pipelines, their interpreter functions,
the syntax versions and aliases a trace records).

Adding a family is one folder under ``passviz/compilers/`` with a ``family.py``, and one line in
``FAMILIES``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager

from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.interpreter import InterpreterFunctions
from xdsl.passes import ModulePass
from xdsl.transforms import get_all_passes

from passviz.compilers.family import DialectLoader, Family, PassLoader
from passviz.compilers.iree.family import FAMILY as IREE
from passviz.compilers.mlir.family import FAMILY as MLIR
from passviz.compilers.toy.family import FAMILY as TOY
from passviz.compilers.triton.family import FAMILY as TRITON
from passviz.compilers.triton_linalg.family import FAMILY as TRITON_LINALG
from passviz.compilers.triton_shared.family import FAMILY as TRITON_SHARED
from passviz.ir.names import keep_suffix_only_names
from passviz.trace.model import DispatchVocabulary

FAMILIES: tuple[Family, ...] = (MLIR, TRITON, TRITON_SHARED, TRITON_LINALG, IREE, TOY)
"""Every family, upstream MLIR first (the others build on it)."""


def make_context(*, allow_unregistered: bool = False) -> Context:
    """A context that knows every xDSL dialect and every family's.

    Dialects are registered lazily, so parsing only pays for the ones used.
    The families' dialects take precedence over xDSL ones of the same name.
    """
    keep_suffix_only_names()  # Triton's frontend names values %_0
    ctx = Context(allow_unregistered=allow_unregistered)
    ours = _family_dialects()
    for name, factory in get_all_dialects().items():
        if name not in ours:
            ctx.register_dialect(name, factory)
    for name, factory in ours.items():
        ctx.register_dialect(name, factory)
    return ctx


def _family_dialects() -> dict[str, DialectLoader]:
    return {name: loader for family in FAMILIES for name, loader in family.dialects.items()}


def traced_passes() -> dict[str, PassLoader]:
    """The families' passes, recorded rewrite by rewrite, by name."""
    return {name: loader for family in FAMILIES for name, loader in family.passes.items()}


def available_passes() -> dict[str, PassLoader]:
    """Every pass a pipeline may name: the families' override xDSL's."""
    xdsl: dict[str, PassLoader] = dict(get_all_passes())
    return {**xdsl, **traced_passes()}


ALIASED_ATTRIBUTES: Mapping[str, str] = {
    prefix: alias for family in FAMILIES for prefix, alias in family.aliases.items()
}
"""The attributes printed by alias (``passviz.ir.printer.AliasedAttribute``): how each one's text
begins, and its alias.  A trace records it (``meta.aliases``) so that the viewer aliases what the
CLI aliases; declared by the families so that recording loads no dialect it does not use, and
checked against the classes by ``tests/test_alias_layout.py``."""


class _NamedPipelines(Mapping[str, str]):
    """The pipelines a spec may name as one pass, as the families' versions choose them here."""

    def __getitem__(self, name: str) -> str:
        for family in FAMILIES:
            if name in family.pipelines:
                return family.pipelines[name].spec()
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return (name for family in FAMILIES for name in family.pipelines)

    def __len__(self) -> int:
        return sum(len(family.pipelines) for family in FAMILIES)


NAMED_PIPELINES: Mapping[str, str] = _NamedPipelines()
"""Pipelines a spec may name as one pass: ``make-ttir`` (the ``make_ttir`` of the Triton passviz
behaves as), ``toy-ch3`` to ``toy-ch6`` (the Toy tutorial's ``toyc -opt``), ``iree-flow``."""


def pipeline_summary(name: str) -> str:
    """One line saying what the named pipeline ``name`` is and runs."""
    for family in FAMILIES:
        if name in family.pipelines:
            origin = family.describe(family.pipelines[name].origin) or "runs"
            return f"{origin}: {family.pipelines[name].spec().replace(',', ', ')}."
    raise KeyError(name)


def recorded_dispatch() -> DispatchVocabulary | None:
    """What a trace records of the ops its dispatch graph is drawn from (its ``meta.dispatch``):
    the one family that defines them, if any."""
    defined = [family for family in FAMILIES if family.dispatch is not None]
    if len(defined) > 1:
        raise ValueError(f"more than one family defines a dispatch graph: {[f.name for f in defined]}")
    return defined[0].dispatch.recorded() if defined and defined[0].dispatch is not None else None


def recorded_syntax() -> dict[str, str]:
    """What a trace records of the syntax its IR texts are written in (its ``meta.syntax``)."""
    return {family.syntax.key: family.syntax.current() for family in FAMILIES if family.syntax is not None}


@contextmanager
def use_recorded_syntax(syntax: Mapping[str, str] | None) -> Iterator[None]:
    """Read and print IR as the trace whose ``meta.syntax`` is ``syntax`` was written; what it
    records nothing of (a trace written before passviz recorded it) reads as installed here."""
    with ExitStack() as stack:
        for family in FAMILIES:
            if family.syntax is not None:
                stack.enter_context(family.syntax.scope((syntax or {}).get(family.syntax.key)))
        yield


def syntax_problems(syntax: Mapping[str, str] | None) -> list[str]:
    """What is unusable in a trace's ``meta.syntax`` (each then reads as installed here)."""
    problems: list[str] = []
    for family in FAMILIES:
        recorded = (syntax or {}).get(family.syntax.key) if family.syntax is not None else None
        if family.syntax is not None and recorded is not None:
            problem = family.syntax.problem(recorded)
            if problem is not None:
                problems.append(problem)
    return problems


def interpreter_functions() -> tuple[InterpreterFunctions, ...]:
    """Every family's op implementations for the CPU interpreter."""
    return tuple(functions for family in FAMILIES for functions in family.interpreter())


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
"""Where a sentence ends: after ``.``, ``!`` or ``?``, before the next one's capital."""

_RST_MARKUP = re.compile(r"(?::\w+:)?`+([^`]*)`+")
"""RST inline literals and roles (````x````, ```x```, ``:class:`x```)."""


def pass_summary(pass_type: type[ModulePass] | type) -> str:
    """The first sentence of ``pass_type``'s own docstring, on one line, without RST markup.

    Empty when the class has no docstring of its own (a dataclass's generated
    ``Name(field: type)`` does not count).  The sentence is never cut.
    """
    doc = pass_type.__doc__ or ""
    if doc.startswith(f"{pass_type.__name__}("):
        return ""
    paragraph = " ".join(doc.strip().split("\n\n")[0].split())
    sentence = _SENTENCE_END.split(paragraph, maxsplit=1)[0]
    return _RST_MARKUP.sub(r"\1", sentence)
