"""Where an op comes from, as ``file:line:col``, whatever its location attribute wraps."""

from __future__ import annotations

from typing import cast

from xdsl.dialects.builtin import ArrayAttr, CallSiteLoc, FileLineColLoc, FusedLoc, NameLoc
from xdsl.ir import Attribute, Operation


def source_position(loc: Attribute) -> str | None:
    """``file:line:col`` of the first file location in ``loc`` (a name's, a call site's callee,
    a fused location's first), or None if it names no file."""
    match loc:
        case FileLineColLoc():
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        case NameLoc():
            return source_position(loc.location)
        case CallSiteLoc():
            return source_position(loc.callee)
        case FusedLoc():
            for inner in cast(ArrayAttr[Attribute], loc.locations).data:
                found = source_position(inner)
                if found is not None:
                    return found
            return None
        case _:
            return None


def located(op: Operation, message: str) -> str:
    """``message`` prefixed with ``op``'s ``file:line:col``, where its location names one."""
    where = source_position(op.location)
    return message if where is None else f"{where}: {message}"
