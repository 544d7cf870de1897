"""MLIR string literals lexed in linear time.

xDSL 0.74's ``MLIRLexer`` matches a string literal with
``"(?:[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"``.  A run of plain
characters can be split between its ``+`` and its ``*`` in exponentially
many ways, and a ``"`` without a closing quote on its line makes the regex
try them all: 36 s for 30 characters, twice that for each one more, in an
``.mlir`` file or in an attribute text of a trace file.

``LinearStringLexer`` matches the same literals with the loop unrolled
(plain characters, then any number of one escape and plain characters), so
each character can be matched one way only.  It stands for the same change
to ``MLIRLexer._unescaped_characters_regex`` in xDSL's
``xdsl/utils/mlir_lexer.py``; drop it once xDSL has that.
"""

from __future__ import annotations

import re

from xdsl.utils.mlir_lexer import MLIRLexer

_PLAIN = r'[^"\\\n\v\f]*'
"""Characters that stand for themselves in a string literal."""

_ESCAPE = r'\\(?:["nt\\]|[0-9A-Fa-f]{2})'
"""An escape: ``\\"``, ``\\n``, ``\\t``, ``\\\\`` or two hex digits."""


class LinearStringLexer(MLIRLexer):
    """xDSL's MLIR lexer, matching string literals in time linear in their length."""

    _unescaped_characters_regex = re.compile(f'"{_PLAIN}(?:{_ESCAPE}{_PLAIN})*"')
