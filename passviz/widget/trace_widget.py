"""``TraceWidget``: the passviz JupyterLab extension's viewer as an ipywidget.

The widget only syncs data: the trace's MIME data (its records, the initial
IR as a delta in the header), the step shown and the op selected.  The
extension's ``TraceWidgetView`` rebuilds the IR at every step from that data
and draws it; without the extension, the widget shows as plain text.

Its run panel talks to this object through custom messages: ``{"action":
"inputs"}`` asks for inputs derived from the kernel's signature, ``{"action":
"run", "step": N, "inputs": TEXT}`` and ``{"action": "bisect", "inputs":
TEXT}`` run on the CPU, ``{"action": "run-gpu", "step": N, "inputs": TEXT}``
on the GPU (``passviz.run.panel``), in a thread, so the kernel keeps
answering; the widget replies with ``progress`` events, then a ``result`` (or
``error``) event, and adds the run records to its trace.  ``gpu_missing``
tells the panel whether it can offer the GPU, checked when it first asks.
"""

from __future__ import annotations

import collections
import re
import threading
from typing import Any, cast

import ipywidgets as widgets  # pyright: ignore[reportMissingTypeStubs]
import traitlets

from passviz.ir.terminal import one_line
from passviz.recording.initial import ensure_initial
from passviz.trace.model import RunRecord, Trace
from passviz.trace.summary import trace_mime_data

_OP_ID = re.compile(r"o[0-9]+")

ACTIONS = ("inputs", "run", "run-gpu", "bisect")
"""The run panel's requests."""

GPU_UNCHECKED = "not checked yet: the run panel checks when it opens"
"""``gpu_missing`` before the run panel first asks the kernel."""

EXTENSION_VERSION = "^0.1.0"
"""The versions of the ``passviz`` frontend module whose widget views fit these models."""


def step_count(data: dict[str, Any]) -> int:
    """How many step records the trace's MIME data holds (header and end excluded)."""
    records: list[dict[str, Any]] = data.get("records", [])
    return sum(1 for record in records if "record" not in record)


