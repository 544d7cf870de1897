"""The run panel's kernel side: ``passviz.run.panel`` and ``TraceWidget``'s custom messages,
driven from Python without a kernel or a browser."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import passviz.run.panel as panel
from passviz.run.bisect import run_step
from passviz.run.gpu import GpuStepRun
from passviz.run.gpu_launch import GpuRun, compare_with_cpu
from passviz.run.launch import Argument
from passviz.run.panel import (
    PanelError,
    bisect_at,
    default_inputs,
    gpu_missing,
    parse_inputs,
    run_at,
    run_gpu_at,
)
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


def test_a_click_while_the_panel_asks_for_inputs_waits_its_turn(
    trace: Trace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bisect clicked while the kernel still derives the inputs is served after them, not refused."""
    widget = TraceWidget(trace, step=2)
    sent: list[dict[str, Any]] = []

    def send(content: dict[str, Any], buffers: object = None) -> None:
        sent.append(content)

    monkeypatch.setattr(widget, "send", send)
    widget._on_panel_message(widget, {"action": "inputs"}, [])  # pyright: ignore[reportPrivateUsage]
    widget._on_panel_message(widget, {"action": "bisect", "inputs": INPUTS}, [])  # pyright: ignore[reportPrivateUsage]
    widget._on_panel_message(widget, {"action": "run", "step": 3, "inputs": INPUTS}, [])  # pyright: ignore[reportPrivateUsage]
    widget.wait(240)
    answers = [(m["event"], m["action"]) for m in sent if m["event"] != "progress"]
    assert answers == [("inputs", "inputs"), ("result", "bisect"), ("result", "run")]
    assert sent[[m["event"] for m in sent].index("result")]["found"] == 3


HAS_PYCUDA = importlib.util.find_spec("pycuda") is not None
"""pycuda is installed here: the tests of its absence do not apply."""


@pytest.mark.skipif(HAS_PYCUDA, reason="pycuda is installed")
def test_without_pycuda_the_gpu_is_unavailable_and_says_why(
    trace: Trace, monkeypatch: pytest.MonkeyPatch
) -> None:
    why = gpu_missing()
    assert why is not None and why.startswith("running on the GPU needs pycuda: pip install 'passviz[cuda]'")
    with pytest.raises(PanelError) as caught:
        run_gpu_at(trace, 3, INPUTS)
    assert str(caught.value) == why and "\n" not in why
    widget = TraceWidget(trace)
    assert widget.gpu_missing is not None and widget.gpu_missing.startswith("not checked yet")
    _talk(widget, {"action": "inputs"}, monkeypatch)
    assert widget.gpu_missing == why
    count = len(widget.trace["records"])
    (error,) = _talk(widget, {"action": "run-gpu", "step": 3, "inputs": INPUTS}, monkeypatch)
    assert error == {"event": "error", "action": "run-gpu", "message": why}
    assert len(widget.trace["records"]) == count


def _fake_gpu(trace: Trace, step: int, arguments: Sequence[Argument], grid: tuple[int, ...]) -> GpuStepRun:
    """A GPU that computes what the CPU interpreter computes, in 0.01 ms."""
    cpu = run_step(trace, step, arguments, grid)
    moved = sum(value.nbytes for _, value in arguments if isinstance(value, np.ndarray))
    gpu = GpuRun(dict(cpu.outputs), set(cpu.outputs), 0.01, 100, moved, "Fake GPU")
    return GpuStepRun([f"GPU time 0.01 ms on {gpu.device}"], True, gpu, compare_with_cpu(cpu, gpu))


def test_a_gpu_run_is_judged_against_the_cpu_and_recorded(
    trace: Trace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(panel, "gpu_missing", lambda: None)
    monkeypatch.setattr(panel, "run_step_on_gpu", _fake_gpu)
    assert panel.gpu_missing() is None
    found = run_gpu_at(trace, 3, INPUTS)
    (record,) = found.records
    assert (record["backend"], record.get("reference"), record["verdict"]) == ("gpu", "cpu", "same")
    assert (record.get("device"), record.get("time_ms")) == ("Fake GPU", 0.01)
    assert record.get("gbps", 0) > 0
    assert found.lines == ["step 3 on the GPU, grid 4: same", "GPU time 0.01 ms on Fake GPU"]
    assert schema_errors({**record}) == []
    widget = TraceWidget(trace)
    _talk(widget, {"action": "inputs"}, monkeypatch)
    assert widget.gpu_missing is None
    sent = _talk(widget, {"action": "run-gpu", "step": 3, "inputs": INPUTS}, monkeypatch)
    assert sent[0]["event"] == "progress" and "for the GPU" in sent[0]["message"]
    assert sent[-1]["event"] == "result" and sent[-1]["records"][0]["backend"] == "gpu"
    assert widget.runs[-1] == sent[-1]["records"][0] == widget.trace["records"][-1]
