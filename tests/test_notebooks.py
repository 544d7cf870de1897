"""The notebooks in notebooks/, executed headless as a reader would run them."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from tests.conftest import iree_opt_missing, need
from tests.triton_oracle import triton_missing

NOTEBOOKS = sorted(Path(__file__).parents[1].glob("notebooks/*.ipynb"))
"""Every notebook of the repository, in name order."""

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
TRACE_MIME = "application/vnd.passviz.trace+json"


@cache
def _executed(notebook: Path) -> nbformat.NotebookNode:
    """The notebook run top to bottom in a fresh kernel, from its own folder (once per session)."""
    nb = nbformat.read(notebook, as_version=4)
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(notebook.parent)}}
    )
    client.execute()  # raises CellExecutionError on the first cell that fails
    return nb


def _tagged(nb: nbformat.NotebookNode, tag: str) -> list[nbformat.NotebookNode]:
    """The code cells carrying ``tag``; at least one must."""
    cells = [c for c in nb.cells if c.cell_type == "code" and tag in c.metadata.get("tags", [])]
    assert cells, f"no code cell is tagged {tag!r}"
    return cells


def _stdout(cell: nbformat.NotebookNode) -> str:
    """What a cell printed."""
    return "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")


def _html_outputs(nb: nbformat.NotebookNode) -> list[str]:
    """Every ``text/html`` output of the notebook."""
    return [
        o.data["text/html"]
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if "data" in o and "text/html" in o.data
    ]


def test_notebooks_are_found() -> None:
    assert NOTEBOOKS, "notebooks/ holds no notebook"


def _needs(notebook: Path) -> list[str]:
    """The optional extras a notebook's metadata says it needs (``passviz.needs``)."""
    return nbformat.read(notebook, as_version=4).metadata.get("passviz", {}).get("needs", [])


def _skip_without_extras(notebook: Path) -> None:
    if "triton" in _needs(notebook):
        need(triton_missing())
    if "iree" in _needs(notebook):
        need(iree_opt_missing())


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_without_error(notebook: Path) -> None:
    _skip_without_extras(notebook)
    nb = _executed(notebook)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    assert all(c.execution_count is not None for c in nb.cells if c.cell_type == "code")


def test_saved_notebooks_have_no_outputs() -> None:
    for notebook in NOTEBOOKS:
        nb = nbformat.read(notebook, as_version=4)
        nbformat.validate(nb)
        assert nb.metadata.kernelspec.name == "python3", notebook.name
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, notebook.name


WRAP_NOTEBOOK = Path(__file__).parents[1] / "notebooks" / "01-wrap-func-body.ipynb"


def test_wrap_notebook_shows_the_pass_step_by_step() -> None:
    nb = _executed(WRAP_NOTEBOOK)

    assert "cf.cond_br %arg0, ^bb1, ^bb2" in _stdout(_tagged(nb, "input")[0])
    steps = _stdout(_tagged(nb, "steps")[0])
    assert "18 steps, status: ok" in steps
    for name in ("new entry block", "returns removed", "MultiBlockExecuteInliner"):
        assert name in steps, name

    graphs = [h for h in _html_outputs(nb) if 'class="pv-frame"' in h]
    assert len(graphs) >= 8, "a graph per checkpoint and the initial CFG"
    assert all("pv-legend" in h and 'sandbox="allow-scripts"' in h for h in graphs)
    assert any("<b>initial IR</b>" in h for h in graphs)
    assert any("blocks spliced in" in h for h in graphs)

    final_ir = _stdout(_tagged(nb, "final-ir")[0])
    assert "arith.select" in final_ir and "scf.execute_region" not in final_ir

    lineage = _stdout(_tagged(nb, "lineage")[0])
    assert "the scf.execute_region is o" in lineage
    assert "created" in lineage and "erased" in lineage and "MultiBlockExecuteInliner" in lineage

    for cell in _tagged(nb, "stepper"):
        bundles = [o.data for o in cell.outputs if o.output_type == "execute_result"]
        assert len(bundles) == 1, "the cell's value is one viewer"
        assert set(bundles[0]) == {TRACE_MIME, "text/html", "text/plain"}
        assert bundles[0]["text/html"].startswith('<iframe class="passviz-frame" sandbox="allow-scripts"')
    first, filtered = (_bundle(cell)[TRACE_MIME]["view"] for cell in _tagged(nb, "stepper"))
    assert first == {"step": 3, "edges": {"use": False, "branch": True}}
    assert filtered["steps"] == [2, 10]
    assert "kept: [1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16]" in _stdout(_tagged(nb, "stepper")[-1])


def _bundle(cell: Any) -> dict[str, Any]:
    return next(o.data for o in cell.outputs if o.output_type == "execute_result")


def test_trace_viewer_notebook_emits_the_trace_and_the_widget() -> None:
    nb = _executed(Path(__file__).parents[1] / "notebooks" / "02-trace-viewer.ipynb")
    (display,) = _tagged(nb, "trace-display")
    data = next(o.data for o in display.outputs if "data" in o)
    assert set(data) == {TRACE_MIME, "text/html", "text/plain"}, "one viewer: the extension's, else the frame"
    trace = data[TRACE_MIME]
    header = trace["records"][0]
    assert header["record"] == "header" and header["initial"]["root"] == "o0"
    assert len(trace["records"]) > 10
    (widget,) = _tagged(nb, "widget")
    assert any(WIDGET_MIME in o.get("data", {}) for o in widget.outputs)
    (step,) = _tagged(nb, "widget-step")
    result = next(o.data["text/plain"] for o in step.outputs if "data" in o)
    assert result == "(6, None)"