class TraceWidget(widgets.DOMWidget):
    """A trace, stepped through in the passviz extension's viewer.

    ``step`` -1 is the initial IR; ``selected_op`` is the op whose details
    the view shows.  Both sync both ways: set them from Python to drive the
    view, read them to see where the user is.
    """

    _model_name = traitlets.Unicode("TraceWidgetModel").tag(sync=True)
    _view_name = traitlets.Unicode("TraceWidgetView").tag(sync=True)
    _model_module = traitlets.Unicode("passviz").tag(sync=True)
    _view_module = traitlets.Unicode("passviz").tag(sync=True)
    _model_module_version = traitlets.Unicode(EXTENSION_VERSION).tag(sync=True)
    _view_module_version = traitlets.Unicode(EXTENSION_VERSION).tag(sync=True)

    trace = traitlets.Dict().tag(sync=True)
    """The trace's MIME data: ``{"format", "version", "records"}``, the header with ``initial``."""
    step = traitlets.Int(-1).tag(sync=True)
    """The step shown: -1 is the initial IR, then 0 to the number of steps - 1."""
    selected_op = traitlets.Unicode(None, allow_none=True).tag(sync=True)
    """The op whose details are shown (``o12``), or None."""
    view = traitlets.Dict().tag(sync=True)
    """How the viewer opens: which edges it draws, which steps it offers (``Stepper.view_options``)."""
    height = traitlets.Unicode("640px").tag(sync=True)
    """The CSS height of the view."""
    gpu_missing = traitlets.Unicode(GPU_UNCHECKED, allow_none=True).tag(sync=True)
    """Why the run panel cannot run on the GPU (pycuda or Triton missing), or None when it can.
    Checked when the panel first asks for inputs, so that a widget loads no ``passviz.run``."""

    def __init__(self, trace: Trace, step: int = -1, **kwargs: Any) -> None:
        """Raises ``ReplayError`` for a trace without ``initial`` that cannot be replayed."""
        ensure_initial(trace)
        super().__init__(trace=trace_mime_data(trace), step=step, **kwargs)  # pyright: ignore[reportUnknownMemberType]
        self._trace = trace
        """The trace itself, which the run panel's runs replay."""
        self._worker: threading.Thread | None = None
        """The thread serving the run panel's requests, if any."""
        self._pending: collections.deque[dict[str, Any]] = collections.deque()
        """Requests waiting for the worker, served in the order they came."""
        self._pending_lock = threading.Lock()
        self._serving = False
        """Whether the worker is serving: set and cleared under the lock, so that a request
        that comes as the worker finishes is served by it or by a new one, never by none."""
        self.on_msg(self._on_panel_message)  # pyright: ignore[reportUnknownMemberType]

    @property
    def runs(self) -> list[RunRecord]:
        """The run records of the trace, those the run panel added included."""
        return self._trace.runs

    def _on_panel_message(self, _widget: object, content: object, _buffers: object) -> None:
        """A run panel request: answered from a thread, so that the kernel stays free."""
        if not isinstance(content, dict):
            return
        message = cast(dict[str, Any], content)
        action = message.get("action")
        if action not in ACTIONS:
            return
        # A click while the panel still asks for its inputs (or a run goes on) waits its turn.
        with self._pending_lock:
            self._pending.append(message)
            if self._serving:
                return
            self._serving = True
            self._worker = threading.Thread(target=self._serve_pending, daemon=True)
            self._worker.start()

    def _serve_pending(self) -> None:
        """Serve the waiting requests one after the other, until none is left."""
        while True:
            with self._pending_lock:
                if not self._pending:
                    self._serving = False
                    return
                message = self._pending.popleft()
            self._serve(message)

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the run panel's requests in progress and waiting, if any, to end."""
        while (worker := self._worker) is not None and worker.is_alive():
            worker.join(timeout)
            if timeout is not None:
                return

    def _serve(self, message: dict[str, Any]) -> None:
        # passviz.run loads xDSL's interpreters and numpy: only when a panel asks.
        from passviz.run.panel import PanelError, bisect_at, default_inputs, gpu_missing, run_at, run_gpu_at

        action = str(message.get("action"))
        send = self.send  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]

        def progress(text: str) -> None:
            send({"event": "progress", "action": action, "message": text})

        try:
            if action == "inputs":
                self.gpu_missing = gpu_missing()
                send({"event": "inputs", "action": action, "inputs": default_inputs(self._trace).text()})
                return
            text = str(message.get("inputs", ""))
            if action == "bisect":
                result = bisect_at(self._trace, text, progress)
            else:
                step = message.get("step", -1)
                if not isinstance(step, int) or not -1 <= step < len(self._trace.steps):
                    raise PanelError(f"step {step!r} is not a step of this trace")
                if action == "run":
                    result = run_at(self._trace, step, text, progress)
                else:
                    self.gpu_missing = gpu_missing()
                    result = run_gpu_at(self._trace, step, text, progress)
        except PanelError as exc:
            send({"event": "error", "action": action, "message": one_line(str(exc))})
            return
        except Exception as exc:  # noqa: BLE001 - the panel shows it; the kernel must not die with the thread
            send({"event": "error", "action": action, "message": one_line(f"{type(exc).__name__}: {exc}")})
            return
        self._trace.runs.extend(result.records)
        data: dict[str, Any] = dict(self.trace)
        data["records"] = [*data.get("records", []), *(dict(run) for run in result.records)]
        self.trace = data
        send(
            {
                "event": "result",
                "action": action,
                "records": result.records,
                "lines": result.lines,
                "found": result.found,
            }
        )

    @traitlets.validate("step")
    def _valid_step(self, proposal: dict[str, Any]) -> int:
        step = int(proposal["value"])
        count = step_count(self.trace)
        if not -1 <= step < count:
            raise traitlets.TraitError(
                f"step {step} is out of range: -1 is the initial IR, then 0 to {count - 1}"
            )
        return step

    @traitlets.validate("selected_op")
    def _valid_op(self, proposal: dict[str, Any]) -> str | None:
        op_id: str | None = proposal["value"]
        if op_id is not None and _OP_ID.fullmatch(op_id) is None:
            raise traitlets.TraitError(f"selected_op must be an op id such as 'o12' or None, not {op_id!r}")
        return op_id

    @traitlets.observe("trace")
    def _keep_step_in_range(self, change: dict[str, Any]) -> None:
        if self.step >= step_count(self.trace):
            self.step = -1

    def __repr__(self) -> str:
        records: list[dict[str, Any]] = self.trace.get("records", [])
        meta: dict[str, str] = records[0].get("meta", {}) if records else {}
        return (
            f"<TraceWidget: {meta.get('pipeline', '?')} on {meta.get('input', '?')}, "
            f"{step_count(self.trace)} steps, showing step {self.step}>"
        )
