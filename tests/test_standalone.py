"""The standalone viewer page, and ``passviz export`` / ``passviz view``."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from passviz.cli import main
from passviz.pipelines import record
from passviz.trace.model import Trace
from passviz.trace.summary import trace_mime_data
from passviz.view.page_policy import script_hash
from passviz.widget import standalone
from passviz.widget.standalone import (
    ViewerAssets,
    ViewerNotBuiltError,
    load_viewer_assets,
    script_json,
    standalone_html,
)
from tests.test_replay import CF_INPUT

EVIL = "</script><script>alert(1)</script><img src=x onerror=alert(2)>"
EVIL_INPUT = f"""
func.func @f(%x: i32) -> i32 {{
  %0 = arith.constant {{note = "{EVIL.replace('"', "")}"}} 1 : i32
  %1 = arith.addi %x, %0 : i32
  func.return %1 : i32
}}
"""
FAKE_JS = 'window.passvizMounted = "</script><!-- </SCRIPT >";'
FAKE_CSS = "#passviz-root { height: 100%; } /* </style> */"
DATA_RE = re.compile(r'<script type="application/json" id="passviz-trace">(.*?)</script>', re.DOTALL)


@pytest.fixture
def fake_viewer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(standalone, "load_viewer_assets", lambda: ViewerAssets(css=FAKE_CSS, js=FAKE_JS))


@pytest.fixture(scope="module")
def evil_trace() -> Trace:
    return record(EVIL_INPUT, "canonicalize", filename=f"{EVIL}.mlir").trace


def _data(page: str) -> dict[str, Any]:
    found = DATA_RE.findall(page)
    assert len(found) == 1
    return json.loads(found[0])


def test_page_structure(fake_viewer: None, evil_trace: Trace) -> None:
    page = standalone_html(evil_trace)
    assert page.startswith("<!doctype html>\n")
    assert '<meta charset="utf-8">' in page
    policy = html.unescape(re.findall(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)[0])
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'none'" and "connect-src" not in directives
    # Only the bundle runs, by its hash: no inline script or handler an escaping bug let in.
    bundle = page[page.rindex("<script>") + len("<script>") : page.rindex("</script>")]
    assert directives["script-src"] == script_hash(bundle)
    assert directives["form-action"] == "'none'" and directives["base-uri"] == "'none'"
    head, body = page.split('<body class="passviz-standalone">')
    assert head.index("Content-Security-Policy") < head.index("<style>")
    assert "<style>#passviz-root { height: 100%; } /* <\\/style> */</style>" in head
    assert body.index('<div id="passviz-root"></div>') < body.index('id="passviz-trace"')
    assert body.index('id="passviz-trace"') < body.rindex("<script>")
    assert '"\\x3C/script>\\x3C!-- \\x3C/SCRIPT >"' in body  # the bundle cannot end its element


def test_trace_text_cannot_break_out(fake_viewer: None, evil_trace: Trace) -> None:
    page = standalone_html(evil_trace)
    assert "<title>passviz — &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img" in page
    assert page.lower().count("<script") == 2 and page.lower().count("</script") == 2
    assert "<img" not in page and "alert(1)</script>" not in page
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", page, re.IGNORECASE)
    data = _data(page)
    assert data == trace_mime_data(evil_trace)
    header = data["records"][0]
    assert header["meta"]["input"] == f"{EVIL}.mlir"
    assert header["initial"] == evil_trace.initial
    texts = header["initial"]["delta"]["texts"].values()
    assert any("alert(1)" in t for t in texts)


def test_script_json_escapes_what_could_end_a_script() -> None:
    value = {"a": "</script>&<!--\u2028\u2029é"}
    text = script_json(value)
    assert not set("<>&\u2028\u2029") & set(text)
    assert "\\u003c/script\\u003e\\u0026\\u003c!--\\u2028\\u2029é" in text
    assert json.loads(text) == value


def test_missing_bundle_says_how_to_build_it(tmp_path: Path) -> None:
    with pytest.raises(
        ViewerNotBuiltError, match=r"viewer bundle is not built.*cd extension && jlpm build:prod"
    ):
        load_viewer_assets(tmp_path)
    (tmp_path / "viewer.css").write_text("p{}")
    (tmp_path / "viewer.js").write_text("1;")
    assert load_viewer_assets(tmp_path) == ViewerAssets(css="p{}", js="1;")


# -- the command line ---------------------------------------------------------------------------


@pytest.fixture
def trace_file(tmp_path: Path) -> Path:
    path = tmp_path / "cf.passviz.json"
    record(CF_INPUT, "canonicalize", output=path)
    return path


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []

    def fake_open(url: str) -> bool:
        calls.append(url)
        return True

    monkeypatch.setattr("webbrowser.open", fake_open)
    return calls


def test_export_writes_the_page(
    fake_viewer: None, trace_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "page.html"
    assert main(["export", str(trace_file), "--html", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    page = out.read_text(encoding="utf-8")
    assert _data(page)["records"][0]["initial"]["root"] == "o0"


def test_view_writes_a_temp_page_and_opens_it(
    fake_viewer: None, trace_file: Path, opened: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["view", str(trace_file)]) == 0
    path = Path(capsys.readouterr().out.strip())
    try:
        assert path.name.startswith("passviz-cf-") and path.suffix == ".html"
        assert opened == [path.resolve().as_uri()]
        assert 'id="passviz-root"' in path.read_text(encoding="utf-8")
    finally:
        path.unlink()


def test_view_to_a_given_file_without_a_browser(
    fake_viewer: None, trace_file: Path, tmp_path: Path, opened: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "v.html"
    assert main(["view", str(trace_file), "--no-browser", "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    assert out.exists() and opened == []


def test_view_says_when_no_browser_opens(
    fake_viewer: None,
    trace_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("webbrowser.open", lambda url: False)
    assert main(["view", str(trace_file), "-o", str(tmp_path / "v.html")]) == 0
    assert "no browser could be opened" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["export", "view"])
def test_bad_traces_get_one_line_errors(
    fake_viewer: None, command: str, tmp_path: Path, opened: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    out = ["--html", str(tmp_path / "o.html")] if command == "export" else ["-o", str(tmp_path / "o.html")]
    assert main([command, str(tmp_path / "missing.json"), *out]) == 1
    err = capsys.readouterr().err
    assert err.startswith("passviz: error:") and len(err.strip().splitlines()) == 1
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text("hello\nworld\n")
    assert main([command, str(corrupt), *out]) == 1
    err = capsys.readouterr().err
    assert err.startswith("passviz: error:") and "not valid JSON" in err
    assert not (tmp_path / "o.html").exists() and opened == []


def test_missing_bundle_is_a_one_line_error(
    trace_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = load_viewer_assets
    monkeypatch.setattr(standalone, "load_viewer_assets", lambda: real(tmp_path))
    assert main(["export", str(trace_file), "--html", str(tmp_path / "o.html")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("passviz: error: the passviz viewer bundle is not built") and "\n" not in err
