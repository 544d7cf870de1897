"""Two traces of one input side by side in the viewer, stepping together (``passviz diverge --html``).

The traces: a user's pass before and after a change that breaks it
(``examples/bisect_demo.py``'s ``OrderSubfOperands``, as ``tests/test_diverge.py``
records them), and passviz's ``make-ttir`` against Triton's own compile of the
same kernel.  The oracle for "aligned" is the IR itself, replayed from each
trace (Triton's own dump on the captured side): at every pair of steps the
alignment calls counterparts, the two IRs are the same up to value names,
until the divergence, where they differ.  In headless Chromium, stepping one
viewer moves the other to its counterpart, the IR both show on screen agrees,
the divergence is marked in both timelines and "jump to divergence" (and
``d``) shows both there.  Screenshots go to ``tests/artifacts/``.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from passviz.cli import main
from passviz.pipelines import load_trace
from passviz.trace.alignment import PAIRINGS, align_steps, divergence_steps
from passviz.trace.diverge import diverge, normalized_ir
from passviz.trace.model import Trace
from passviz.trace.store import write_trace
from passviz.trace.summary import trace_mime_data
from passviz.view.page_policy import script_hash
from passviz.widget import sidebyside
from passviz.widget.sidebyside import side_by_side, side_by_side_html
from passviz.widget.standalone import ViewerAssets, ViewerNotBuiltError
from tests.conftest import BROWSER, artifacts_folder, browser_missing, need

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _replayed(trace: Trace, steps: list[int]) -> dict[int, list[str]]:
    """The IR after each of ``steps`` (increasing), replayed from the trace, normalized."""
    replay = trace.replay()
    out: dict[int, list[str]] = {}
    for step in steps:
        replay.advance_to(step)
        out[step] = normalized_ir(replay.text())
    return out


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The demo pass recorded before (A) and after (B) ``OrderSubfOperands`` was added."""
    folder = tmp_path_factory.mktemp("demo")
    good = folder / "good.py"
    text = (EXAMPLES / "bisect_demo.py").read_text(encoding="utf-8")
    good.write_text(
        text.replace("[TimesTwoToAdd(), OrderSubfOperands()]", "[TimesTwoToAdd()]"), encoding="utf-8"
    )
    paths = (folder / "before.passviz.json", folder / "after.passviz.json")
    for passes, out in zip((good, EXAMPLES / "bisect_demo.py"), paths, strict=True):
        source = EXAMPLES / "bisect_demo.mlir"
        pipeline = "demo-rewrites,canonicalize,cse"
        assert main(["trace", str(source), "-p", pipeline, "--passes-from", str(passes), "-o", str(out)]) == 0
    return paths


def test_counterparts_hold_the_same_ir_until_the_divergence(demo: tuple[Path, Path]) -> None:
    a, b = load_trace(demo[0]), load_trace(demo[1])
    result = diverge(a, b)
    alignment = align_steps(a, b, result)
    first = divergence_steps(result)
    assert first is not None
    ir_a = _replayed(a, [i for i, _ in alignment.pairs if i >= 0])
    ir_b = _replayed(b, [j for _, j in alignment.pairs if j >= 0])
    before = [(i, j) for i, j in alignment.pairs if 0 <= i < first[0]]
    # The pass's begin and its two rewrites both made, in order.
    assert before == [(0, 0), (1, 1)]
    for i, j in before:
        assert ir_a[i] == ir_b[j], (i, j)
    # B's third rewrite (OrderSubfOperands) has no counterpart: A stands at its last rewrite.
    assert alignment.of_b(first[1]).pairing == "within" and alignment.of_b(first[1]).step == first[0]
    assert _replayed(a, [first[0]])[first[0]] != _replayed(b, [first[1]])[first[1]]
    # Every step of each side has its place: the exact pairs both ways, the rest at the last pair.
    assert [c.step for c in alignment.a] == [-1, 0, 1, 2, 4, 5, 6, 7, 8, 9]
    assert [c.step for c in alignment.b] == [-1, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8]


EVIL = "</script><script>alert(1)</script><img src=x onerror=alert(2)>"
FAKE_JS = 'window.passvizMounted = "</script><!-- </SCRIPT >";'
PAIR_DATA = re.compile(r'<script type="application/json" id="passviz-pair">(.*?)</script>', re.DOTALL)


