"""``canonicalize`` takes MLIR's options that passviz's greedy driver models, spelled as in mlir-opt."""

from __future__ import annotations

from pathlib import Path

import pytest

from passviz.cli import main
from passviz.compilers.mlir.passes.canonicalize import Canonicalize
from passviz.ir.printer import print_module
from passviz.pipelines import PipelineError, parse_pipeline, record
from tests.conftest import iree_opt_missing, need
from tests.iree_support import run_iree_opt

UNREACHABLE = """\
func.func @f(%a: i32) -> i32 {
  cf.br ^bb2(%a : i32)
^bb1:
  %x = arith.addi %a, %a : i32
  cf.br ^bb2(%x : i32)
^bb2(%r: i32):
  func.return %r : i32
}
"""
"""A function with an unreachable block: region simplification erases it."""


def test_options_are_read_as_mlir_opt_spells_them() -> None:
    (only,) = parse_pipeline("canonicalize{max-iterations=3 top-down=false}")
    assert isinstance(only, Canonicalize) and only == Canonicalize(max_iterations=3, top_down=False)
    config = only.config()
    assert (config.max_iterations, config.top_down) == (3, False)
    assert parse_pipeline("canonicalize") == (Canonicalize(),)


@pytest.mark.iree
@pytest.mark.parametrize("options", ["max-iterations=3", "top-down=false", "max-iterations=2 top-down=true"])
def test_with_options_canonicalize_ends_where_iree_opt_does(options: str) -> None:
    """The oracle: iree-opt's canonicalize with the same options, both printed by iree-opt."""
    need(iree_opt_missing())
    module = record(UNREACHABLE, f"canonicalize{{{options}}}").module
    ours = run_iree_opt(print_module(module))
    theirs = run_iree_opt(UNREACHABLE, f"--canonicalize={options}")
    assert ours == theirs


@pytest.mark.parametrize(
    ("spec", "column", "message"),
    [
        ("cse,canonicalize{region-simplify=disabled}", 5, "not found in expected arguments"),
        ("canonicalize{max-iterations=0}", 1, "max-iterations=0: at least 1"),
        ("canonicalize{bogus=1}", 1, "not found in expected arguments"),
    ],
)
def test_bad_options_are_errors_at_their_column(spec: str, column: int, message: str) -> None:
    with pytest.raises(PipelineError, match=f"column {column}: bad options for canonicalize: .*{message}"):
        parse_pipeline(spec)


def test_the_command_line_takes_them(tmp_path: Path) -> None:
    source = tmp_path / "in.mlir"
    source.write_text(UNREACHABLE)
    out = tmp_path / "t.json"
    assert main(["trace", str(source), "-p", "canonicalize{max-iterations=3}", "-o", str(out)]) == 0
