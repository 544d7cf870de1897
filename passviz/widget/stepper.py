"""``Stepper``: step through a trace in any notebook, with ipywidgets and pyvis.

It needs no passviz frontend extension: the graph pane is a pyvis page (all
JavaScript in line) inside a sandboxed ``<iframe srcdoc>``, the rest is
plain ipywidgets.  It works in JupyterLab, Notebook 7 and VS Code.
"""

from __future__ import annotations

from typing import Any, cast

import ipywidgets as widgets  # pyright: ignore[reportMissingTypeStubs]

from passviz.graph.builders import GraphKind
from passviz.graph.view import DEFAULT_MAX_NODES, StepGraph, TraceView
from passviz.trace.model import Step, Trace
from passviz.trace.query import StepFilter
from passviz.trace.summary import step_counts, trace_mimebundle
from passviz.widget.html import (
    STEPPER_CSS,
    details_html,
    diff_html,
    graph_frame,
    step_header,
    stepper_page,
)

_KIND_LABELS: list[tuple[str, GraphKind]] = [
    ("dataflow", "dataflow"),
    ("control flow", "cfg"),
    ("nesting", "nesting"),
]
_ALL_PASSES = "(all passes)"
_NO_OP = "(choose an op)"


def step_label(step: Step) -> str:
    """The step list's line for a step: passes open a group, their steps are indented under them."""
    flag = f"  ⚠ {step.flag['kind']}" if step.flag is not None else ""
    if step.kind == "pass-begin":
        return f"{step.index:>4}  ▶ {step.pass_name or step.name or ''}{flag}"
    if step.kind == "pass-end":
        return f"{step.index:>4}  ■ end of {step.pass_name or step.name or ''}{flag}"
    counts = "" if not step.changed else f"  {step_counts(step)}"
    return f"{step.index:>4}      {step.name or step.kind}{counts}{flag}"


