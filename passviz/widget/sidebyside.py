"""Two traces of one input in the passviz viewer side by side, stepping together.

``passviz diverge A B --html OUT.html`` and ``side_by_side(a, b)`` in a
notebook show the same offline page: the viewer twice (``extension/src/view/
sidebyside.ts`` coordinates them), the first divergence marked with a control
that jumps to it, and each step's counterpart on the other side computed here
once (``passviz.trace.alignment``) and carried as data.  The page is
``standalone_html``'s with two traces: the bundle runs by its hash, the data
sits in a ``<script type="application/json">`` with everything that could end
it escaped, and nothing loads.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from passviz.ir.terminal import one_line
from passviz.pipelines import load_trace
from passviz.recording.initial import ensure_initial
from passviz.recording.replay import ReplayError
from passviz.trace.alignment import PAIRINGS, align_steps, divergence_steps, summary
from passviz.trace.diverge import Divergence, diverge
from passviz.trace.model import Trace
from passviz.trace.summary import trace_mime_data
from passviz.widget.standalone import (
    ViewerNotBuiltError,
    load_viewer_assets,
    viewer_page,
)

PAIR_HEIGHT = "780px"
"""How tall the two viewers are where a notebook shows them in an iframe."""

MAX_DIFF_LINES = 400
"""The most lines of the diff at the divergence the page carries."""


def pair_data(a: Trace, b: Trace, result: Divergence) -> dict[str, Any]:
    """What the page's coordinator reads (``extension/src/view/sidebyside.ts``): each step's
    counterpart on the other side, the aligned passes, the divergence and what diverge says."""
    alignment = align_steps(a, b, result)
    code = {name: index for index, name in enumerate(PAIRINGS)}
    first = divergence_steps(result)
    return {
        "follow": [
            [[c.step, code[c.pairing]] for c in alignment.a],
            [[c.step, code[c.pairing]] for c in alignment.b],
        ],
        "passes": [[pa.step, pb.step, pa.label, pb.label] for pa, pb in result.aligned],
        # Aligned passes before this one agree; this one is the first that does not.
        "first": -1 if result.initial_differs else result.first,
        "divergence": list(first) if first is not None else None,
        "summary": summary(a, b, result),
        "diff": result.diff[:MAX_DIFF_LINES],
        "diffCut": max(0, len(result.diff) - MAX_DIFF_LINES),
    }


def _side(trace: Trace, step: int) -> dict[str, Any]:
    """One trace's MIME data, opening at ``step``."""
    with suppress(ReplayError):
        ensure_initial(trace)
    data = trace_mime_data(trace)
    data["view"] = {"step": step}
    return data


def side_by_side_html(a: Trace, b: Trace, result: Divergence | None = None) -> str:
    """``a`` and ``b`` in the viewer side by side, as one offline page, opening at their first
    divergence (else at the initial IR).  ``result`` is ``diverge(a, b)`` if already computed.

    Raises ``ViewerNotBuiltError`` without the viewer bundle.
    """
    assets = load_viewer_assets()
    result = result if result is not None else diverge(a, b)
    start = divergence_steps(result) or (-1, -1)
    data = {"a": _side(a, start[0]), "b": _side(b, start[1]), "pair": pair_data(a, b, result)}
    names = " vs ".join(one_line(t.meta.get("input", "trace")) or "trace" for t in (a, b))
    return viewer_page(assets, names, "passviz-pair", data)


def _text_fallback(lines: list[str]) -> str:
    """The diverge report as escaped preformatted text (no viewer bundle to show the page)."""
    text = "\n".join(lines)
    return f"<pre>{escape(text)}</pre>"


@dataclass
class SideBySide:
    """Two traces of one input in the viewer side by side (``side_by_side``)."""

    a: Trace
    b: Trace
    divergence: Divergence = field(init=False)
    """``diverge(a, b)``: the aligned passes and where the traces part."""
    height: str = PAIR_HEIGHT

    def __post_init__(self) -> None:
        self.divergence = diverge(self.a, self.b)

    def summary(self) -> list[str]:
        """What ``passviz diverge`` prints, the diff aside."""
        return summary(self.a, self.b, self.divergence)

    def html(self) -> str:
        """The offline page (``passviz diverge A B --html``)."""
        return side_by_side_html(self.a, self.b, self.divergence)

    def save(self, path: str | Path) -> Path:
        """Write the page to ``path``; its path back."""
        out = Path(path)
        out.write_text(self.html(), encoding="utf-8")
        return out

    def _repr_html_(self) -> str:
        """The page in a sandboxed ``<iframe srcdoc>``: scripts confined to the frame, nothing loads."""
        try:
            page = self.html()
        except ViewerNotBuiltError:
            return _text_fallback([*self.summary(), *self.divergence.diff])
        title = escape(one_line(self.summary()[0] + " / " + self.summary()[1]))
        return (
            f'<iframe class="passviz-frame" sandbox="allow-scripts" title="passviz side by side: {title}" '
            f'style="width: 100%; height: {escape(self.height)}; border: 0" srcdoc="{escape(page)}"></iframe>'
        )

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, Any]:
        return {"text/html": self._repr_html_(), "text/plain": "\n".join(self.summary())}


def side_by_side(a: Trace | str | Path, b: Trace | str | Path, *, height: str = PAIR_HEIGHT) -> SideBySide:
    """``a`` and ``b`` (traces, or their files) in the viewer side by side, stepping together.

    Each step of one moves the other to its counterpart as ``passviz diverge``
    aligns them; the first divergence is marked, with a control that jumps to
    it.  In a notebook it shows in a sandboxed iframe; ``.save(path)`` writes
    the page.
    """
    first = a if isinstance(a, Trace) else load_trace(a)
    second = b if isinstance(b, Trace) else load_trace(b)
    return SideBySide(first, second, height=height)
