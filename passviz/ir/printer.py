"""Printing IR for traces: whole modules, single ops and attributes."""

from __future__ import annotations

import math
from io import StringIO
from typing import ClassVar, cast

from xdsl.dialects.builtin import AffineMapAttr, AnyFloat, UnknownLoc
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, IsTerminator

from passviz.ir.affine_text import affine_map_text
from passviz.ir.placeholder import REGION_PATTERN, REGION_PLACEHOLDER
from passviz.ir.xdsl_compat import block_names, indent_level, value_names


class MlirPrinter(Printer):
    """xDSL's printer, writing affine maps as MLIR does (``d2 * 2 + d1``, not ``((d2 * 2) + d1)``),
    and a NaN's or an infinity's bits in upper-case hex as MLIR does (``0xFF800000``)."""

    def print_attribute(self, attribute: Attribute) -> None:
        if isinstance(attribute, AffineMapAttr):
            self.print_string(f"affine_map<{affine_map_text(attribute.data)}>")
            return
        super().print_attribute(attribute)

    def print_float(self, value: float, type: AnyFloat) -> None:
        if math.isnan(value) or math.isinf(value):
            self.print_string(f"0x{type.pack((value,))[::-1].hex().upper()}")
            return
        super().print_float(value, type)


def print_module(op: Operation) -> str:
    """Print ``op`` in custom syntax, or in generic syntax if a custom printer fails.

    Half-rewritten IR (a block without terminator, say) can trip a custom
    printer; the generic form always prints.
    """
    try:
        return _print(op, generic=False)
    except Exception:
        return _print(op, generic=True)


def _print(op: Operation, *, generic: bool) -> str:
    first = StringIO()
    collector = _AliasCollector(stream=first, print_generic_format=generic)
    collector.print_op(op)
    aliases = collector.aliases()
    if not aliases:  # the usual case: the first print is the text
        first.write("\n")
        return first.getvalue()
    stream = StringIO()
    for attr, name in aliases.items():
        stream.write(f"#{name} = ")
        MlirPrinter(stream=stream).print_attribute(attr)
        stream.write("\n")
    _AliasingPrinter(aliases, stream=stream, print_generic_format=generic).print_op(op)
    stream.write("\n")
    return stream.getvalue()


class AliasedAttribute:
    """An attribute that modules print by alias: ``#blocked = #ttg.blocked<...>``
    above the module and ``#blocked`` where it is used, as MLIR's printer does
    for attributes that a dialect's ``OpAsmDialectInterface::getAlias`` names.
    """

    ASM_ALIAS: ClassVar[str]
    """The alias's name; the second of a kind is ``name1``, and so on."""


class _AliasCollector(MlirPrinter):
    """A printer that notes the aliased attributes in the order it prints them."""

    def __init__(self, *, stream: StringIO, print_generic_format: bool) -> None:
        super().__init__(stream=stream, print_generic_format=print_generic_format)
        self._seen: dict[Attribute, None] = {}

    def print_attribute(self, attribute: Attribute) -> None:
        if isinstance(attribute, AliasedAttribute):
            self._seen.setdefault(attribute)
        super().print_attribute(attribute)

    def aliases(self) -> dict[Attribute, str]:
        """Each aliased attribute with its alias, numbered per kind in the order first printed."""
        counts: dict[str, int] = {}
        aliases: dict[Attribute, str] = {}
        for attribute in self._seen:
            base = cast(AliasedAttribute, attribute).ASM_ALIAS
            count = counts.get(base, 0)
            counts[base] = count + 1
            aliases[attribute] = f"{base}{count}" if count else base
        return aliases


class _AliasingPrinter(MlirPrinter):
    """A printer that prints the attributes of ``aliases`` by their alias."""

    def __init__(
        self, aliases: dict[Attribute, str], *, stream: StringIO, print_generic_format: bool
    ) -> None:
        super().__init__(stream=stream, print_generic_format=print_generic_format)
        self._aliases = aliases

    def print_attribute(self, attribute: Attribute) -> None:
        name = self._aliases.get(attribute) if isinstance(attribute, AliasedAttribute) else None
        if name is None:
            super().print_attribute(attribute)
            return
        self.print_string(f"#{name}")