@pytest.fixture
def fake_viewer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sidebyside, "load_viewer_assets", lambda: ViewerAssets(css="", js=FAKE_JS))


def test_the_page_carries_both_traces_and_runs_only_its_bundle(
    fake_viewer: None, demo: tuple[Path, Path]
) -> None:
    a, b = load_trace(demo[0]), load_trace(demo[1])
    a.meta["input"] = b.meta["input"] = f"{EVIL}.mlir"
    page = side_by_side_html(a, b)
    policy = html.unescape(re.findall(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)[0])
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    bundle = page[page.rindex("<script>") + len("<script>") : page.rindex("</script>")]
    assert directives["script-src"] == script_hash(bundle) and directives["default-src"] == "'none'"
    # Trace text stays text: in the title escaped, in the data unable to end its element.
    assert page.lower().count("<script") == 2 and "<img" not in page and "alert(1)</script>" not in page
    data = json.loads(PAIR_DATA.findall(page)[0])
    assert data["a"] == {**trace_mime_data(a), "view": {"step": 2}}
    assert data["b"] == {**trace_mime_data(b), "view": {"step": 3}}
    pair = data["pair"]
    assert pair["summary"][0] == f"A: {EVIL}.mlir (recorded, 9 steps)"
    assert pair["divergence"] == [2, 3] and pair["first"] == 0
    assert [p[:2] for p in pair["passes"]] == [[3, 4], [6, 7], [8, 9]]
    assert len(pair["follow"][0]) == len(a.steps) + 1 and len(pair["follow"][1]) == len(b.steps) + 1
    assert pair["follow"][1][4] == [2, PAIRINGS.index("within")]
    assert any("arith.subf" in line for line in pair["diff"])


