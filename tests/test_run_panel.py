"""The run panel's kernel side: ``passviz.run.panel`` and ``TraceWidget``'s custom messages,
driven from Python without a kernel or a browser."""

from __future__ import annotations

from typing import Any

import pytest

from passviz.run.panel import PanelError, bisect_at, default_inputs, parse_inputs, run_at
from passviz.trace.model import Trace
from passviz.trace.store import schema_errors
from passviz.widget.trace_widget import TraceWidget
from tests.test_bisect import ARGS, demo_trace

INPUTS = "\n".join([*(f"--arg {spec}" for spec in ARGS), "--grid 4", "--seed 0"])


@pytest.fixture(scope="module")
def trace() -> Trace:
    return demo_trace()


def test_inputs_read_as_the_command_line_writes_them(trace: Trace) -> None:
    inputs = parse_inputs(INPUTS)
    assert [str(spec) for spec in inputs.specs][:2] == ["x=1000:f32:random", "y=1000:f32:random"]
    assert (inputs.grid, inputs.seed) == ((4,), 0)
    assert parse_inputs("x=8:f32 n=8 --grid=2,2 --seed=3").grid == (2, 2)
    derived = default_inputs(trace).text()
    assert derived.splitlines() == [
        "--arg x=4096:f32:random",
        "--arg y=4096:f32:random",
        "--arg out=4096:f32:random",
        "--arg n=64",
        "--grid 1",
        "--seed 0",
    ]
    for bad, message in [
        ("--arg", "--arg needs a value"),
        ("--arg x=8:f99", "unknown element type"),
        ("--grid 0", "positive sizes"),
        ("--seed x", "not an integer"),
        ("--speed 3", "unknown option '--speed'"),
        ("--arg 'x", "No closing quotation"),
    ]:
        with pytest.raises(PanelError, match=message):
            parse_inputs(bad)


def test_run_and_bisect_give_run_records(trace: Trace) -> None:
    found = bisect_at(trace, INPUTS)
    assert found.found == 3
    assert any(line.startswith("first differing step: 3") for line in found.lines)
    assert [r["step"] for r in found.records if r.get("first")] == [3]
    at = run_at(trace, 3, INPUTS)
    (record,) = at.records
    assert record["verdict"] == "differs" and record["count"] == 1000 and record["origin"] == "run"
    assert at.lines[0] == "step 3, grid 4: differs"
    assert run_at(trace, 1, INPUTS).records[0]["verdict"] == "same"
    # Without --arg, the kernel's signature gives the arguments.
    assert run_at(trace, -1, "--grid 2").records[0]["verdict"] == "same"
    for run in [*found.records, record]:
        assert schema_errors({**run}) == []


def _talk(
    widget: TraceWidget, message: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(widget, "send", lambda content, buffers=None: sent.append(content))
    widget._on_panel_message(widget, message, [])  # pyright: ignore[reportPrivateUsage]
    widget.wait(120)
    return sent


def test_the_widget_runs_in_a_thread_and_adds_the_records(
    trace: Trace, monkeypatch: pytest.MonkeyPatch
) -> None:
    widget = TraceWidget(trace, step=2)
    (inputs,) = _talk(widget, {"action": "inputs"}, monkeypatch)
    assert inputs["event"] == "inputs" and inputs["inputs"].startswith("--arg x=4096:f32:random")
    before = len(widget.trace["records"])
    sent = _talk(widget, {"action": "bisect", "inputs": INPUTS}, monkeypatch)
    assert sent[0] == {"event": "progress", "action": "bisect", "message": "bisect: run 1, the initial IR"}
    result = sent[-1]
    assert result["event"] == "result" and result["found"] == 3
    assert len(widget.trace["records"]) == before + len(result["records"])
    assert widget.trace["records"][-len(result["records"]) :] == result["records"]
    assert widget.runs == result["records"]
    sent = _talk(widget, {"action": "run", "step": 3, "inputs": INPUTS}, monkeypatch)
    assert [m["message"] for m in sent[:-1]] == ["running the initial IR", "running step 3"]
    assert sent[-1]["records"][0]["verdict"] == "differs"
    # Bad requests answer with one line; the widget's trace stays as it was.
    count = len(widget.trace["records"])
    (error,) = _talk(widget, {"action": "run", "step": 99, "inputs": INPUTS}, monkeypatch)
    assert error == {"event": "error", "action": "run", "message": "step 99 is not a step of this trace"}
    (error,) = _talk(widget, {"action": "bisect", "inputs": "--arg x=8:f99"}, monkeypatch)
    assert error["event"] == "error" and "unknown element type" in error["message"]
    assert len(widget.trace["records"]) == count
    assert _talk(widget, {"action": "unknown"}, monkeypatch) == []
