"""The IR pane's text as the CLI prints it: the id-named lines of ``ir_lines`` with every value
and block named as passviz's printer (xDSL's) names them, aliases defined above the module.

The lines keep stable ids (``%v12``, ``^b3``) so that a diff never sees renumbering; the names are
applied to what is shown.  xDSL's printer names a value where it first prints it: its name hint
(``%c0``, then ``%c0_1``, ...) or the next number (``%0``); a block by its hint or its index in
its region (``^bb1``).  An op that is isolated from above opens a scope (its regions' placeholders
say so: ``-scope``, as the recording printer saw the op's traits): its numbering starts from the
enclosing one and is dropped after it, its hints count afresh from the enclosing counts.  The viewer's
``printedNames`` (``extension/src/model/irtext.ts``) is the twin, checked by the golden fixtures.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from passviz.ir.placeholder import region_slots
from passviz.trace.apply import IRData, IRLine, ir_lines, region_at
from passviz.trace.model import TraceMeta
from passviz.view.alias_layout import layout_aliases

VALUE_ID = re.compile(r"%(v[0-9]+)\b")
"""A value in an id-named line (the viewer's ``VALUE``)."""

_TOKEN = re.compile(r"%(v[0-9]+)\b|\^(b[0-9]+)\b")


@dataclass
class _Scope:
    """One naming scope of xDSL's printer: the next number, and how often each hint was used."""

    next_number: int = 0
    values: dict[str, int] = field(default_factory=lambda: dict[str, int]())
    blocks: dict[str, int] = field(default_factory=lambda: dict[str, int]())

    def inner(self) -> _Scope:
        return _Scope(self.next_number, dict(self.values), dict(self.blocks))


@dataclass
class PrintedNames:
    """What each value and block id prints as (without its ``%`` or ``^``)."""

    values: dict[str, str] = field(default_factory=lambda: dict[str, str]())
    blocks: dict[str, str] = field(default_factory=lambda: dict[str, str]())

    def apply(self, text: str) -> str:
        """``text`` with each id that has a name written by that name."""

        def name(match: re.Match[str]) -> str:
            if match.group(1) is not None:
                return "%" + self.values.get(match.group(1), match.group(1))
            return "^" + self.blocks.get(match.group(2), match.group(2))

        return _TOKEN.sub(name, text)


def _hinted(hint: str, counts: dict[str, int]) -> str:
    """``hint`` as xDSL numbers it: bare the first time, then ``hint_1``, ``hint_2``, ..."""
    seen = counts.get(hint, 0)
    counts[hint] = seen + 1
    return f"{hint}_{seen}" if seen else hint


def printed_names(state: IRData, lines: list[IRLine]) -> PrintedNames:
    """The names xDSL's printer gives the values and blocks of ``lines`` (``ir_lines(state)``),
    in the order the lines show them."""
    names = PrintedNames()
    scopes = [_Scope()]
    seen_lines: dict[str, int] = {}

    def name_values(text: str) -> None:
        for match in VALUE_ID.finditer(text):
            value_id = match.group(1)
            if value_id in names.values:
                continue
            value = state.values.get(value_id)
            scope = scopes[-1]
            if value is not None and value.name:
                names.values[value_id] = _hinted(value.name, scope.values)
            else:
                names.values[value_id] = str(scope.next_number)
                scope.next_number += 1

    for line in lines:
        # A block label (its arguments), or an op without regions: values, in order.
        if line.op is None or not (op := state.op(line.op)).regions:
            name_values(line.text)
            continue
        count = seen_lines.get(line.op, 0)
        seen_lines[line.op] = count + 1
        slots = region_slots(op.text)[1]
        shown = min(len(op.regions), len(slots))
        scoped = any(slot.scope for slot in slots[:shown])
        if count == 0 and scoped:
            # Its results print before the op opens its scope.
            for value_id in op.results:
                name_values(f"%{value_id}")
            scopes.append(scopes[-1].inner())
        name_values(line.text)
        if count < shown:
            # The region's blocks are named as it opens, by hint or by place.
            region = region_at(state, op, slots[count].index(count))
            for index, block_id in enumerate(region.blocks if region is not None else []):
                hint = state.block(block_id).name
                names.blocks[block_id] = _hinted(hint, scopes[-1].blocks) if hint else f"bb{index}"
        elif scoped:
            scopes.pop()
    return names


def printed_lines(state: IRData, aliases: Mapping[str, str] | None) -> list[IRLine]:
    """The module in ``state`` as the CLI prints it, a line each: the aliases' definitions (no
    op), then the module, values and blocks by name and aliased attributes by alias."""
    lines = ir_lines(state)
    names = printed_names(state, lines)
    layout = layout_aliases([line.text for line in lines], aliases)
    return [
        *(IRLine(text, None) for text in layout.definitions),
        *(IRLine(names.apply(layout.apply(line.text)), line.op) for line in lines),
    ]


def printed_text(state: IRData, meta: TraceMeta) -> str:
    """The module in ``state`` as ``passviz show`` prints it."""
    return "".join(f"{line.text}\n" for line in printed_lines(state, meta.get("aliases")))
