"""HTML fragments of ``show_graph``'s static figure: the graph frame and the step header.

Every string taken from a trace is escaped here; the graph page runs in a
sandboxed ``<iframe srcdoc>``, so nothing in it can reach the notebook.
"""

from __future__ import annotations

from html import escape

from passviz.trace.model import Step, Trace
from passviz.trace.summary import step_counts, step_title
from passviz.view.export import LEGEND_CSS, offline_html, to_pyvis
from passviz.view.view import StepGraph

FIGURE_CSS = (
    LEGEND_CSS
    + """
.pv-head { font: 14px sans-serif; padding: 2px 0; }
.pv-head .pv-counts { font: 12px monospace; color: #555; margin-left: 8px; }
.pv-flagged { background: #fde2e2; color: #8c1a1b; border-left: 4px solid #d62728; padding: 4px 8px;
  font: 13px sans-serif; white-space: pre-wrap; }
.pv-frame { width: 100%; border: 1px solid #ccd; }
"""
)


def graph_page(drawn: StepGraph, height: int = 520) -> str:
    """The step's graph as a self-contained offline page (pyvis, vis-network in line)."""
    net = to_pyvis(drawn.graph, drawn.positions, height=f"{height}px")
    return offline_html(net, drawn.note, drawn.box)


def graph_frame(drawn: StepGraph, height: int = 520) -> str:
    """The graph page in a sandboxed iframe, as the stepper's graph pane shows it."""
    page = graph_page(drawn, height)
    return (
        f'<iframe class="pv-frame" sandbox="allow-scripts" style="height:{height + 60}px" '
        f'title="passviz graph" srcdoc="{escape(page, quote=True)}"></iframe>'
    )


def step_header(trace: Trace, step: int) -> str:
    """The current step's title, counts and, for a flagged step, its message."""
    if step < 0:
        meta = trace.meta
        return (
            f'<div class="pv-head"><b>initial IR</b> of {escape(meta["input"])} '
            f'<span class="pv-counts">{len(trace.steps)} steps through '
            f"{escape(meta['pipeline'])}</span></div>"
        )
    current: Step = trace.steps[step]
    head = (
        f'<div class="pv-head"><b>step {escape(step_title(current))}</b>'
        f'<span class="pv-counts">{escape(step_counts(current))}</span></div>'
    )
    flag = current.flag
    if flag is None:
        return head
    detail = f"\n{flag['detail']}" if "detail" in flag else ""
    cycle = f"\ncycle: {' → '.join(flag['cycle'])}" if "cycle" in flag else ""
    return head + (
        f'<div class="pv-flagged"><b>{escape(flag["kind"])}</b>: {escape(flag["message"])}'
        f"{escape(cycle)}{escape(detail)}</div>"
    )
