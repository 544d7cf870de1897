"""The notebook Stepper driven from Python, and the rich display of traces."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from passviz._ipython import register
from passviz.notebook import StepFilter, Stepper, show_graph
from passviz.pipelines import record
from passviz.trace.model import Trace
from passviz.trace.store import schema_errors
from passviz.trace.summary import TRACE_MIME_TYPE
from tests.passes_for_tests import ExplodingPass

SEED = Path(__file__).resolve().parents[1] / "examples" / "wrap_multi_block.mlir"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def seed_trace() -> Trace:
    return record(SEED.read_text(), "wrap-func-body-with-single-block,canonicalize", filename=SEED.name).trace


def test_navigation_keeps_slider_list_and_panes_in_step(seed_trace: Trace) -> None:
    stepper = Stepper(seed_trace, kind="dataflow")
    assert stepper.step == 0
    stepper.go(7)
    assert stepper.slider.value == stepper.visible.index(7)
    assert stepper.step_list.value == 7
    assert "returns removed" in stepper.header.value
    assert "<iframe" in stepper.graph_pane.value and 'sandbox="allow-scripts"' in stepper.graph_pane.value
    assert '<tr class="pv-delete">' in stepper.diff_pane.value
    assert "tt.return %v4 : i32" in stepper.diff_pane.value
    stepper.next()
    assert stepper.step == 8
    stepper.prev()
    stepper.prev()
    assert stepper.step == 6
    assert {n for n, s in stepper.drawn.graph.nodes(data="status") if s == "added"} == {"o7", "o8"}


def test_widgets_drive_the_stepper(seed_trace: Trace) -> None:
    stepper = Stepper(seed_trace)
    stepper.slider.value = 3
    assert stepper.step == stepper.visible[3]
    stepper.step_list.value = 11
    assert stepper.step == 11 and stepper.slider.value == stepper.visible.index(11)
    stepper.kind_select.value = "cfg"
    assert stepper.kind == "cfg" and stepper.drawn.kind == "cfg"
    stepper.next_button.click()
    assert stepper.step == 12


def test_filters_limit_the_steps_offered(seed_trace: Trace) -> None:
    stepper = Stepper(seed_trace)
    stepper.changed_only.value = True
    assert stepper.visible == [-1, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16]
    assert stepper.step == 1  # step 0 (a pass boundary) is hidden: the next shown step
    assert stepper.slider.max == len(stepper.visible) - 1
    stepper.pass_select.value = "canonicalize"
    assert stepper.visible == [-1, 10, 11, 12, 13, 14, 15, 16]
    stepper.pattern_text.value = "inliner"
    assert stepper.visible == [-1, 10]
    assert stepper.step == 10
    stepper.set_filter(StepFilter(touching="o5"))
    assert stepper.visible == [-1, 2, 10]
    labels = [label for label, _ in stepper.step_list.options]
    assert len(labels) == len(stepper.visible)


def test_details_show_attributes_location_and_lineage(seed_trace: Trace) -> None:
    stepper = Stepper(seed_trace, step=10)
    options = [value for _, value in stepper.op_select.options]
    changed = [n for n in stepper.drawn.changed if n.startswith("o")]
    assert options[1 : 1 + len(changed)] == changed  # changed ops are offered first
    stepper.op_select.value = "o5"
    details = stepper.details.value
    assert "erased by this step" in details
    assert "step 2</td><td>created" in details and "step 10</td><td>replaced" in details
    assert "MultiBlockExecuteInliner" in details
    assert "o1 tt.func" in details  # the parent chain names its ops


def test_flagged_steps_are_shown_prominently() -> None:
    run = record(
        "func.func @f(%a: i32) -> i32 {\n  %m = arith.muli %a, %a : i32\n  func.return %m : i32\n}\n",
        "test-explode",
        extra_passes={"test-explode": ExplodingPass},
    )
    failure = run.trace.failed_steps[0]
    stepper = Stepper(run.trace, step=failure.index)
    assert 'class="pv-flagged"' in stepper.header.value
    assert "boom: cannot handle this muli" in stepper.header.value
    assert "⚠ exception" in stepper.step_list.options[-1][0]


def test_stepper_bundle_has_widget_trace_and_static_summary(seed_trace: Trace) -> None:
    bundle = Stepper(seed_trace)._repr_mimebundle_()
    assert WIDGET_MIME in bundle
    assert TRACE_MIME_TYPE in bundle
    assert "<table>" in bundle["text/html"]


def test_trace_mime_data_is_the_trace_records(seed_trace: Trace) -> None:
    bundle = seed_trace._repr_mimebundle_()
    data = bundle[TRACE_MIME_TYPE]
    records = data["records"]
    assert data["format"] == "passviz-trace"
    assert records[0]["record"] == "header" and records[-1]["record"] == "end"
    assert len(records) == len(seed_trace.steps) + 2
    assert all(schema_errors(r) == [] for r in records)
    assert "wrap-func-body-with-single-block" in bundle["text/html"]


def test_kernel_display_of_a_trace_is_the_stepper(seed_trace: Trace) -> None:
    shell = InteractiveShell.instance()
    try:
        register(shell)
        data, _ = shell.display_formatter.format(seed_trace)
    finally:
        InteractiveShell.clear_instance()
    assert WIDGET_MIME in data
    assert TRACE_MIME_TYPE in data
    assert "text/html" in data


def test_static_step_display_escapes(seed_trace: Trace) -> None:
    step = seed_trace.steps[2]
    shown = step._repr_html_()
    assert "scf.execute_region inserted" in shown
    assert html.escape("scf.execute_region -> i32") in shown


def test_show_graph_is_a_static_offline_page(seed_trace: Trace) -> None:
    figure = show_graph(seed_trace, 3, "cfg")
    page = figure._repr_html_()
    assert "blocks spliced in" in page
    assert "srcdoc=" in page and "https://" not in page.split("srcdoc=")[0]
    assert {n for n, s in figure.drawn.graph.nodes(data="status") if s == "modified"} == {"b1", "b2", "b3", "b4"}
