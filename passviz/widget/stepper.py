"""``Stepper``: the passviz viewer on a trace, opened where and how you ask.

A thin name for the one viewer passviz has (``extension/``): ``Stepper(trace,
step=10, kind="cfg", step_filter=StepFilter(pattern="fold"))`` shows the
trace at step 10, drawing control-flow edges, its timeline offering only the
steps the filter keeps.  It displays as the trace's MIME type (the passviz
JupyterLab extension's viewer) with the same viewer in a sandboxed iframe as
its HTML, for hosts without the extension (VS Code, Notebook 7, nbviewer, a
notebook exported to HTML).  ``stepper.widget()`` gives the live
``TraceWidget``, whose step and selection Python can drive and read.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from passviz.recording.initial import ensure_initial
from passviz.recording.replay import ReplayError
from passviz.trace.model import Trace
from passviz.trace.query import StepFilter
from passviz.trace.summary import TRACE_MIME_TYPE, trace_html, trace_mime_data
from passviz.view.viewgraph import EDGE_KINDS, ViewKind
from passviz.widget.standalone import IFRAME_HEIGHT, ViewerNotBuiltError, viewer_iframe
from passviz.widget.trace_widget import TraceWidget

_EDGES: dict[ViewKind, dict[str, bool]] = {
    kind: {"use": "use" in shown, "branch": "branch" in shown} for kind, shown in EDGE_KINDS.items()
}
"""The viewer's ``edges`` option for each view kind."""


def viewer_bundle(
    trace: Trace, view: dict[str, Any] | None = None, height: str = IFRAME_HEIGHT
) -> dict[str, Any]:
    """A trace as a notebook output: its MIME type (the extension's viewer), the viewer in an iframe, text.

    Without the built viewer bundle (a checkout not yet built), the HTML is a
    static summary of the steps instead.  A version 1 trace without its initial state gets it
    by replay where it can (``passviz.load_trace`` has done it already).
    """
    with suppress(ReplayError):
        ensure_initial(trace)
    data = trace_mime_data(trace)
    if view:
        data["view"] = view
    try:
        html = viewer_iframe(trace, view, height)
    except ViewerNotBuiltError:
        html = trace_html(trace)
    meta = trace.meta
    plain = f"<passviz trace: {meta['pipeline']} on {meta['input']}, {len(trace.steps)} steps>"
    return {TRACE_MIME_TYPE: data, "text/html": html, "text/plain": plain}


@dataclass
class Stepper:
    """The viewer on ``trace``: where it opens, which edges it draws, which steps it offers."""

    trace: Trace
    step: int | None = None
    """The step shown first (-1: the initial IR); by default the first step, or -1 for an empty trace."""
    kind: ViewKind = "all"
    step_filter: StepFilter | None = None
    """Only the steps this keeps are offered in the timeline (and by ← →)."""
    hide_bookkeeping: bool = False
    """Hide unique-constant, hoist-constant, erase-dead-op and folds that changed nothing."""
    height: str = IFRAME_HEIGHT
    selected_op: str | None = None
    visible: list[int] = field(init=False)
    """The steps offered, after the filter (-1: the initial IR)."""

    def __post_init__(self) -> None:
        if self.kind not in _EDGES:
            raise ValueError(f"kind must be one of {', '.join(_EDGES)}, not {self.kind!r}")
        self.set_filter(self.step_filter)
        if self.step is None:
            self.step = self.visible[1] if len(self.visible) > 1 else -1
        self.go(self.step)

    def go(self, step: int) -> Stepper:
        """Open at ``step`` (-1: the initial IR; negative numbers below that count from the end)."""
        count = len(self.trace.steps)
        index = step + count if step < -1 else step
        if not -1 <= index < count:
            raise IndexError(f"step {step} is out of range: -1 is the initial IR, then 0 to {count - 1}")
        self.step = index
        return self

    def set_kind(self, kind: ViewKind) -> Stepper:
        """Draw ``kind``'s edges."""
        if kind not in _EDGES:
            raise ValueError(f"kind must be one of {', '.join(_EDGES)}, not {kind!r}")
        self.kind = kind
        return self

    def set_filter(self, step_filter: StepFilter | None) -> Stepper:
        """Offer only the steps ``step_filter`` keeps (None: every step)."""
        self.step_filter = step_filter
        kept = self.trace.steps if step_filter is None else step_filter.apply(self.trace.steps)
        self.visible = [-1, *(s.index for s in kept)]
        return self

    def select_op(self, op_id: str | None) -> Stepper:
        """Open with ``op_id`` selected (its details and lineage shown)."""
        self.selected_op = op_id
        return self

    def view_options(self) -> dict[str, Any]:
        """The options the viewer reads (``extension/src/view/options.ts``)."""
        view: dict[str, Any] = {"step": self.step, "edges": _EDGES[self.kind]}
        if self.step_filter is not None:
            view["steps"] = self.visible[1:]
        if self.hide_bookkeeping:
            view["filter"] = {"hideBookkeeping": True}
        if self.selected_op is not None:
            view["selected"] = self.selected_op
        return view

    def widget(self) -> TraceWidget:
        """The live viewer (needs the passviz JupyterLab extension): drive ``step`` and ``selected_op``."""
        step = self.step if self.step is not None else -1
        return TraceWidget(self.trace, step=step, view=self.view_options(), height=self.height)

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, Any]:
        return viewer_bundle(self.trace, self.view_options(), self.height)
