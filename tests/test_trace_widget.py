"""``TraceWidget``: the extension's viewer as an ipywidget, driven from Python without a kernel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import traitlets

from passviz import notebook
from passviz.pipelines import load_trace, record
from passviz.recording.replay import ReplayError
from passviz.trace.model import Trace
from passviz.trace.store import read_trace, schema_errors
from passviz.trace.summary import trace_mime_data
from passviz.widget.trace_widget import TraceWidget
from tests.test_initial import strip_initial
from tests.test_replay import CF_INPUT

SEED = Path(__file__).resolve().parents[1] / "examples" / "wrap_multi_block.mlir"


@pytest.fixture(scope="module")
def seed_trace() -> Trace:
    return record(SEED.read_text(), "wrap-func-body-with-single-block,canonicalize", filename=SEED.name).trace


def test_model_and_view_names_match_the_extension(seed_trace: Trace) -> None:
    widget = TraceWidget(seed_trace)
    state = widget.get_state()
    assert state["_model_name"] == "TraceWidgetModel" and state["_view_name"] == "TraceWidgetView"
    assert state["_model_module"] == state["_view_module"] == "passviz"
    assert state["_model_module_version"] == state["_view_module_version"] == "^0.1.0"
    assert notebook.TraceWidget is TraceWidget


def test_state_holds_the_mime_data_with_initial(seed_trace: Trace) -> None:
    widget = TraceWidget(seed_trace, step=3)
    state = widget.get_state()
    assert state["step"] == 3 and state["selected_op"] is None and state["height"] == "640px"
    data = state["trace"]
    assert data == trace_mime_data(seed_trace)
    assert data["format"] == "passviz-trace" and data["version"] == 2
    header = data["records"][0]
    assert header["record"] == "header" and header["initial"] == seed_trace.initial
    assert all(schema_errors(r) == [] for r in data["records"])
    json.dumps(state)  # what the comm sends


def test_step_is_checked(seed_trace: Trace) -> None:
    widget = TraceWidget(seed_trace)
    assert widget.step == -1
    last = len(seed_trace.steps) - 1
    widget.step = last
    assert widget.step == last
    for bad in (len(seed_trace.steps), -2):
        with pytest.raises(traitlets.TraitError, match=rf"step {bad} is out of range: -1 is the initial IR"):
            widget.step = bad
    assert widget.step == last
    with pytest.raises(traitlets.TraitError, match="out of range"):
        TraceWidget(seed_trace, step=99)


def test_selected_op_is_an_op_id_or_none(seed_trace: Trace) -> None:
    widget = TraceWidget(seed_trace)
    widget.selected_op = "o3"
    assert widget.get_state()["selected_op"] == "o3"
    widget.selected_op = None
    for bad in ("v3", "o", "o3 ", "<img onerror=x>", "O3"):
        with pytest.raises(traitlets.TraitError, match="selected_op must be an op id"):
            widget.selected_op = bad


def test_a_smaller_trace_brings_the_step_back_in_range(seed_trace: Trace) -> None:
    widget = TraceWidget(seed_trace, step=len(seed_trace.steps) - 1)
    small = record(CF_INPUT, "dce").trace
    widget.trace = trace_mime_data(small)
    assert widget.step == -1


def test_old_trace_file_gets_initial(tmp_path: Path) -> None:
    path = tmp_path / "old.passviz.json"
    run = record(CF_INPUT, "canonicalize", output=path)
    strip_initial(path, CF_INPUT)
    widget = TraceWidget(load_trace(path))
    assert widget.trace["records"][0]["initial"] == run.trace.initial


def test_trace_that_cannot_be_replayed_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.passviz.json"
    record(CF_INPUT, "canonicalize", output=path)
    strip_initial(path, CF_INPUT)
    with pytest.raises(ReplayError, match="no context factory"):
        TraceWidget(read_trace(path))


def test_repr_is_short(seed_trace: Trace) -> None:
    widget = TraceWidget(seed_trace, step=2)
    text = widget._repr_mimebundle_()["text/plain"]
    assert text.startswith("<TraceWidget: wrap-func-body-with-single-block,canonicalize on wrap_multi_block")
    assert "showing step 2" in repr(widget) and "records" not in repr(widget)
