"""Which tests get which marker (``browser``, ``jupyter``, ``triton``, ``slow``), so that
``pytest -m "not slow"`` is a fast loop and ``pytest -m triton`` runs every comparison with Triton.

The lists below are explicit, beside the markers some modules set themselves (``pytestmark``,
``@pytest.mark.triton``).  A test that reaches Triton without the ``triton`` marker fails
(``guard_triton``) and a list entry naming a test that is gone stops the run (``apply``), so no
test loses its marker silently.  Names are ``module::function`` (every parameter of the function)
or ``module::function[id]`` (one parameter).
"""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Iterable
from pathlib import Path
from typing import NoReturn

import pytest

MODULE_MARKS: dict[str, tuple[str, ...]] = {
    "test_browser": ("browser",),
    "test_viewer_browser": ("browser", "jupyter"),
    "test_run_panel_browser": ("browser", "jupyter"),
    "test_viewer_long": ("browser",),
    "test_viewer_iree": ("browser", "iree"),
    "test_viewer_change_on_screen": ("browser",),
    "test_notebook_export": ("browser", "jupyter"),
    "test_notebooks": ("jupyter",),
    "test_extension_build": ("jupyter",),
}
"""Markers every test of a module gets, by the module's name."""

TRITON: frozenset[str] = frozenset(
    {
        "test_arith_tensor::test_canonicalize_on_tensors_matches_triton",
        "test_arith_tensor::test_triton_reads_what_passviz_prints",
        "test_arith_tensor::test_triton_rejects_the_bad_types_too",
        "test_combine::test_combine_matches_triton",
        "test_combine::test_extra_cases_match_triton",
        "test_cse_dominance::test_multi_block_cse_is_tritons",
        "test_gpu_compile::test_final_ttir_compiles_to_an_sm90_cubin_with_tritons_launch_parameters",
        "test_gpu_compile::test_launch_parameters_are_the_entrys_with_the_scratch_pointers",
        "test_gpu_compile::test_num_warps_sets_the_block",
        "test_gpu_compile::test_the_matmul_uses_shared_memory_and_the_vector_add_none",
        "test_gpu_compile::test_ttir_triton_cannot_compile_is_one_line",
        "test_greedy::test_constants_match_triton",
        "test_inline::test_func_dialect_matches_triton_on_tt_spelling",
        "test_inline::test_matches_triton",
        "test_inline::test_wrap_then_inline_matches_triton",
        "test_licm::test_licm_matches_triton",
        "test_licm::test_peer_case_matches_triton",
        "test_licm::test_triton_licm_matches_triton",
        "test_loop_unroll::test_followed_by_licm_sccp_symbol_dce_matches_triton",
        "test_loop_unroll::test_matches_triton",
        "test_loop_unroll::test_other_peer_cases_match_triton",
        "test_loop_unroll::test_peer_file_matches_triton",
        "test_make_ttir::test_capture_needs_a_jit_function",
        "test_make_ttir::test_every_rewrite_is_a_named_step",
        "test_make_ttir::test_frontend_ir_keeps_the_kernel_source_locations",
        "test_make_ttir::test_frontend_ir_without_locations_is_the_same_module",
        "test_make_ttir::test_inlined_calls_name_their_callees",
        "test_make_ttir::test_make_ttir_is_the_installed_tritons_make_ttir_for_sm90",
        "test_make_ttir::test_make_ttir_of_a_tensor_descriptor_kernel_is_tritons",
        "test_make_ttir::test_make_ttir_of_the_frontend_ir_is_triton_compiles_ttir",
        "test_mlir_canonicalization::test_arith_matches_triton",
        "test_mlir_canonicalization::test_cf_matches_triton",
        "test_mlir_canonicalization::test_math_folders_match_triton_on_every_width",
        "test_mlir_canonicalization::test_math_matches_triton",
        "test_mlir_canonicalization::test_random_constant_arithmetic_matches_triton",
        "test_mlir_canonicalization::test_scf_matches_triton",
        "test_mlir_canonicalization::test_tutorial_kernels_match_triton",
        "test_mlir_parser::test_triton_reads_our_print_of_minus_inf_as_its_own",
        "test_notebooks::test_notebook_runs_without_error[03-triton-make-ttir.ipynb]",
        "test_notebooks::test_notebook_runs_without_error[08-real-triton-compile.ipynb]",
        "test_notebooks::test_real_triton_notebook_captures_the_compile_stage_by_stage",
        "test_notebooks::test_triton_notebook_finds_the_dot_and_agrees_with_triton",
        "test_reorder_broadcast::test_extra_cases_match_triton",
        "test_reorder_broadcast::test_reorder_broadcast_matches_triton",
        "test_rewrite_tensor_pointer::test_handwritten_function_matches_triton",
        "test_rewrite_tensor_pointer::test_peer_function_matches_triton",
        "test_sccp::test_matches_triton",
        "test_sccp::test_peer_case_matches_triton",
        "test_sources::test_a_triton_kernel_trace_carries_its_python_source",
        "test_symbol_dce::test_matches_triton",
        "test_symbol_dce::test_peer_case_matches_triton",
        "test_triton_constructs::test_canonicalize_and_cse_as_tritons",
        "test_triton_constructs::test_read_as_triton_reads_it",
        "test_tt_canonicalize::test_canonicalize_matches_triton",
        "test_tt_canonicalize::test_extra_cases_match_triton",
        "test_tt_dialect::test_kernel_prints_as_triton_does",
        "test_tt_dialect::test_op_syntax_is_tritons",
        "test_tt_dialect::test_triton_rejects_what_passviz_rejects",
        "test_tt_roundtrip::test_combine_function",
        "test_tt_roundtrip::test_compiled_kernel_ttir",
        "test_tt_roundtrip::test_compiled_kernel_ttir_with_locations",
        "test_tt_roundtrip::test_compiled_kernels_use_the_ops_they_should",
        "test_tt_roundtrip::test_triton_shared_chunk",
        "test_tt_roundtrip::test_triton_test_chunk",
        "test_ttg_dialect::test_aliases_are_those_triton_prints",
        "test_ttg_dialect::test_bad_layouts_are_located_parse_errors",
        "test_ttg_dialect::test_cga_layout_round_trips",
        "test_ttg_dialect::test_expand_dims_needs_a_matching_slice",
        "test_diverge::test_passviz_make_ttir_is_the_real_compile_pass_by_pass[vector_add]",
        "test_diverge::test_passviz_make_ttir_is_the_real_compile_pass_by_pass[matmul]",
        "test_diverge::test_passviz_make_ttir_is_the_real_compile_pass_by_pass[fused_softmax]",
        "test_diverge::test_passviz_make_ttir_is_the_real_compile_pass_by_pass[layer_norm]",
        "test_triton_capture::test_captured_matmul_in_the_viewer",
        "test_triton_capture::test_capture_from_python_leaves_the_process_as_it_was",
        "test_triton_capture::test_capture_under_triton_36_is_what_mlir_enable_dump_shows",
        "test_triton_capture::test_capture_under_triton_39_is_what_mlir_enable_dump_shows",
        "test_viewer_change_on_screen::test_persistent_matmul_every_changed_step",
        "test_viewer_change_on_screen::test_persistent_matmul_opens_as_an_overview",
        "test_viewer_change_on_screen::test_persistent_matmul_structural_steps",
        "test_viewer_long::test_matmul_tt_dot_step",
        "test_viewer_long::test_tutorial_matmul",
    }
)
"""Tests that compare with Triton or run it (skipped without it, failing under CI): ``-m triton``
runs them again against each Triton release CI tests."""

