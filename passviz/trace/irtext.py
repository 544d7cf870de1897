"""Printing IR for traces: whole modules, single ops and attributes."""

from __future__ import annotations

from io import StringIO
from typing import ClassVar, cast

from xdsl.dialects.builtin import UnknownLoc
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.printer import Printer


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
        Printer(stream=stream).print_attribute(attr)
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


class _AliasCollector(Printer):
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


class _AliasingPrinter(Printer):
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
    Printer(stream=stream).print_attribute(attr)
    return stream.getvalue()


def op_text(op: Operation, names: dict[SSAValue, str], blocks: dict[Block, str] | None = None) -> str:
    """One op as text, naming SSA values (and successors, if ``blocks`` is given) by their trace ids.

    Nested regions are left out (``{...}``): the text stands for the op
    itself, and its nested ops have texts of their own.
    """
    if op.regions:
        return _region_op_text(op, names)
    stream = StringIO()
    printer = Printer(stream=stream)
    _preset_names(printer, op, names, blocks)
    try:
        printer.print_op(op)
    except Exception:
        stream = StringIO()
        printer = Printer(stream=stream, print_generic_format=True)
        _preset_names(printer, op, names, blocks)
        printer.print_op(op)
    return stream.getvalue()


def _preset_names(
    printer: Printer,
    op: Operation,
    names: dict[SSAValue, str],
    blocks: dict[Block, str] | None = None,
) -> None:
    """Make ``printer`` print the op's values (and successors) under their trace ids."""
    table = printer._ssa_values  # pyright: ignore[reportPrivateUsage]
    for value in (*op.operands, *op.results):
        name = names.get(value)
        if name is not None:
            table[value] = name
    if blocks is None:
        return
    block_table = printer._blocks  # pyright: ignore[reportPrivateUsage]
    for successor in op.successors:
        name = blocks.get(successor)
        if name is not None:
            block_table[successor] = name


def _region_op_text(op: Operation, names: dict[SSAValue, str]) -> str:
    """Generic-form header of an op with regions, regions shown as ``{...}``."""
    stream = StringIO()
    printer = Printer(stream=stream, print_generic_format=True)
    _preset_names(printer, op, names)
    if op.results:
        printer.print_list(op.results, printer.print_ssa_value)
        printer.print_string(" = ")
    printer.print_string(f'"{op.name}"(')
    printer.print_list(op.operands, printer.print_ssa_value)
    printer.print_string(")")
    if op.properties:
        printer.print_string(" <")
        printer.print_attr_dict(op.properties)
        printer.print_string(">")
    printer.print_string(" (" + ", ".join("{...}" for _ in op.regions) + ")")
    if op.attributes:
        printer.print_string(" ")
        printer.print_attr_dict(op.attributes)
    printer.print_string(" : ")
    printer.print_operation_type(op)
    return stream.getvalue()
