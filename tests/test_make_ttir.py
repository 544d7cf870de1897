"""``make-ttir`` on what Triton's frontend makes of real kernels gives what ``triton.compile`` gives."""

from __future__ import annotations

import functools
import inspect
import re
from pathlib import Path

import pytest

from passviz.compilers.triton.frontend import triton_frontend_ir
from passviz.compilers.triton.version import use_triton_version
from passviz.ir.printer import print_module
from passviz.pipelines import NAMED_PIPELINES, InputError, parse_ir, record
from passviz.trace.model import Trace
from tests.conftest import need
from tests.triton_oracle import (
    CONSTRUCT_KERNEL_NAMES,
    KERNEL_NAMES,
    TRITON_PASSES,
    compiled_ttir,
    frontend_ir,
    installed_triton,
    triton_missing,
    triton_normalize,
)


@functools.cache
def make_ttir_trace(name: str) -> tuple[Trace, str]:
    run = record(frontend_ir(name), "make-ttir", filename=f"{name}.ttir")
    return run.trace, print_module(run.module)


@pytest.mark.triton
def test_make_ttir_is_the_installed_tritons_make_ttir_for_sm90() -> None:
    need(triton_missing())
    from triton.backends.nvidia.compiler import CUDABackend

    source = inspect.getsource(CUDABackend.make_ttir)
    # The sm < 90 branch is left out (see MAKE_TTIR).
    source = re.sub(r"if capability // 10 < 9:\n\s*passes\.\w+\.\w+\(pm\)\n", "", source)
    triton_order = re.findall(r"passes\.(\w+)\.(\w+)\(pm\)", source)
    ours = [TRITON_PASSES[name] for name in NAMED_PIPELINES["make-ttir"].split(",")]
    assert ours == triton_order


@pytest.mark.parametrize(("version", "has_rewrite_tensor_pointer"), [("3.6", True), ("3.9", False)])
def test_make_ttir_follows_the_chosen_triton(version: str, has_rewrite_tensor_pointer: bool) -> None:
    with use_triton_version(version):
        passes = NAMED_PIPELINES["make-ttir"].split(",")
    assert ("triton-rewrite-tensor-pointer" in passes) == has_rewrite_tensor_pointer
    assert passes[0] == "inline" and passes[-1] == "triton-loop-unroll"


@pytest.mark.triton
@pytest.mark.parametrize("name", KERNEL_NAMES + CONSTRUCT_KERNEL_NAMES)
def test_make_ttir_of_the_frontend_ir_is_triton_compiles_ttir(name: str) -> None:
    need(triton_missing())
    trace, printed = make_ttir_trace(name)
    assert trace.status == "ok"
    assert triton_normalize(printed) == triton_normalize(compiled_ttir(name))


@pytest.mark.triton
def test_make_ttir_of_a_tensor_descriptor_kernel_is_tritons() -> None:
    # Triton 3.9 prints !tt.tensordesc<64x64xf32>, 3.6 !tt.tensordesc<tensor<64x64xf32>>.
    need(triton_missing())
    trace, printed = make_ttir_trace("tensordesc")
    assert trace.status == "ok"
    want = triton_normalize(compiled_ttir("tensordesc"))
    assert triton_normalize(printed) == want
    spelling = (
        "!tt.tensordesc<64x64xf32>" if installed_triton() >= "3.9" else "!tt.tensordesc<tensor<64x64xf32>>"
    )
    assert spelling in printed and spelling in want


@pytest.mark.triton
@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_every_rewrite_is_a_named_step(name: str) -> None:
    need(triton_missing())
    trace, _ = make_ttir_trace(name)
    rewrites = [step for step in trace.steps if step.kind == "rewrite"]
    # The inliner's own canonicalize does most of make_ttir's work on frontend IR.
    assert {"erase-dead-op", "unique-constant", "fold"} <= {
        step.name for step in rewrites if step.pass_name == "inline"
    }
    assert all(step.name for step in rewrites)


@pytest.mark.triton
def test_inlined_calls_name_their_callees() -> None:
    need(triton_missing())
    trace, _ = make_ttir_trace("matmul")
    names = [step.name or "" for step in trace.steps if step.pass_name == "inline"]
    assert any(re.fullmatch(r"inline body of @triton\.language\.standard\.cdiv.*", n) for n in names)
    assert any(n.startswith("erase dead function @triton.language.standard.zeros") for n in names)


@pytest.mark.triton
def test_frontend_ir_keeps_the_kernel_source_locations() -> None:
    need(triton_missing())
    import tests.triton_kernels as kernels

    source = Path(kernels.__file__).read_text().splitlines()
    module = parse_ir(frontend_ir("matmul"))
    dot = next(op for op in module.walk() if op.name == "tt.dot")
    location = str(dot.location)
    match = re.search(r'triton_kernels\.py":(\d+):\d+', location)
    assert match is not None, location
    assert "tl.dot(" in source[int(match.group(1)) - 1]


@pytest.mark.triton
def test_frontend_ir_without_locations_is_the_same_module() -> None:
    need(triton_missing())
    with_locations = triton_normalize(frontend_ir("vector_add"))
    assert with_locations == triton_normalize(frontend_ir("vector_add", locations=False))
    assert "loc(" not in frontend_ir("vector_add", locations=False)


@pytest.mark.triton
def test_capture_needs_a_jit_function() -> None:
    need(triton_missing())
    with pytest.raises(Exception):  # noqa: B017 - Triton's own error for a non-kernel
        triton_frontend_ir(len, {"x": "i32"})


def test_capture_without_triton_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    real_import = importlib.import_module

    def no_triton(name: str, package: str | None = None) -> object:
        if name.startswith("triton"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, package)

    monkeypatch.setattr(importlib, "import_module", no_triton)
    with pytest.raises(InputError, match=r"pip install 'passviz\[triton\]'"):
        triton_frontend_ir(object(), {})
