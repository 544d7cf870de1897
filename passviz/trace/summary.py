"""Static views of traces and steps: HTML summaries and the trace's MIME bundle.

These need no widgets and no JavaScript, so they show wherever a notebook
is rendered (GitHub, nbviewer, a frontend without ipywidgets).  Everything
taken from the trace is escaped: trace files are untrusted.  Pure string
building: nothing here replays the trace or needs xDSL, and the model is
imported for type checking alone (``Trace`` and ``Step`` display themselves
through this module).
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

from passviz.trace.records import TRACE_FORMAT, TRACE_VERSION, trace_records

if TYPE_CHECKING:
    from passviz.trace.model import Step, Trace

TRACE_MIME_TYPE = "application/vnd.passviz.trace+json"
"""The MIME type of a trace in a notebook output.

Its data is ``{"format": "passviz-trace", "version": 1, "records": [...]}``,
where ``records`` are the records of a trace file in order (header, steps,
end), each valid against ``trace.schema.json``; the header carries ``initial`` where the
trace has it (``trace_mime_data``).
"""

SUMMARY_ROWS = 200
"""Steps listed in a static summary before the rest is folded."""

_STYLE = (
    "<style>.pv-sum{font:13px sans-serif}.pv-sum td,.pv-sum th{padding:1px 8px;text-align:left}"
    ".pv-sum tr.pv-flag td{background:#fde2e2;color:#8c1a1b;font-weight:bold}"
    ".pv-sum code{font-size:12px}.pv-sum .pv-muted{color:#888}</style>"
)


def step_counts(step: Step) -> str:
    """``+added -erased ~modified`` and the moves and block changes, as step lists show them."""
    counts = f"+{step.count('ops_created')} -{step.count('ops_erased')} ~{step.count('ops_modified')}"
    extras = {
        "moved": len(step.delta.get("ops_moved", ())),
        "blocks+": len(step.delta.get("blocks_created", ())),
        "blocks-": len(step.delta.get("blocks_erased", ())),
        "blocks moved": len(step.delta.get("blocks_moved", ())),
        "args changed": len(step.delta.get("block_args", {})),
    }
    return counts + "".join(f"  {name} {n}" for name, n in extras.items() if n)


def step_title(step: Step) -> str:
    """One line naming a step: index, kind, pass and pattern or checkpoint."""
    parts = [f"{step.index}", step.kind, step.pass_name or "", step.name or ""]
    return " · ".join(p for p in parts if p)


def _step_row(step: Step) -> str:
    flag = step.flag
    css = ' class="pv-flag"' if flag is not None else ""
    note = f" — {escape(flag['kind'])}: {escape(flag['message'])}" if flag is not None else ""
    return (
        f"<tr{css}><td>{step.index}</td><td>{escape(step.kind)}</td><td>{escape(step.pass_name or '')}</td>"
        f"<td>{escape(step.name or '')}{note}</td><td><code>{escape(step_counts(step))}</code></td></tr>"
    )


def trace_html(trace: Trace) -> str:
    """A static summary: where the trace came from and a table of its steps."""
    meta = trace.meta
    failed = len(trace.failed_steps)
    head = (
        f"<b>passviz trace</b> of <code>{escape(meta['input'])}</code> through "
        f"<code>{escape(meta['pipeline'])}</code>: {len(trace.steps)} steps, status "
        f"<b>{escape(trace.status)}</b>" + (f", {failed} flagged" if failed else "")
    )
    rows = "".join(_step_row(step) for step in trace.steps[:SUMMARY_ROWS])
    more = len(trace.steps) - SUMMARY_ROWS
    folded = f'<p class="pv-muted">… and {more} more steps</p>' if more > 0 else ""
    warnings = "".join(f'<p class="pv-muted">{escape(w)}</p>' for w in trace.warnings)
    return (
        f'{_STYLE}<div class="pv-sum"><p>{head}</p>{warnings}<table>'
        "<tr><th>step</th><th>kind</th><th>pass</th><th>pattern / checkpoint</th><th>changes</th></tr>"
        f"{rows}</table>{folded}</div>"
    )


def step_html(step: Step) -> str:
    """A static summary of one step: its name, counts, flag and the ops it touched."""
    texts = step.delta.get("texts", {})
    items = "".join(
        f"<li><code>{escape(op)}</code>: <code>{escape(text)}</code></li>" for op, text in texts.items()
    )
    flag = step.flag
    flag_html = ""
    if flag is not None:
        flag_html = f'<p style="color:#8c1a1b"><b>{escape(flag["kind"])}</b>: {escape(flag["message"])}</p>'
    return (
        f'{_STYLE}<div class="pv-sum"><p><b>step {escape(step_title(step))}</b> '
        f"<code>{escape(step_counts(step))}</code></p>{flag_html}<ul>{items}</ul></div>"
    )


def trace_mime_data(trace: Trace) -> dict[str, Any]:
    """The data of the trace's MIME type (see ``TRACE_MIME_TYPE``).

    Its header carries ``initial`` when the trace has it: every trace recorded, and every
    trace ``passviz.load_trace`` read (it replays a version 1 file's initial IR for it).  A
    version 1 trace read otherwise keeps its version 1 header, with the initial IR as text.
    """
    return {"format": TRACE_FORMAT, "version": TRACE_VERSION, "records": trace_records(trace)}


def trace_mimebundle(trace: Trace) -> dict[str, Any]:
    """The trace as a notebook output: its data, a static HTML summary and plain text."""
    meta = trace.meta
    plain = f"<passviz trace: {meta['pipeline']} on {meta['input']}, {len(trace.steps)} steps>"
    return {TRACE_MIME_TYPE: trace_mime_data(trace), "text/html": trace_html(trace), "text/plain": plain}