TRITON_IF_INSTALLED: frozenset[str] = frozenset(
    {
        "test_envelope::test_every_record_the_schema_accepts_passes",
        "test_golden_model::test_typescript_model_matches_the_golden_fixtures",
    }
)
"""Tests that run without Triton and, where it is installed, only add make-ttir traces to their
inputs (``tests/golden.py``): not marked ``triton``, and let through ``guard_triton``."""

SLOW: frozenset[str] = frozenset(
    {
        "test_browser::test_untrusted_text_never_runs",
        "test_cli::test_validate",
        "test_extension_build::test_jest_suite_passes",
        "test_extension_build::test_labextension_is_enabled",
        "test_extension_build::test_wheel_carries_the_prebuilt_extension",
        "test_notebook_export::test_exported_notebook_steps_in_its_frame",
        "test_notebooks::test_notebook_runs_without_error[01-wrap-func-body.ipynb]",
        "test_replay::test_replay_matches_live_ir_at_every_step[arith canonicalize,cse x2-pass]",
        "test_replay::test_replay_matches_live_ir_at_every_step[arith canonicalize,cse x2-rewrite]",
        "test_types::test_pyright_strict_is_clean",
        "test_viewer_browser::test_jupyterlab_renderer_widget_and_document",
        "test_viewer_change_on_screen::test_persistent_matmul_every_changed_step",
        "test_viewer_change_on_screen::test_persistent_matmul_opens_as_an_overview",
        "test_viewer_change_on_screen::test_persistent_matmul_structural_steps",
        "test_viewer_change_on_screen::test_toy_to_llvm_every_changed_step",
        "test_viewer_change_on_screen::test_seed_000_every_changed_step",
        "test_viewer_change_on_screen::test_seed_000_at_notebook_width",
        "test_viewer_change_on_screen::test_iree_flow_every_changed_step",
        "test_viewer_long::test_seed_000",
        "test_viewer_long::test_tutorial_matmul",
        "test_viewer_long::test_two_thousand_op_module",
        "test_viewer_long_text::test_long_string_is_clipped_with_the_rest_on_demand",
    }
)
"""Tests that take more than about five seconds on two cores (``pytest --durations``), beside
those marked ``slow`` in their module (test_fuzz, test_golden_model)."""


