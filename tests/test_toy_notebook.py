"""Notebook 06 (issue 14): ``codegen.toy`` from source to printed output, chapter by chapter."""

from __future__ import annotations

from pathlib import Path

from tests.test_notebooks import (
    TRACE_MIME,
    _bundle,  # pyright: ignore[reportPrivateUsage]
    _executed,  # pyright: ignore[reportPrivateUsage]
    _html_outputs,  # pyright: ignore[reportPrivateUsage]
    _stdout,  # pyright: ignore[reportPrivateUsage]
    _tagged,  # pyright: ignore[reportPrivateUsage]
)

TOY_NOTEBOOK = Path(__file__).parents[1] / "notebooks" / "06-toy-tutorial.ipynb"


def test_toy_notebook_follows_codegen_from_source_to_output() -> None:
    nb = _executed(TOY_NOTEBOOK)
    assert "Proto 'multiply_transpose' @codegen.toy:2:1" in _stdout(_tagged(nb, "ast")[0])
    mlirgen = _stdout(_tagged(nb, "mlirgen")[0])
    assert "1 rewrite toy-mlirgen MLIRGen @multiply_transpose" in mlirgen
    assert "2 rewrite toy-mlirgen MLIRGen @main" in mlirgen
    double = _stdout(_tagged(nb, "double-transpose")[0])
    assert "SimplifyRedundantTranspose in canonicalize" in double
    assert "toy.return %arg0 : tensor<*xf64>" in double
    inlined = _stdout(_tagged(nb, "inlined")[0])
    assert "cast argument #0 of call to @multiply_transpose to tensor<*xf64>" in inlined
    assert "inline body of @multiply_transpose" in inlined and "infer toy.transpose" in inlined
    shapes = _stdout(_tagged(nb, "shapes")[0])
    assert "toy.transpose(%0 : tensor<2x3xf64>) to tensor<3x2xf64>" in shapes
    assert "toy.mul %1, %1 : tensor<3x2xf64>" in shapes
    assert _stdout(_tagged(nb, "affine")[0]).count("affine.for") == 4
    fused = _stdout(_tagged(nb, "fused")[0])
    assert "producer-consumer fusion" in fused and fused.count("affine.for") == 2
    steps = _stdout(_tagged(nb, "llvm-steps")[0])
    for pattern in ("PrintOpLowering", "LowerAffineFor", "ForLowering", "AllocOpLowering", "FuncOpLowering"):
        assert pattern in steps
    constants = [line.rsplit("double ", 1)[1] for line in _stdout(_tagged(nb, "llvm-ir")[0]).splitlines()]
    assert constants == [f"{v:e})" for v in (1.0, 16.0, 4.0, 25.0, 9.0, 36.0)]
    jit = _stdout(_tagged(nb, "jit")[0])
    assert "1.000000 16.000000 \n4.000000 25.000000 \n9.000000 36.000000 \n" in jit
    assert "the JIT prints what numpy computes: True" in jit
    graphs = [h for h in _html_outputs(nb) if 'class="pv-frame"' in h]
    assert len(graphs) >= 5, "double transpose before and after, inlined call, loops, fused loops"
    assert TRACE_MIME in _bundle(_tagged(nb, "stepper")[0])