class Stepper:
    """Controls, step list, IR diff, graph and op details for one trace.

    ``stepper.widget`` is the ipywidgets box; evaluating the stepper in a
    cell shows it.  ``go``, ``next``, ``prev``, ``set_kind``,
    ``set_filter`` and ``select_op`` drive it from code.
    """

    def __init__(
        self,
        trace: Trace,
        *,
        kind: GraphKind = "dataflow",
        max_nodes: int = DEFAULT_MAX_NODES,
        graph_height: int = 480,
        step: int | None = None,
    ) -> None:
        self.trace = trace
        self.view = TraceView(trace, max_nodes=max_nodes)
        self.kind: GraphKind = kind
        self.graph_height = graph_height
        self.filter = StepFilter()
        self.visible: list[int] = [-1, *(s.index for s in trace.steps)]
        """The steps the slider and list offer, after filtering (-1: the initial IR)."""
        self.step = -1
        self.selected_op: str | None = None
        self._drawn: StepGraph | None = None
        self._syncing = False
        self._build()
        self._refresh_list()
        self.go(step if step is not None else (0 if trace.steps else -1))

    # -- widgets ----------------------------------------------------------------

    def _build(self) -> None:
        self.play = widgets.Play(interval=1500, min=0, max=0, step=1, description="play")
        # The slider runs over the steps offered (filters apply), so its own number would
        # mislead; the header names the step.
        self.slider = widgets.IntSlider(min=0, max=0, readout=False, continuous_update=False)
        widgets.jslink((self.play, "value"), (self.slider, "value"))  # pyright: ignore[reportUnknownMemberType]
        self.prev_button = widgets.Button(description="◀ prev", layout=widgets.Layout(width="80px"))
        self.next_button = widgets.Button(description="next ▶", layout=widgets.Layout(width="80px"))
        self.changed_only = widgets.Checkbox(
            value=False, description="hide steps that changed nothing", indent=False
        )
        passes = sorted({s.pass_name for s in self.trace.steps if s.pass_name is not None})
        self.pass_select = widgets.Dropdown(options=[_ALL_PASSES, *passes], description="pass")
        self.pattern_text = widgets.Text(placeholder="pattern or checkpoint", description="pattern")
        self.touching_text = widgets.Text(placeholder="op id, e.g. o12", description="touching")
        self.step_list = widgets.Select(options=[], rows=14, layout=widgets.Layout(width="100%"))
        self.kind_select = widgets.ToggleButtons(options=_KIND_LABELS, value=self.kind)
        self.header = widgets.HTML()
        self.graph_pane = widgets.HTML()
        self.diff_pane = widgets.HTML(layout=widgets.Layout(max_height="360px", overflow="auto"))
        self.op_select = widgets.Dropdown(options=[_NO_OP], description="op")
        self.details = widgets.HTML()

        self.prev_button.on_click(self._on_prev)  # pyright: ignore[reportUnknownMemberType]
        self.next_button.on_click(self._on_next)  # pyright: ignore[reportUnknownMemberType]
        self.slider.observe(self._on_slider, names="value")
        self.step_list.observe(self._on_list, names="value")
        self.kind_select.observe(self._on_kind, names="value")
        self.op_select.observe(self._on_op, names="value")
        for control in (self.changed_only, self.pass_select, self.pattern_text, self.touching_text):
            control.observe(self._on_filter, names="value")

        style = widgets.HTML(f"<style>{STEPPER_CSS}</style>")
        controls = widgets.HBox([self.prev_button, self.play, self.slider, self.next_button])
        filters = widgets.VBox([self.changed_only, self.pass_select, self.pattern_text, self.touching_text])
        left = widgets.VBox([filters, self.step_list], layout=widgets.Layout(width="38%"))
        right = widgets.VBox([self.kind_select, self.graph_pane], layout=widgets.Layout(width="62%"))
        self.widget = widgets.VBox(
            [
                style,
                self.header,
                controls,
                widgets.HBox([left, right]),
                widgets.HTML("<b>IR diff</b> (values and blocks named by their stable trace ids)"),
                self.diff_pane,
                self.op_select,
                self.details,
            ]
        )

    # -- navigation ---------------------------------------------------------------

    def go(self, step: int) -> None:
        """Show the state after ``step``; -1 is the initial IR."""
        if not -1 <= step < len(self.trace.steps):
            raise IndexError(
                f"step {step} is out of range: -1 is the initial IR, then 0 to {len(self.trace.steps) - 1}"
            )
        self.step = step
        self._render()

    def next(self) -> None:
        """The next visible step."""
        later = [s for s in self.visible if s > self.step]
        if later:
            self.go(later[0])

    def prev(self) -> None:
        """The previous visible step."""
        earlier = [s for s in self.visible if s < self.step]
        if earlier:
            self.go(earlier[-1])

    def set_kind(self, kind: GraphKind) -> None:
        """Switch the graph pane to the dataflow, control flow (``cfg``) or nesting view."""
        self.kind = kind
        self._render()

    def set_filter(self, step_filter: StepFilter) -> None:
        """Offer only the steps ``step_filter`` keeps (the initial IR is always offered)."""
        self.filter = step_filter
        self._refresh_list()
        if self.step not in self.visible:
            later = [s for s in self.visible if s >= self.step]
            self.go(later[0] if later else self.visible[-1])
        else:
            self._render()

    def select_op(self, op_id: str | None) -> None:
        """Show an op's attributes, location and lineage in the details box."""
        self.selected_op = op_id
        self._render_details()

    # -- what is shown ----------------------------------------------------------------

    @property
    def drawn(self) -> StepGraph:
        """The graph shown now."""
        assert self._drawn is not None
        return self._drawn

    def header_html(self) -> str:
        """The step header pane."""
        return step_header(self.trace, self.step)

    def graph_html(self) -> str:
        """The graph pane: the step's pyvis page in a sandboxed iframe."""
        return graph_frame(self.drawn, self.graph_height)

    def diff_html(self) -> str:
        """The IR diff pane."""
        return diff_html(self.view.diff(self.step))

    def details_html(self) -> str:
        """The details pane for the selected op."""
        if self.selected_op is None:
            return '<div class="pv-details">Choose an op to see its attributes, location and lineage.</div>'
        return details_html(self.view.details(self.step, self.selected_op))

    def page_html(self) -> str:
        """Everything the stepper shows for this step, as one static page."""
        return stepper_page(self.header_html(), self.graph_html(), self.diff_html(), self.details_html())

    # -- rendering ------------------------------------------------------------------

    def _render(self) -> None:
        self._drawn = self.view.graph(self.step, self.kind)
        self._syncing = True
        try:
            position = self.visible.index(self.step) if self.step in self.visible else 0
            self.slider.value = position
            self.play.value = position
            self.step_list.value = self.step if self.step in self.visible else None
            self.kind_select.value = self.kind
            self._refresh_ops()
        finally:
            self._syncing = False
        self.header.value = self.header_html()
        self.graph_pane.value = self.graph_html()
        self.diff_pane.value = self.diff_html()
        self._render_details()

    def _render_details(self) -> None:
        self.details.value = self.details_html()

    def _refresh_list(self) -> None:
        kept = {s.index for s in self.filter.apply(self.trace.steps)}
        self.visible = [-1, *(s.index for s in self.trace.steps if s.index in kept)]
        options = [("   initial IR", -1), *((step_label(self.trace.steps[i]), i) for i in self.visible[1:])]
        self._syncing = True
        try:
            self.step_list.options = options
            self.slider.max = len(self.visible) - 1
            self.play.max = len(self.visible) - 1
        finally:
            self._syncing = False

    def _refresh_ops(self) -> None:
        """Offer the ops of the graph shown, changed ones first."""
        changed = [n for n in self.drawn.changed if n.startswith("o")]
        state = self.view.state(self.step)
        rest = [op for op in state.ops if op not in changed and op != state.root]
        names = {o: op.name for o, op in state.ops.items()}
        if self.step >= 0:
            names.update(
                {o: op.name for o, op in self.view.states.before(self.step).ops.items() if o not in names}
            )
        options: list[tuple[str, str | None]] = [(_NO_OP, None)]
        options += [(f"{o} {names.get(o, '')} ({self.drawn.graph.nodes[o]['status']})", o) for o in changed]
        options += [(f"{o} {names[o]}", o) for o in rest]
        self.op_select.options = options
        self.op_select.value = self.selected_op if self.selected_op in {v for _, v in options} else None

    # -- callbacks ------------------------------------------------------------------

    def _on_prev(self, _button: object) -> None:
        self.prev()

    def _on_next(self, _button: object) -> None:
        self.next()

    def _on_slider(self, change: dict[str, Any]) -> None:
        if self._syncing:
            return
        position = cast(int, change["new"])
        if 0 <= position < len(self.visible):
            self.go(self.visible[position])

    def _on_list(self, change: dict[str, Any]) -> None:
        if self._syncing or change["new"] is None:
            return
        self.go(cast(int, change["new"]))

    def _on_kind(self, change: dict[str, Any]) -> None:
        if not self._syncing:
            self.set_kind(cast(GraphKind, change["new"]))

    def _on_op(self, change: dict[str, Any]) -> None:
        if not self._syncing:
            self.select_op(cast("str | None", change["new"]))

    def _on_filter(self, change: dict[str, Any]) -> None:
        pass_name = str(self.pass_select.value)  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        self.set_filter(
            StepFilter(
                changed_only=bool(self.changed_only.value),
                pass_name=None if pass_name == _ALL_PASSES else pass_name,
                pattern=self.pattern_text.value.strip() or None,
                touching=self.touching_text.value.strip() or None,
            )
        )

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, Any]:
        """The widget, with the trace's static summary for frontends that cannot show widgets."""
        widget = self.widget
        bundle = cast(dict[str, Any], widget._repr_mimebundle_())  # pyright: ignore[reportUnknownMemberType, reportPrivateUsage]
        return {**trace_mimebundle(self.trace), **bundle}