def test_triton_notebook_finds_the_dot_and_agrees_with_triton() -> None:
    need(triton_missing())
    nb = _executed(Path(__file__).parents[1] / "notebooks" / "03-triton-make-ttir.ipynb")
    [dot_cell] = _tagged(nb, "dot-step")
    printed = _stdout(dot_cell)
    assert "CombineBroadcastMulReducePattern in triton-combine" in printed
    assert "tt.dot" in printed and '"tt.reduce"' not in printed
    [same_cell] = _tagged(nb, "same-as-triton")
    assert "passviz's make-ttir equals triton.compile's TTIR: True" in _stdout(same_cell)


def test_debugging_notebook_flags_the_loop_and_converges_after_the_fix() -> None:
    nb = _executed(Path(__file__).parents[1] / "notebooks" / "04-debugging-your-pattern.ipynb")
    flagged = _stdout(_tagged(nb, "flagged")[0])
    assert "23 steps, status: failed" in flagged
    assert (
        "step 22 (failure, nonconvergence): greedy rewrite did not converge within 20 rewrites; "
        "patterns kept firing: SwapAddiOperands → SwapAddiOperands"
    ) in flagged
    assert "cycle: ['SwapAddiOperands']" in flagged
    swaps = _stdout(_tagged(nb, "swaps")[0])
    assert "'SwapAddiOperands': 21" in swaps
    assert "after step 1: %0 = arith.addi %x, %c4 : i32" in swaps
    assert "after step 2: %0 = arith.addi %c4, %x : i32" in swaps
    (stepper,) = _tagged(nb, "stepper")
    bundle = _bundle(stepper)
    assert set(bundle) == {TRACE_MIME, "text/html", "text/plain"}
    assert bundle[TRACE_MIME]["view"]["step"] == 22
    fixed = _stdout(_tagged(nb, "fixed")[0])
    assert "3 steps, status: ok" in fixed and "1 rewrite SwapAddiOperandsFixed" in fixed
    assert "%0 = arith.addi %x, %c4 : i32" in fixed
    assert TRACE_MIME in _bundle(_tagged(nb, "fixed-display")[0])


def test_bisect_notebook_names_the_pattern_that_breaks_the_kernel() -> None:
    nb = _executed(Path(__file__).parents[1] / "notebooks" / "05-which-rewrite-broke-my-kernel.ipynb")
    assert "status: ok" in _stdout(_tagged(nb, "trace")[0])  # the verifier is happy at every step
    printed = _stdout(_tagged(nb, "bisect")[0])
    assert "first differing step: 3  rewrite  demo-rewrites  OrderSubfOperands on arith.subf" in printed
    assert "1000 elements differ" in printed
    bundle = _bundle(_tagged(nb, "stepper")[0])
    assert bundle[TRACE_MIME]["view"]["step"] == 3


def test_iree_notebook_watches_the_bias_add_join_the_matmuls_dispatch() -> None:
    notebook = Path(__file__).parents[1] / "notebooks" / "07-iree-dispatch-regions.ipynb"
    _skip_without_extras(notebook)
    nb = _executed(notebook)
    assert "iree-dispatch-creation-form-dispatch-regions" in _stdout(_tagged(nb, "pipeline")[0])
    dispatch = _stdout(_tagged(nb, "dispatch")[0])
    assert "the step that puts the bias-add into the matmul's dispatch: 23 FuseWithConsumer" in dispatch
    assert (
        "MoveIntoDispatchRegion: dispatch 0 [['flow.dispatch.region', 'linalg.matmul', 'linalg.generic']]"
        in (dispatch)
    )
    assert "flow.executable private @predict_dispatch_0" in _stdout(_tagged(nb, "executables")[0])
    assert "same module as iree-opt: True" in _stdout(_tagged(nb, "iree-opt")[0])
    assert "first differing step: None" in _stdout(_tagged(nb, "run")[0])
    (stepper,) = _tagged(nb, "stepper")
    assert _bundle(stepper)[TRACE_MIME]["view"]["step"] == 23


def test_toy_notebook_follows_codegen_from_source_to_output() -> None:
    """Notebook 06 (issue 14): ``codegen.toy`` from source to printed output, chapter by chapter."""
    nb = _executed(Path(__file__).parents[1] / "notebooks" / "06-toy-tutorial.ipynb")
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


def test_real_triton_notebook_captures_the_compile_stage_by_stage() -> None:
    need(triton_missing())
    nb = _executed(Path(__file__).parents[1] / "notebooks" / "08-real-triton-compile.ipynb")
    captured = _stdout(_tagged(nb, "capture")[0])
    for stage in ("ttir", "ttgir", "llir"):
        assert f"{stage}: " in captured, captured
    assert "then: llir, ptx, sass" in captured
    assert "ConvertTritonToTritonGPU" in _stdout(_tagged(nb, "ttgir")[0])
    dot = _stdout(_tagged(nb, "dot")[0])
    assert "dot" in dot and "#ttg." in dot  # the dot's operands carry the tensor cores' layouts
    assert ".target sm_90a" in _stdout(_tagged(nb, "ptx")[0])
    assert "status ok" in _stdout(_tagged(nb, "ported")[0])
    assert TRACE_MIME in _bundle(_tagged(nb, "trace-display")[0])
    patterns = _stdout(_tagged(nb, "patterns")[0])
    assert "pattern applications" in patterns and "CanonicalizeConvertFromConvert" in patterns
    assert _stdout(_tagged(nb, "cubin")[0]).startswith("matmul_kernel cuda:90 num_warps 8")