def test_in_a_notebook_it_is_the_page_in_a_sandboxed_frame(
    fake_viewer: None, demo: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown = side_by_side(demo[0], demo[1])
    assert shown.divergence.first == 0
    bundle = shown._repr_mimebundle_()  # pyright: ignore[reportPrivateUsage]
    frame = bundle["text/html"]
    assert frame.startswith('<iframe class="passviz-frame" sandbox="allow-scripts" ')
    srcdoc = html.unescape(re.findall(r'srcdoc="([^"]*)"', frame)[0])
    assert srcdoc == shown.html() and 'id="passviz-pair"' in srcdoc
    assert "first divergence: after pass 1 of 3" in bundle["text/plain"]
    assert shown.save(tmp_path / "p.html").read_text(encoding="utf-8") == srcdoc

    def unbuilt() -> ViewerAssets:
        raise ViewerNotBuiltError("not built")

    # Without the viewer bundle: what diverge says, as text.
    monkeypatch.setattr(sidebyside, "load_viewer_assets", unbuilt)
    fallback = shown._repr_html_()  # pyright: ignore[reportPrivateUsage]
    assert fallback.startswith("<pre>") and "+    %19 = arith.subf %14, %18" in html.unescape(fallback)


def test_diverge_view_opens_the_page(
    fake_viewer: None,
    demo: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    opened: list[str] = []

    def open_page(url: str) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr("webbrowser.open", open_page)
    assert main(["diverge", str(demo[0]), str(demo[1]), "--view"]) == 1
    line = capsys.readouterr().out.splitlines()[-1]
    path = Path(line.removeprefix("side by side: "))
    try:
        assert path.name.startswith("passviz-before-vs-after-") and opened == [path.resolve().as_uri()]
        assert 'id="passviz-pair"' in path.read_text(encoding="utf-8")
    finally:
        path.unlink()


def _drive(page: Path, actions: list[dict[str, Any]], name: str) -> dict[str, Any]:
    folder = artifacts_folder()
    plan = folder / f"plan-{name}.json"
    plan.write_text(
        json.dumps({"url": page.resolve().as_uri(), "artifacts": str(folder), "actions": actions})
    )
    done = subprocess.run(
        ["node", str(BROWSER / "side_by_side.mjs"), str(plan)],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    assert report["errors"] == [] and report["blocked"] == [], report
    assert report["results"]["loaded"] == {"pair": True, "error": None}
    return report["results"]


def _shown_ir(seen: dict[str, Any], side: int) -> list[str]:
    """The IR a viewer's pane shows after its step: its lines but the erased ones, normalized."""
    lines = seen["viewers"][side]["irText"].splitlines()
    return normalized_ir("\n".join(line[2:] for line in lines if not line.startswith("-")))


def _viewer_page() -> None:
    if not (ROOT / "passviz" / "static" / "viewer.js").exists():
        need("the viewer bundle is not built (pip install -e .)")
    need(browser_missing())


@pytest.mark.browser
def test_stepping_one_steps_the_other_and_the_divergence_is_marked(
    demo: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _viewer_page()
    page = tmp_path / "pair.html"
    assert main(["diverge", str(demo[0]), str(demo[1]), "--html", str(page)]) == 1
    assert f"side by side: {page}" in capsys.readouterr().out
    a = [{"key": "ArrowRight", "side": 0}]
    seen = _drive(
        page,
        [
            {"inspect": "open"},
            {"shot": "side-by-side-open"},
            {"key": "Home", "side": 0},
            *a,
            *a,
            {"inspect": "a1"},
            {"shot": "side-by-side-stepped"},
            {"key": "ArrowRight", "side": 1},
            {"key": "ArrowRight", "side": 1},
            {"inspect": "b3"},
            {"key": "ArrowRight", "side": 1},
            {"inspect": "b4"},
            {"click": ".pv-pair-jump"},
            {"inspect": "jumped"},
            {"key": "End", "side": 1},
            {"inspect": "end"},
            {"press": "d"},
            {"inspect": "pressed"},
            {"shot": "side-by-side-divergence"},
            {"click": 'input[aria-label="one above the other"]'},
            {"inspect": "stacked"},
        ],
        "side-by-side",
    )
    # It opens at the divergence, marked in both timelines and both headers.
    opened = seen["open"]
    assert opened["steps"] == [2, 3] and opened["divergence"] == [2, 3]
    assert opened["marked"] == [[2], [3]] and opened["badgeKinds"] == ["diverged", "diverged"]
    assert "OrderSubfOperands" in opened["viewers"][1]["title"]
    # The viewers sit side by side, each about half the page.
    left, right = opened["viewers"][0]["box"], opened["viewers"][1]["box"]
    assert left["x"] + left["w"] <= right["x"] and abs(left["w"] - right["w"]) < 4 and left["w"] > 800
    # ← → on A: B follows to the same rewrite, and both show the same IR.
    stepped = seen["a1"]
    assert stepped["steps"] == [1, 1] and stepped["focused"] == 0
    assert (
        "TimesTwoToAdd" in stepped["viewers"][0]["title"]
        and "TimesTwoToAdd" in stepped["viewers"][1]["title"]
    )
    assert _shown_ir(stepped, 0) == _shown_ir(stepped, 1)
    assert stepped["badges"] == ["⇄ aligned with B step 1", "⇄ aligned with A step 1"]
    # B's rewrite that A never made: A stays at its last rewrite, and says so.
    b3 = seen["b3"]
    assert b3["steps"] == [2, 3] and b3["focused"] == 1
    # B's pass end: A's pass end, the IR now differing in the subf's operands.
    b4 = seen["b4"]
    assert b4["steps"] == [3, 4] and b4["badgeKinds"] == ["aligned", "aligned"]
    subf = [[line for line in _shown_ir(b4, side) if "arith.subf" in line] for side in (0, 1)]
    assert subf[0] != subf[1] and len(subf[0]) == len(subf[1]) == 1
    # The control and d both jump back to the divergence.
    assert seen["jumped"]["steps"] == [2, 3]
    assert seen["end"]["steps"] == [8, 9]
    assert seen["pressed"]["steps"] == [2, 3]
    assert seen["pressed"]["badges"][0] == "● first divergence: after this step A and B differ"
    # One above the other, for a narrow screen: full width each, A on top.
    top, bottom = seen["stacked"]["viewers"][0]["box"], seen["stacked"]["viewers"][1]["box"]
    assert seen["stacked"]["stacked"] and top["y"] + top["h"] <= bottom["y"] and top["w"] > 1700


@pytest.mark.browser
@pytest.mark.triton
@pytest.mark.slow
def test_passviz_make_ttir_beside_tritons_own_compile(tmp_path: Path) -> None:
    """A recorded trace (every rewrite a step) beside a captured one (one step a pass)."""
    from tests.triton_oracle import triton_missing

    need(triton_missing())
    _viewer_page()
    import passviz
    from passviz.compilers.triton.frontend import triton_frontend_ir
    from tests.triton_kernels import KERNELS

    kernel = KERNELS["vector_add"]
    ported = passviz.record(triton_frontend_ir(kernel.fn, kernel.signature, kernel.constexprs), "make-ttir")
    captured = passviz.capture_triton(kernel.fn, kernel.signature, dict(kernel.constexprs))
    paths = (tmp_path / "ported.passviz.json", tmp_path / "captured.passviz.json")
    write_trace(ported, paths[0])
    write_trace(captured, paths[1])
    a, b = load_trace(paths[0]), load_trace(paths[1])
    result = diverge(a, b)
    alignment = align_steps(a, b, result)
    # Each aligned pass's end: passviz's IR and Triton's own, the same up to names.
    ends = [(pa.step, pb.step) for pa, pb in result.aligned]
    assert alignment.pairs == [(-1, -1), *ends]
    ir_a, ir_b = _replayed(a, [i for i, _ in ends]), _replayed(b, [j for _, j in ends])
    assert all(ir_a[i] == ir_b[j] for i, j in ends)
    page = tmp_path / "pair.html"
    assert main(["diverge", str(paths[0]), str(paths[1]), "--html", str(page)]) == 0
    canonicalize = next(index for index, (pa, _) in enumerate(result.aligned) if pa.key == "canonicalize")
    rewrite = next(s.index for s in a.steps if s.kind == "rewrite" and s.name and s.name.startswith("fold"))
    seen = _drive(
        page,
        [
            {"inspect": "open"},
            {"row": rewrite, "side": 0},
            {"inspect": "rewrite"},
            {"select": ".pv-pair-pass", "value": canonicalize},
            {"inspect": "pass"},
            {"shot": "side-by-side-triton-pass"},
            {"key": "End", "side": 1},
            {"inspect": "beyond"},
            {"shot": "side-by-side-triton-beyond"},
        ],
        "side-by-side-triton",
    )
    opened = seen["open"]
    assert opened["steps"] == [-1, -1] and opened["divergence"] is None and opened["marked"] == [[], []]
    # Every rewrite of passviz's passes has no counterpart in a dump of whole passes.
    assert opened["unpaired"][0] == len(a.steps) - len(ends)
    # A rewrite inside the inliner: Triton's side stays before the pass, and both say so.
    inside = seen["rewrite"]
    assert (
        inside["steps"] == [rewrite, alignment.of_a(rewrite).step]
        and inside["badgeKinds"] == ["unpaired"] * 2
    )
    assert inside["badges"][0].startswith("no counterpart in B (inside inline")
    # The pass list shows both after canonicalize: the same IR on screen.
    after = seen["pass"]
    assert after["steps"] == list(ends[canonicalize]) and after["pass"] == canonicalize
    assert _shown_ir(after, 0) == _shown_ir(after, 1)
    # Past make_ttir, Triton's compile goes on alone: passviz stays at its last pass.
    beyond = seen["beyond"]
    assert beyond["steps"] == [ends[-1][0], len(b.steps) - 1]
    assert beyond["badges"][1].startswith("no counterpart in A (after the last pass both ran)")


def test_view_with_two_traces_writes_the_side_by_side_page(
    fake_viewer: None, demo: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pair.html"
    assert main(["view", str(demo[0]), str(demo[1]), "-o", str(out), "--no-browser"]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    data = json.loads(PAIR_DATA.findall(out.read_text(encoding="utf-8"))[0])
    assert data["pair"]["divergence"] == [2, 3]
    assert main(["view", str(demo[0]), str(demo[1]), str(demo[0]), "--no-browser"]) == 1
    assert "one trace, or two" in capsys.readouterr().err
