"""The IR pane's aliases are the CLI's: recorded kinds (``meta.aliases``), laid out from the op texts.

The oracle is the CLI's own print (``Trace.ir_at``, xDSL's printer with passviz's alias
collector): at every step, the alias definitions that the pure-data layout finds in the IR
lines are the lines the CLI prints above the module.  The viewer's twin is held to the same
definitions by the golden fixtures (``tests/golden.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

from passviz.compilers.registry import ALIASED_ATTRIBUTES, FAMILIES
from passviz.ir.printer import AliasedAttribute
from passviz.pipelines import load_trace, record
from passviz.recording.initial import ensure_initial
from passviz.trace.apply import apply_delta, initial_state, ir_lines
from passviz.trace.model import Trace
from passviz.trace.store import write_trace
from passviz.view.alias_layout import DEFAULT_ALIASES, layout_aliases
from tests.golden import ALIASED_MODULE


def _aliased_classes() -> dict[str, str]:
    """Every attribute class of the families' dialects that prints by alias: its text's start, its alias."""
    found: dict[str, str] = {}
    for family in FAMILIES:
        for load in family.dialects.values():
            for item in load().attributes:
                if issubclass(item, AliasedAttribute):
                    found[f"#{item.name}<"] = item.ASM_ALIAS
    return found


def test_the_recorded_kinds_are_those_the_classes_declare() -> None:
    assert _aliased_classes() == ALIASED_ATTRIBUTES


def _cli_aliases(text: str) -> list[str]:
    """The alias definitions above the module in the CLI's print."""
    return [line for line in text.splitlines() if line.startswith("#") and " = " in line]


def _check_every_step(trace: Trace) -> int:
    """Check every step's pure-data aliases against the CLI's; the number of steps with aliases."""
    state = initial_state(ensure_initial(trace))
    kinds = trace.meta.get("aliases")
    with_aliases = 0
    for index in range(-1, len(trace.steps)):
        if index >= 0:
            apply_delta(state, trace.steps[index].delta)
        texts = [line.text for line in ir_lines(state)]
        expected = _cli_aliases(trace.ir_before(0) if index == -1 else trace.ir_at(index))
        assert layout_aliases(texts, kinds).definitions == expected, index
        with_aliases += bool(expected)
    return with_aliases


def test_every_step_aliases_what_the_cli_prints(tmp_path: Path) -> None:
    trace = record(ALIASED_MODULE, "cse,canonicalize").trace
    assert trace.meta.get("aliases") == ALIASED_ATTRIBUTES
    assert _check_every_step(trace) == len(trace.steps) + 1
    # And read back from its file, as the viewer reads it.
    path = tmp_path / "t.passviz.json"
    write_trace(trace, path)
    assert _check_every_step(load_trace(path)) == len(trace.steps) + 1


def test_encodings_and_layouts_number_in_the_order_printed() -> None:
    layout = layout_aliases(
        ["%a : tensor<4xf32, #ttg.blocked<{x = [1]}>> and tensor<4xf32, #iree_encoding.testing<>>",
         "%b : tensor<4xf32, #ttg.blocked<{x = [2]}>> and #ttg.blocked<{x = [1]}>"],
        ALIASED_ATTRIBUTES,
    )  # fmt: skip
    assert layout.definitions == [
        "#blocked = #ttg.blocked<{x = [1]}>",
        "#encoding = #iree_encoding.testing<>",
        "#blocked1 = #ttg.blocked<{x = [2]}>",
    ]
    assert layout.apply("tensor<4xf32, #ttg.blocked<{x = [2]}>>") == "tensor<4xf32, #blocked1>"


def test_a_trace_without_recorded_kinds_aliases_layouts_only(tmp_path: Path) -> None:
    """Traces written before meta.aliases alias what the viewer used to: #ttg.blocked."""
    trace = record(ALIASED_MODULE, "cse").trace
    path = tmp_path / "old.passviz.json"
    write_trace(trace, path)
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    del header["meta"]["aliases"]
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    old = load_trace(path)
    texts = [line.text for line in ir_lines(initial_state(ensure_initial(old)))]
    assert [d.split(" = ")[0] for d in layout_aliases(texts, old.meta.get("aliases")).definitions] == [
        "#blocked", "#blocked1", "#blocked2",
    ]  # fmt: skip
    assert DEFAULT_ALIASES == {"#ttg.blocked<": "blocked"}
