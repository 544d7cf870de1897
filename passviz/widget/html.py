"""HTML fragments of the stepper: IR diff, graph frame, step header, op details.

Every string taken from a trace is escaped here; the graph page runs in a
sandboxed ``<iframe srcdoc>``, so nothing in it can reach the notebook.
"""

from __future__ import annotations

from html import escape

from passviz.graph.diff import DiffRow
from passviz.graph.export import LEGEND_CSS, offline_html, to_pyvis
from passviz.graph.view import OpDetails, StepGraph
from passviz.trace.model import Step, Trace
from passviz.trace.summary import step_counts, step_title

STEPPER_CSS = (
    LEGEND_CSS
    + """
.pv-diff { border-collapse: collapse; font: 12px/1.35 monospace; width: 100%; table-layout: fixed; }
.pv-diff td { padding: 0 6px; white-space: pre; overflow: hidden; text-overflow: ellipsis;
  vertical-align: top; }
.pv-diff td.pv-no { width: 3.2em; color: #999; text-align: right; user-select: none; }
.pv-diff tr.pv-delete td.pv-l, .pv-diff tr.pv-replace td.pv-l { background: #fde2e2; }
.pv-diff tr.pv-insert td.pv-r, .pv-diff tr.pv-replace td.pv-r { background: #dcf5dc; }
.pv-diff tr.pv-skip td { color: #888; background: #f4f4f4; font-style: italic; }
.pv-diff th { font: bold 12px sans-serif; text-align: left; padding: 2px 6px; }
.pv-head { font: 14px sans-serif; padding: 2px 0; }
.pv-head .pv-counts { font: 12px monospace; color: #555; margin-left: 8px; }
.pv-flagged { background: #fde2e2; color: #8c1a1b; border-left: 4px solid #d62728; padding: 4px 8px;
  font: 13px sans-serif; white-space: pre-wrap; }
.pv-details { font: 12px sans-serif; }
.pv-details code { font-size: 12px; }
.pv-details td { padding: 0 6px; vertical-align: top; }
.pv-frame { width: 100%; border: 1px solid #ccd; }
"""
)


def diff_html(rows: list[DiffRow], *, left_title: str = "before", right_title: str = "after") -> str:
    """A side-by-side diff table: removed lines red on the left, added green on the right."""
    if not rows:
        return '<div class="pv-details">The initial IR: nothing to compare with.</div>'
    body = "".join(_diff_row(row) for row in rows)
    return (
        '<table class="pv-diff"><colgroup><col style="width:3.2em"><col><col style="width:3.2em"><col>'
        f"</colgroup><tr><th></th><th>{escape(left_title)}</th><th></th><th>{escape(right_title)}</th></tr>"
        f"{body}</table>"
    )


def _diff_row(row: DiffRow) -> str:
    def cell(number: int | None, text: str | None, side: str) -> str:
        no = "" if number is None else str(number)
        return f'<td class="pv-no">{no}</td><td class="pv-{side}">{escape(text or "")}</td>'

    left = cell(row.left_no, row.left, "l")
    right = cell(row.right_no, row.right, "r")
    return f'<tr class="pv-{row.tag}">{left}{right}</tr>'


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


def details_html(details: OpDetails) -> str:
    """An op's text, location, parents, attributes and lineage."""
    if not details.name:
        return f'<div class="pv-details">No op <code>{escape(details.id)}</code> at this step.</div>'
    state = "" if details.alive else " <i>(erased by this step; shown as it was)</i>"
    attrs = "".join(
        f"<tr><td><code>{escape(name)}</code></td><td><code>{escape(value)}</code></td></tr>"
        for name, value in details.attrs
    )
    lineage = "".join(
        f"<tr><td>step {event.step}</td><td>{escape(event.action)}"
        + (f" by {escape(', '.join(event.by))}" if event.by else "")
        + f"</td><td><code>{escape(event.op)}</code></td><td>{escape(event.pattern or '')}</td>"
        f"<td><code>{escape(event.text or '')}</code></td></tr>"
        for event in details.lineage
    )
    return (
        f'<div class="pv-details"><p><b><code>{escape(details.id)}</code> '
        f"{escape(details.name)}</b>{state}</p>"
        f"<p><code>{escape(details.text)}</code></p>"
        f"<p>location: <code>{escape(details.loc or 'unknown')}</code> · inside: "
        f"<code>{escape(' › '.join(details.parents))}</code></p>"
        f"<p><b>attributes</b></p><table>{attrs or '<tr><td>none</td></tr>'}</table>"
        f"<p><b>lineage</b> (replace links followed both ways)</p>"
        f"<table>{lineage or '<tr><td>never changed</td></tr>'}</table></div>"
    )


def stepper_page(header: str, graph: str, diff: str, details: str) -> str:
    """The stepper's panes as one static page (for tests, and for sharing a step)."""
    return (
        f'<!doctype html><html><head><meta charset="utf-8"><style>{STEPPER_CSS}</style>'
        f"<title>passviz step</title></head><body>{header}{graph}{diff}{details}</body></html>"
    )