TESTS = Path(__file__).resolve().parent
"""The tests folder."""


def _names(item: pytest.Function) -> tuple[str, str]:
    """``module::function`` and ``module::function[id]`` for ``item``."""
    module = item.path.stem
    return f"{module}::{item.originalname}", f"{module}::{item.name}"


def _listed(item: pytest.Function, names: frozenset[str]) -> bool:
    return any(name in names for name in _names(item))


def _check_names(items: Iterable[pytest.Function]) -> None:
    """Stop the run when a list names a function that a collected module does not define (a test
    renamed or removed would otherwise lose its marker without a word)."""
    modules = {item.path.stem: item.module for item in items}
    for name in sorted(TRITON | TRITON_IF_INSTALLED | SLOW):
        module, function = name.split("::")
        function = function.split("[")[0]
        if not (TESTS / f"{module}.py").exists():
            raise pytest.UsageError(f"tests/markers.py names {name}, but tests/{module}.py is gone")
        if module in modules and not hasattr(modules[module], function):
            raise pytest.UsageError(f"tests/markers.py names {name}, which tests/{module}.py does not define")


def apply(items: list[pytest.Item]) -> None:
    """Add each test's markers from the lists above."""
    functions = [item for item in items if isinstance(item, pytest.Function)]
    _check_names(functions)
    for item in functions:
        marks = set(MODULE_MARKS.get(item.path.stem, ()))
        if _listed(item, TRITON):
            marks.add("triton")
        if _listed(item, SLOW):
            marks.add("slow")
        for mark in sorted(marks):
            item.add_marker(mark)


def _in_tests(name: str, module: types.ModuleType) -> bool:
    """Whether ``module`` (imported as ``name``) is one of this folder's."""
    if "." in name and not name.startswith("tests."):
        return False
    file = getattr(module, "__file__", None)
    return isinstance(file, str) and _file_in_tests(file)


@functools.cache
def _file_in_tests(file: str) -> bool:
    # Cached: guard_triton asks for every module before every test, and resolving is a syscall each.
    return Path(file).resolve().parent == TESTS


def guard_triton(item: pytest.Item, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unless ``item`` is marked ``triton`` (or listed in ``TRITON_IF_INSTALLED``), make every
    function of ``tests/triton_oracle.py``, where tests reach Triton (``triton_missing`` first),
    fail it: such a test would be left out of ``-m triton`` and so of CI's run on Triton 3.9."""
    if item.get_closest_marker("triton") is not None:
        return
    if isinstance(item, pytest.Function) and _listed(item, TRITON_IF_INSTALLED):
        return
    from tests import triton_oracle

    def unmarked(*args: object, **kwargs: object) -> NoReturn:
        pytest.fail(
            f"{item.nodeid} uses Triton (tests/triton_oracle.py) but is not marked triton: "
            "add it to TRITON in tests/markers.py",
            pytrace=False,
        )

    originals = {
        name: value
        for name, value in vars(triton_oracle).items()
        if isinstance(value, types.FunctionType)
        and value.__module__ == triton_oracle.__name__
        and not name.startswith("_")
    }
    # The modules of tests/ hold the functions they import by name; replace them there too.  Test
    # modules are imported under their own name (tests/ has no __init__.py), helpers as tests.*.
    for module in [m for n, m in list(sys.modules.items()) if _in_tests(n, m)]:
        namespace = vars(module)
        for name, original in originals.items():
            if namespace.get(name) is original:
                monkeypatch.setattr(module, name, unmarked)
