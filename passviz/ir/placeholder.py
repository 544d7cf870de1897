"""How an op's recorded text shows its regions: a placeholder per region, no nested ops.

The printer writes it (``passviz.ir.printer.op_text``); the trace's pure-data model reads it
(``passviz.trace.apply``), as does the viewer (``extension/src/model/irtext.ts``).  This module
imports nothing, xDSL included, so that the trace layer can share it without loading xDSL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

REGION_PLACEHOLDER = "{...}"
"""What an op's text shows for each of its regions.

A placeholder may carry flags before its closing brace: ``-args`` when the
op's header already shows the entry block's arguments (a function's
signature, a loop's induction variable), so the entry block gets no label of
its own, and ``-term`` when the op's syntax leaves its blocks' terminators
out (``scf.for`` without results), ``-scope`` when the op is isolated from above, so that the
printer names the values inside it afresh (``%0`` again in each function), and ``-rN`` when the
syntax prints region N at this place (``scf.index_switch`` prints its default region, region 0,
last); without it the placeholders stand for the regions in order; ``-iN`` when the syntax prints
the region N levels deeper than the op (``linalg.map``'s body, on a line of its own).
``{...-args-term}`` has the first two."""

REGION_PATTERN = re.compile(r"\{\.\.\.(-args)?(-term)?(-scope)?(?:-r([0-9]+))?(?:-i([0-9]+))?\}")
"""Matches a region placeholder in an op's text, its flags as groups."""


@dataclass(frozen=True)
class RegionSlot:
    """A region placeholder's flags."""

    args_in_header: bool = False
    hide_terminators: bool = False
    scope: bool = False
    region: int | None = None
    """The region the placeholder stands for, where the syntax prints it out of order."""
    indent: int = 0
    """How many levels deeper than the op the syntax prints the region."""

    def index(self, position: int) -> int:
        """The region of the placeholder at ``position`` among the op's placeholders."""
        return position if self.region is None else self.region


def region_slots(text: str) -> tuple[list[str], list[RegionSlot]]:
    """An op's text cut around its region placeholders: the texts between them (one more than
    the placeholders), and each placeholder's flags."""
    heads: list[str] = []
    slots: list[RegionSlot] = []
    last = 0
    for match in REGION_PATTERN.finditer(text):
        heads.append(text[last : match.start()])
        args, term, scope, region, indent = match.groups()
        slots.append(
            RegionSlot(
                args is not None,
                term is not None,
                scope is not None,
                None if region is None else int(region),
                0 if indent is None else int(indent),
            )
        )
        last = match.end()
    heads.append(text[last:])
    return heads, slots
