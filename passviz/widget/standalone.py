"""A trace as one self-contained, offline HTML page: the passviz viewer and its data.

The page holds the viewer bundle (``passviz/static/viewer.js`` and
``viewer.css``, built from ``extension/``) and the trace's MIME data in line.
Its Content-Security-Policy (``passviz.view.page_policy``) lets only the
bundle run, by its hash, and inline styles and ``data:`` images and fonts:
the page loads nothing, sends nothing and submits no form.  Trace files
are untrusted: the data sits in a ``<script type="application/json">`` with
every character that could end it escaped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html import escape
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from passviz.ir.terminal import one_line
from passviz.recording.initial import ensure_initial
from passviz.trace.model import Trace
from passviz.trace.summary import trace_mime_data
from passviz.view.page_policy import policy_meta

_JSON_UNSAFE = re.compile("[<>&\u2028\u2029\ud800-\udfff]")
"""What ends a script element or a line in it, and lone surrogates, which UTF-8 cannot hold."""
_SCRIPT_UNSAFE = re.compile(r"<(?=/script|!--)", re.IGNORECASE)


class ViewerNotBuiltError(FileNotFoundError):
    """The viewer bundle (``passviz/static/viewer.js``) is not in the installed package."""


@dataclass(frozen=True)
class ViewerAssets:
    """The built viewer: its stylesheet and its standalone script."""

    css: str
    js: str


def load_viewer_assets(static: Traversable | None = None) -> ViewerAssets:
    """Read ``viewer.css`` and ``viewer.js`` from ``static`` (default: the package's ``static`` folder)."""
    if static is None:
        static = resources.files("passviz").joinpath("static")
    missing = [name for name in ("viewer.css", "viewer.js") if not static.joinpath(name).is_file()]
    if missing:
        raise ViewerNotBuiltError(
            f"the passviz viewer bundle is not built (passviz/static/{missing[0]} is missing): "
            "install passviz with `pip install .`, or build it in a checkout with "
            "`cd extension && jlpm build:prod`"
        )
    return ViewerAssets(
        css=static.joinpath("viewer.css").read_text("utf-8"),
        js=static.joinpath("viewer.js").read_text("utf-8"),
    )


def script_json(data: object) -> str:
    """``data`` as JSON that is safe inside ``<script>`` and writable as UTF-8: ``<``, ``>``, ``&``,
    U+2028, U+2029 and lone surrogates (from a trace's ``"\\ud800"``) escaped as ``\\uXXXX``."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def inline_script(js: str) -> str:
    """The bundle, with ``</script`` and ``<!--`` (in its strings) unable to end the element."""
    return _SCRIPT_UNSAFE.sub(r"\\x3C", js)


def inline_style(css: str) -> str:
    """The stylesheet, with ``</`` unable to end the element."""
    return css.replace("</", "<\\/")


def standalone_html(trace: Trace, view: dict[str, Any] | None = None) -> str:
    """The trace in the passviz viewer, as one offline HTML page; ``view`` sets how it opens.

    ``view`` holds the viewer's options (``step``, ``edges``, ``filter``,
    ``steps``; see ``passviz.widget.stepper``).  Raises ``ViewerNotBuiltError``
    without the viewer bundle, and ``ReplayError`` for a trace without
    ``initial`` that cannot be replayed.
    """
    assets = load_viewer_assets()
    ensure_initial(trace)
    data = trace_mime_data(trace)
    if view:
        data["view"] = view
    return viewer_page(assets, one_line(trace.meta["input"]) or "trace", "passviz-trace", data)


def viewer_page(assets: ViewerAssets, title: str, data_id: str, data: dict[str, Any]) -> str:
    """The offline page that runs the viewer bundle on ``data``, the JSON in the element
    ``data_id`` (``passviz-trace``: one trace; ``passviz-pair``: two side by side); only the bundle
    may run (the page's policy names its hash)."""
    script = inline_script(assets.js)
    return (
        "<!doctype html>\n"
        '<html lang="en">\n<head>\n'
        '<meta charset="utf-8">\n'
        f"{policy_meta([script])}\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>passviz — {escape(title)}</title>\n"
        f"<style>{inline_style(assets.css)}</style>\n"
        '</head>\n<body class="passviz-standalone">\n'
        '<div id="passviz-root"></div>\n'
        f'<script type="application/json" id="{data_id}">{script_json(data)}</script>\n'
        f"<script>{script}</script>\n"
        "</body>\n</html>\n"
    )


IFRAME_HEIGHT = "640px"
"""How tall the viewer is where a notebook shows it in an iframe."""


def viewer_iframe(trace: Trace, view: dict[str, Any] | None = None, height: str = IFRAME_HEIGHT) -> str:
    """The offline viewer page of ``trace`` in a sandboxed ``<iframe srcdoc>``.

    This is a trace's HTML in a notebook: where the passviz extension is not
    installed (VS Code, Notebook 7 without it, nbviewer, a notebook exported
    to HTML), the same viewer runs inside the frame, its scripts confined to
    it (``sandbox="allow-scripts"``: no same origin, no forms, no top
    navigation) and the page's policy letting nothing load.
    """
    page = standalone_html(trace, view)
    title = escape(one_line(f"passviz viewer: {trace.meta['pipeline']} on {trace.meta['input']}"))
    return (
        f'<iframe class="passviz-frame" sandbox="allow-scripts" title="{title}" '
        f'style="width: 100%; height: {escape(height)}; border: 0" srcdoc="{escape(page)}"></iframe>'
    )
