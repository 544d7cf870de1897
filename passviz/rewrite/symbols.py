"""Symbols as MLIR's passes see them (``mlir/IR/SymbolTable.h``): which ops are symbols, and
the symbol references an op holds.  Shared by ``symbol-dce``, ``sccp`` and the call graph."""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, SymbolRefAttr
from xdsl.ir import Attribute, Operation, ParametrizedAttribute
from xdsl.traits import SymbolOpInterface
from xdsl.utils.symbol_table import SymbolTable as Symbols
from xdsl.utils.symbol_table import Visibility

from passviz.ir.hints import isa


def is_symbol(op: Operation) -> bool:
    """``isa<SymbolOpInterface>``: the op implements the interface and has a name."""
    return op.has_trait(SymbolOpInterface) and op.get_attr_or_prop("sym_name") is not None


def is_private(op: Operation) -> bool:
    """Whether ``op`` is a symbol with private visibility."""
    return is_symbol(op) and Symbols.get_symbol_visibility(op) is Visibility.PRIVATE


def op_symbol_refs(op: Operation) -> Iterator[SymbolRefAttr]:
    """The symbol references in the properties and attributes of ``op`` itself."""
    for attr in (*op.properties.values(), *op.attributes.values()):
        yield from _refs_in_attr(attr)


def _refs_in_attr(attr: Attribute) -> Iterator[SymbolRefAttr]:
    if isinstance(attr, SymbolRefAttr):
        yield attr
    elif isa(attr, ArrayAttr[Attribute]):
        for element in attr.data:
            yield from _refs_in_attr(element)
    elif isinstance(attr, DictionaryAttr):
        for element in attr.data.values():
            yield from _refs_in_attr(element)
    elif isinstance(attr, ParametrizedAttribute):
        for parameter in attr.parameters:
            yield from _refs_in_attr(parameter)
