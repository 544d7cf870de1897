"""The Stepper (the viewer, opened where asked) and the rich display of traces."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from passviz._ipython import register
from passviz.notebook import StepFilter, Stepper, TraceWidget, show_graph
from passviz.pipelines import record
from passviz.trace.model import Trace
from passviz.trace.store import schema_errors
from passviz.trace.summary import TRACE_MIME_TYPE
from tests.passes_for_tests import ExplodingPass

SEED = Path(__file__).resolve().parents[1] / "examples" / "wrap_multi_block.mlir"


@pytest.fixture(scope="module")
def seed_trace() -> Trace:
    return record(SEED.read_text(), "wrap-func-body-with-single-block,canonicalize", filename=SEED.name).trace


def test_stepper_opens_the_viewer_where_asked(seed_trace: Trace) -> None:
    stepper = Stepper(seed_trace, kind="cfg")
    assert stepper.step == 0
    assert stepper.view_options() == {"step": 0, "edges": {"use": False, "branch": True}}
    stepper.go(7).set_kind("dataflow").select_op("o4")
    assert stepper.view_options() == {"step": 7, "edges": {"use": True, "branch": False}, "selected": "o4"}
    assert stepper.go(-2).step == len(seed_trace.steps) - 2
    with pytest.raises(IndexError, match="out of range"):
        stepper.go(len(seed_trace.steps))
    with pytest.raises(ValueError, match="kind must be one of"):
        Stepper(seed_trace, kind="sideways")  # pyright: ignore[reportArgumentType]


def test_filters_limit_the_steps_the_viewer_offers(seed_trace: Trace) -> None:
    stepper = Stepper(seed_trace, step_filter=StepFilter(changed_only=True))
    assert stepper.visible == [-1, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16]
    assert stepper.step == 1  # step 0 (a pass boundary) is hidden: the first step shown
    assert stepper.view_options()["steps"] == stepper.visible[1:]
    stepper.set_filter(StepFilter(touching="o5"))
    assert stepper.visible == [-1, 2, 10]
    assert stepper.view_options()["steps"] == [2, 10]
    assert "steps" not in stepper.set_filter(None).view_options()
    hidden = Stepper(seed_trace, hide_bookkeeping=True).view_options()
    assert hidden["filter"] == {"hideBookkeeping": True}


def test_stepper_displays_the_viewer_with_its_options(seed_trace: Trace) -> None:
    bundle = Stepper(seed_trace, step=10, kind="cfg")._repr_mimebundle_()
    assert bundle[TRACE_MIME_TYPE]["view"] == {"step": 10, "edges": {"use": False, "branch": True}}
    frame = bundle["text/html"]
    assert frame.startswith('<iframe class="passviz-frame" sandbox="allow-scripts"')
    page = html.unescape(frame.split('srcdoc="', 1)[1].rsplit('"></iframe>', 1)[0])
    assert page.startswith("<!doctype html>") and "Content-Security-Policy" in page
    assert '"view":{"step":10,"edges":{"use":false,"branch":true}}' in page
    assert "https://" not in frame.split("srcdoc=")[0] and "<script src" not in page


def test_stepper_widget_carries_the_same_options(seed_trace: Trace) -> None:
    widget = Stepper(seed_trace, step=3, kind="nesting").widget()
    assert isinstance(widget, TraceWidget)
    assert widget.step == 3
    assert widget.view == {"step": 3, "edges": {"use": False, "branch": False}}


def test_a_flagged_step_opens(seed_trace: Trace) -> None:
    run = record(
        "func.func @f(%a: i32) -> i32 {\n  %m = arith.muli %a, %a : i32\n  func.return %m : i32\n}\n",
        "test-explode",
        extra_passes={"test-explode": ExplodingPass},
    )
    failure = run.trace.failed_steps[0]
    bundle = Stepper(run.trace, step=failure.index)._repr_mimebundle_()
    assert bundle[TRACE_MIME_TYPE]["view"]["step"] == failure.index
    assert "boom: cannot handle this muli" in html.unescape(bundle["text/html"])


def test_trace_mime_data_is_the_trace_records(seed_trace: Trace) -> None:
    bundle = seed_trace._repr_mimebundle_()
    data = bundle[TRACE_MIME_TYPE]
    records = data["records"]
    assert data["format"] == "passviz-trace"
    assert records[0]["record"] == "header" and records[-1]["record"] == "end"
    assert len(records) == len(seed_trace.steps) + 2
    assert all(schema_errors(r) == [] for r in records)
    assert "wrap-func-body-with-single-block" in bundle["text/html"]


def test_kernel_display_of_a_trace_is_one_viewer(seed_trace: Trace) -> None:
    shell = InteractiveShell.instance()
    try:
        register(shell)
        data, _ = shell.display_formatter.format(seed_trace)
    finally:
        InteractiveShell.clear_instance()
    # The extension's viewer; where it is missing, the same viewer in an iframe. No widget: one viewer.
    assert set(data) == {TRACE_MIME_TYPE, "text/html", "text/plain"}
    assert data["text/html"].startswith('<iframe class="passviz-frame" sandbox="allow-scripts"')


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
    # the blocks spliced into the scf.execute_region (o5), which prints anew
    assert {n for n, s in figure.drawn.graph.nodes(data="status") if s == "modified"} == {
        "o5",
        "b1",
        "b2",
        "b3",
    }
