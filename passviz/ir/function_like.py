"""The fields of a function op spelled like ``func.func``.

``FunctionLikeOp`` holds what MLIR's ``FunctionOpInterface`` gives such an op
(``tt.func``, ``util.func``): a body, a symbol name and visibility, a
signature, and per-argument and per-result attribute dictionaries, all
properties. An op adds its traits, its own fields (after these in the op's
definition: xDSL lists a subclass's fields first) and its syntax, usually
``parse_function``/``print_function`` of ``passviz.ir.op_syntax`` with
``FUNCTION_LIKE_FIELDS`` among the names its ``attributes {...}`` may not
write.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, StringAttr, SymbolNameConstraint
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation, opt_prop_def, prop_def, region_def
from xdsl.utils.exceptions import VerifyException

FUNCTION_LIKE_FIELDS: tuple[str, ...] = (
    "sym_name",
    "function_type",
    "sym_visibility",
    "arg_attrs",
    "res_attrs",
)
"""The properties of ``FunctionLikeOp``, which ``attributes {...}`` may not write."""


class FunctionLikeOp(IRDLOperation):
    """A function op's body, name, visibility, signature and argument and
    result attributes (not an op itself: subclasses name the op)."""

    body = region_def()
    """The body; empty for an external declaration."""

    sym_name = prop_def(SymbolNameConstraint())
    """The symbol name of the function."""

    function_type = prop_def(FunctionType)
    """The signature."""

    sym_visibility = opt_prop_def(StringAttr)
    """``public``, ``private`` or ``nested``; what absent means is the op's own."""

    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    """Per-argument attribute dictionaries."""

    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    """Per-result attribute dictionaries."""


def verify_returned_values(
    function: FunctionLikeOp, values: Sequence[SSAValue], count_error: str, prefix: str = ""
) -> None:
    """Check that a return op's ``values`` are ``function``'s results, in
    number and type, as MLIR's return ops do. ``count_error`` is the message
    of a count mismatch, formatted with ``count``, ``expected`` and ``name``
    (the function's); a type mismatch reads MLIR's words after ``prefix``."""
    results = function.function_type.outputs.data
    name = function.sym_name.data
    if len(values) != len(results):
        raise VerifyException(count_error.format(count=len(values), expected=len(results), name=name))
    for i, (value, expected) in enumerate(zip(values, results, strict=True)):
        if value.type != expected:
            raise VerifyException(
                f"{prefix}type of return operand {i} ({value.type}) doesn't match "
                f"function result type ({expected}) in function @{name}"
            )
