"""The importer writes out the aliases a snapshot names (``#loc3``, ``#blocked``, ``!hal.device``)
as MLIR reads them: each name that an alias line defines, outside strings, in one pass (what an
alias is written out as is not read again: its definition is written out already)."""

from __future__ import annotations

import pytest

from passviz.importer.reader import expand_aliases

_HEADER = '#loc = loc("k.py":1:0)\n#blocked = #ttg.blocked<{order = [0]}>\n!t = !llvm.ptr<1>\n'


@pytest.mark.parametrize(
    ("body", "written"),
    [
        # Locations and attributes by their alias, either lead character.
        ("%0 = op : !t loc(#loc)\n", '%0 = op : !llvm.ptr<1> loc("k.py":1:0)\n'),
        ("%1 = op {l = #blocked} loc(#loc)\n", '%1 = op {l = #ttg.blocked<{order = [0]}>} loc("k.py":1:0)\n'),
        # A name that only starts like an alias, or that no line defines, stays.
        (
            "%2 = op {a = #blocked1, b = #locx, c = !tt.ptr<f32>}\n",
            "%2 = op {a = #blocked1, b = #locx, c = !tt.ptr<f32>}\n",
        ),
        # Strings are left alone, escaped quotes and all; an unclosed quote is text like any other.
        ('%3 = op {s = "#loc \\" !t"} loc(#loc)\n', '%3 = op {s = "#loc \\" !t"} loc("k.py":1:0)\n'),
        ('%4 = op "!t\n%5 = op !t\n', '%4 = op "!llvm.ptr<1>\n%5 = op !llvm.ptr<1>\n'),
        # Back to back, and a lead character alone.
        (
            "f(!t!t#blocked) # ! !!t\n",
            "f(!llvm.ptr<1>!llvm.ptr<1>#ttg.blocked<{order = [0]}>) # ! !!llvm.ptr<1>\n",
        ),
    ],
)
def test_aliases_are_written_out_where_named(body: str, written: str) -> None:
    text, aliases = expand_aliases(_HEADER + body)
    assert text == "\n" * 3 + written  # (each alias line leaves its line break)
    assert aliases["#loc"] == '"k.py":1:0'  # (a location alias's ``loc(...)`` is its own)


def test_an_alias_written_out_is_not_read_again() -> None:
    # An alias whose definition names another (``#b`` names ``!a``) is written out as its
    # definition is, each name in it written out once, where MLIR defines it.
    text, _ = expand_aliases("!a = i32\n#b = #x<!a>\n%0 = op {v = #b} : !a\n")
    assert text == "\n\n%0 = op {v = #x<i32>} : i32\n"
