"""``passviz diverge``: two traces of the same input, aligned pass by pass, and where they part.

The oracle for "no divergence" is the real compiler: passviz's own ``make-ttir``
on a tutorial kernel's frontend IR against Triton's compile of the same kernel
(``passviz triton``), pass by pass, under the installed Triton.  For
"divergence", a user's pass before and after a change that breaks it
(``examples/bisect_demo.py``'s ``OrderSubfOperands``): the pass and the rewrite
that broke it are named, with the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from passviz.cli import main
from passviz.trace.diverge import normalized_ir, pass_key, passes
from tests.conftest import need

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def test_normal_form_keeps_meaning_and_drops_printing() -> None:
    mlir = """#loc = loc("k.py":3:0)
module {
  tt.func @f(%arg0: i32 loc("x"(#loc)), %arg1: i32) -> i32 {
    %0 = arith.subi %arg0, %arg1  : i32 loc(#loc)
    tt.return %0 : i32
  }
}
"""
    xdsl = """builtin.module {
  tt.func @f(%x: i32, %y: i32) -> i32 {
    %d = arith.subi %x, %y : i32
    tt.return %d : i32
  }
}
"""
    assert normalized_ir(mlir) == normalized_ir(xdsl)
    # ...but not what the IR means: the operands swapped are another program.
    assert normalized_ir(mlir) != normalized_ir(xdsl.replace("%x, %y : i32", "%y, %x : i32"))
    assert pass_key("canonicalize{max-iterations=3}") == pass_key("Canonicalize") == "canonicalize"


def _record(tmp_path: Path, name: str, passes: Path) -> Path:
    out = tmp_path / f"{name}.passviz.json"
    pipeline = "demo-rewrites,canonicalize,cse"
    command = ["trace", str(EXAMPLES / "bisect_demo.mlir"), "-p", pipeline, "--passes-from", str(passes)]
    assert main([*command, "-o", str(out)]) == 0
    return out


def test_the_pass_and_the_rewrite_that_broke_it_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.py"
    text = (EXAMPLES / "bisect_demo.py").read_text(encoding="utf-8")
    good.write_text(
        text.replace("[TimesTwoToAdd(), OrderSubfOperands()]", "[TimesTwoToAdd()]"), encoding="utf-8"
    )
    before, after = _record(tmp_path, "before", good), _record(tmp_path, "after", EXAMPLES / "bisect_demo.py")
    capsys.readouterr()
    assert main(["diverge", str(before), str(after)]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert "aligned 3 passes both ran" in printed
    first = next(line for line in printed if line.startswith("first divergence:"))
    assert "after pass 1 of 3" in first and "(demo-rewrites)" in first
    within = next(line for line in printed if line.strip().startswith("within it"))
    assert "(OrderSubfOperands)" in within
    assert any(line.startswith("-") and "arith.subf" in line for line in printed)
    assert any(line.startswith("+") and "arith.subf" in line for line in printed)
    # A trace against itself: no divergence, exit status 0.
    assert main(["diverge", str(after), str(after)]) == 0
    assert "no divergence: the IR agrees after each of the 3 passes" in capsys.readouterr().out


def _ported_against_captured(kernel_name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.triton_oracle import triton_missing

    need(triton_missing())
    import passviz
    from passviz.compilers.triton.frontend import triton_frontend_ir
    from passviz.trace.store import write_trace
    from tests.triton_kernels import KERNELS

    kernel = KERNELS[kernel_name]
    ported = passviz.record(triton_frontend_ir(kernel.fn, kernel.signature, kernel.constexprs), "make-ttir")
    captured = passviz.capture_triton(kernel.fn, kernel.signature, dict(kernel.constexprs))
    write_trace(ported, tmp_path / "ported.passviz.json")
    write_trace(captured, tmp_path / "captured.passviz.json")
    capsys.readouterr()
    status = main(["diverge", str(tmp_path / "ported.passviz.json"), str(tmp_path / "captured.passviz.json")])
    printed = capsys.readouterr().out
    assert status == 0, printed
    # Every pass of make_ttir (8 in Triton 3.6, 7 in 3.9) lined up with the real one; the rest of
    # the compile is B's alone.
    ported_passes = passes(ported)
    assert len(ported_passes) >= 7 and f"aligned {len(ported_passes)} passes both ran" in printed
    assert "A alone ran" not in printed and "no divergence" in printed
    assert "B alone ran:" in printed and "convert-triton-to-tritongpu" in printed


@pytest.mark.triton
@pytest.mark.parametrize(
    "kernel",
    [
        "vector_add",
        "matmul",
        pytest.param("fused_softmax", marks=pytest.mark.slow),
        pytest.param("layer_norm", marks=pytest.mark.slow),
    ],
)
def test_passviz_make_ttir_is_the_real_compile_pass_by_pass(
    kernel: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _ported_against_captured(kernel, tmp_path, capsys)