class AttrPrinter:
    """Prints attributes and types to text, caching the text of each one.

    Attributes are immutable, so their text never changes; the cache keeps a
    trace of ten thousand ``arith.constant``s from printing ``i32`` each time.
    """

    def __init__(self) -> None:
        self._cache: dict[Attribute, str] = {}

    def text(self, attr: Attribute) -> str:
        """The printed form of ``attr``."""
        try:
            cached = self._cache.get(attr)
        except TypeError:  # an unhashable attribute: print it every time
            return _attr_text(attr)
        if cached is None:
            cached = _attr_text(attr)
            self._cache[attr] = cached
        return cached

    def loc_text(self, loc: Attribute) -> str | None:
        """The text of a location, or None for an unknown one."""
        if isinstance(loc, UnknownLoc):
            return None
        return self.text(loc)


def _attr_text(attr: Attribute) -> str:
    stream = StringIO()
    MlirPrinter(stream=stream).print_attribute(attr)
    return stream.getvalue()


def op_text(op: Operation, names: dict[SSAValue, str], blocks: dict[Block, str] | None = None) -> str:
    """One op as text, naming SSA values (and successors, if ``blocks`` is given) by their trace ids.

    The op prints in its custom syntax where it has one.  Nested regions are
    left out: each prints as a placeholder (``passviz.ir.placeholder.REGION_PLACEHOLDER``), since
    the text stands for the op itself and its nested ops have texts of their
    own; viewers expand the placeholders to print the whole module.
    """
    for generic in (False, True):
        stream = StringIO()
        printer = _PlaceholderPrinter(stream=stream, print_generic_format=generic)
        _preset_names(printer, op, names, blocks)
        try:
            printer.print_op(op)
        except Exception:
            if generic:
                raise
            continue
        return _empty_regions_marked(op, stream.getvalue())
    raise AssertionError("unreachable")


_EMPTY_REGION = "{\n}"
"""How xDSL prints an empty region, and how a custom printer that skips ``print_region`` for an
empty body writes it (``builtin.module {\n}``)."""


def _empty_regions_marked(op: Operation, text: str) -> str:
    """``text`` with each empty region its custom printer wrote out by hand as a placeholder, so
    that the ops a later step puts in the region show in the text the trace holds for the op."""
    missing = len(op.regions) - len(REGION_PATTERN.findall(text))
    if missing <= 0 or text.count(_EMPTY_REGION) != missing:
        return text
    flags = "-scope" if op.has_trait(IsolatedFromAbove) else ""
    return text.replace(_EMPTY_REGION, REGION_PLACEHOLDER.replace("}", flags + "}"))


class _PlaceholderPrinter(MlirPrinter):
    """A printer that writes each region as a placeholder, noting how the op's syntax prints it."""

    _placeholders: int = 0
    """How many placeholders it wrote: the place of the next one."""

    def print_region(
        self,
        region: Region,
        print_entry_block_args: bool = True,
        print_empty_block: bool = True,
        print_block_terminators: bool = True,
    ) -> None:
        entry = region.blocks.first
        flags = "-args" if entry is not None and entry.args and not print_entry_block_args else ""
        if not print_block_terminators and all(_ends_in_terminator(block) for block in region.blocks):
            # The syntax leaves the terminators out; a body without one (``flow.executable``'s,
            # whose terminator is implicit) shows all its ops.
            flags += "-term"
        if (op := region.parent_op()) is not None:
            if op.has_trait(IsolatedFromAbove):
                flags += "-scope"
            if (index := op.regions.index(region)) != self._placeholders:
                flags += f"-r{index}"
        self._placeholders += 1
        if (levels := indent_level(self)) > 0:
            flags += f"-i{levels}"
        self.print_string(REGION_PLACEHOLDER.replace("}", flags + "}"))


def _ends_in_terminator(block: Block) -> bool:
    return (last := block.last_op) is not None and last.has_trait(IsTerminator)


def _preset_names(
    printer: Printer,
    op: Operation,
    names: dict[SSAValue, str],
    blocks: dict[Block, str] | None = None,
) -> None:
    """Make ``printer`` print the op's values (and successors) under their trace ids.

    The arguments of its regions' blocks are named too: custom syntax shows
    the entry block's arguments in the op's header (``func.func @f(%v0: i32)``).
    """
    table = value_names(printer)
    held = (arg for region in op.regions for block in region.blocks for arg in block.args)
    for value in (*op.operands, *op.results, *held):
        name = names.get(value)
        if name is not None:
            table[value] = name
    if blocks is None:
        return
    block_table = block_names(printer)
    for successor in op.successors:
        name = blocks.get(successor)
        if name is not None:
            block_table[successor] = name
