"""How an op's recorded text shows its regions: a placeholder per region, no nested ops.

The printer writes it (``passviz.ir.printer.op_text``); the trace's pure-data model reads it
(``passviz.trace.apply``), as does the viewer (``extension/src/model/irtext.ts``).  This module
imports nothing, xDSL included, so that the trace layer can share it without loading xDSL.
"""

from __future__ import annotations

import re

REGION_PLACEHOLDER = "{...}"
"""What an op's text shows for each of its regions.

A placeholder may carry flags before its closing brace: ``-args`` when the
op's header already shows the entry block's arguments (a function's
signature, a loop's induction variable), so the entry block gets no label of
its own, and ``-term`` when the op's syntax leaves its blocks' terminators
out (``scf.for`` without results).  ``{...-args-term}`` has both."""

REGION_PATTERN = re.compile(r"\{\.\.\.(-args)?(-term)?\}")
"""Matches a region placeholder in an op's text, its flags as groups."""
