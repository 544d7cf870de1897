"""Every command in README.md works after exactly the install line that precedes it (issue 24).

What is a command.  README's fenced ```` ```sh ```` blocks, each run as one bash script (heredocs
and ``&&`` chains as written), and its ```` ```python ```` blocks that are whole programs, each run
by ``python -``.  A Python block is a whole program when it compiles as a module and binds every
name it reads, builtins aside; anything else is a fragment of a program the prose describes (the
indented body at the ``SwapAddiOperands`` fix, ``triton_frontend_ir(add_kernel, ...)`` with the
reader's kernel) and is skipped, the test saying why.  An untagged (or ```` ```diff ````) block
right after a command block is that command's expected output: each of its lines but ``...`` must
be a line of what the block printed, spaces aside.  Every block exits 0 but those in
``EXPECTED_STATUS``.

Which install line precedes a block.  The last install line (``pip install`` in a command block,
or in an inline code span of the prose) of the block's section (``##`` or ``###`` heading) before
it; in a section without one, the fresh machine's ``python -m pip install -e .`` at the top.
- After that plain ``python -m pip install -e .``, blocks run in a virtualenv this test makes
  afresh (once per session: the module-scoped ``fresh_venv``) with exactly that line, run from the
  checkout.  Only ``PIP_NO_COMPILE=1`` is added: pip then writes no bytecode for the build
  environment it throws away (a third of the install's time on two cores), and what is installed
  is the same.  The editable build does not run Node again: it rebuilds the viewer only when
  ``extension/src`` is newer than ``passviz/labextension`` (``editable-build-kwargs`` in
  pyproject.toml), which CI's install built moments before; the test says which it was.
- After an install with extras (``.[triton]``, ``.[iree]``, ``.[cuda]``) or one adding JupyterLab,
  blocks run in this test's own virtualenv, which holds ``.[test,triton,iree]`` (JupyterLab
  comes with ``test``): a superset of each such line but ``[cuda]``, without making another
  virtualenv per extra.  What needs a GPU (``--gpu``, ``[cuda]``) is skipped with its reason.

Blocks run in README order, each after the ones before it (later ones read what earlier ones
wrote), in a temporary folder holding copies of README.md and examples/ (where README's relative
paths point), so the checkout stays clean: ``test_the_checkout_stays_clean`` checks ``git status``.
``NOT_RUN`` lists the commands that are never run, each with its reason.
"""

from __future__ import annotations

import builtins
import os
import re
import shutil
import subprocess
import symtable
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
"""The checkout."""

README = ROOT / "README.md"

NOT_RUN: dict[str, str] = {
    r"\bin\.mlir\b|\bmy_kernel\.py\b": "runs the reader's own compiler on the reader's own input "
    "(in.mlir, my_kernel.py), which the README does not give",
    r"python -m pytest": "the test command: .ci/run runs it verbatim as CI's first stage, and it runs this test",
    r"(^|&& )jupyter lab( |$)": "starts a JupyterLab server and waits for a browser",
    r"\bjlpm\b": "builds the extension with Node (minutes); every install from a checkout runs that build "
    "(tests/test_extension_build.py)",
    r"\bpassviz view\b(?!.*--no-browser)": "opens a browser",
    r"\bapt-get\b": "installs system packages as root",
}
"""Regular expressions for commands that are not run, and why: a command block any of whose lines
matches one is skipped whole."""

EXPECTED_STATUS: dict[str, int] = {
    # README: "The run exits with status 1, one line on stderr, and the trace is written up to the
    # flagged step."
    "--max-rewrites 20": 1,
    # README: "the exit status is 1 when they part".
    "passviz diverge out/before.passviz.json": 1,
}
"""A block containing the key exits with the status, not 0."""

NEEDS_GPU = re.compile(r"--gpu\b")
"""Commands that need a GPU (and pycuda)."""

FRESH_INSTALL = "python -m pip install -e ."
"""The fresh machine's install line: the blocks after it run in a virtualenv made with it alone."""

INSTALL = re.compile(r"(?:python3? -m )?pip install [^&;]*[^&;\s]")
"""An install command, in a command block or an inline code span."""

INLINE_CODE = re.compile(r"`([^`]+)`")

BLOCK_TIMEOUT = 300
"""Seconds one block may take."""


@dataclass
class Block:
    """One fenced block of README.md."""

    line: int
    """README line of the opening fence."""
    lang: str
    text: str
    """The block's lines, less the fence's indentation."""
    section: str
    end: int
    """README line of the closing fence."""
    install: str = ""
    """The install line in effect (for a block holding one, that line)."""
    setup: str = ""
    """For a block holding its install line: the commands up to and including it, which the
    test's virtualenv stands for; the block runs what follows."""
    expected: Block | None = None
    """The expected output shown right after a command block."""
    skip: str = ""
    """Why the block is not run (empty: it is run)."""
    previous: list[Block] = field(default_factory=lambda: [])
    """The blocks before it that run (in README order)."""

    @property
    def id(self) -> str:
        return f"{self.lang}@{self.line}"


def parse_readme(text: str) -> list[Block]:
    """README's fenced blocks, with the install line in effect for each."""
    blocks: list[Block] = []
    section, section_install = "", ""
    prose: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        opening = re.match(r"^(\s*)```(\S*)\s*$", line)
        if opening is None:
            assert not line.lstrip().startswith("```"), (
                f"README.md:{i + 1}: a fence with text after it: {line!r}"
            )
            if re.match(r"^#{2,3} ", line):
                section, section_install, prose = line.lstrip("# "), "", []
            else:
                prose.append(line)
            i += 1
            continue
        # Install lines in the prose since the previous block (a code span may wrap a line).
        spans = [" ".join(span.split()) for span in INLINE_CODE.findall("\n".join(prose))]
        section_install = next((s for s in reversed(spans) if INSTALL.fullmatch(s)), section_install)
        prose = []
        indent, lang = opening.group(1), opening.group(2)
        first = i + 1
        body: list[str] = []
        i += 1
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            assert not lines[i].lstrip().startswith("```"), f"README.md:{i + 1}: a fence with text after it"
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        assert i < len(lines), f"README.md:{first}: a block that never closes"
        block = Block(line=first, lang=lang, text="\n".join(body) + "\n", section=section, end=i + 1)
        own = INSTALL.findall(block.text) if lang == "sh" else []
        block.install = own[0] if own else section_install or FRESH_INSTALL
        if own:
            section_install = own[-1]
        blocks.append(block)
        i += 1
    for before, after in zip(blocks, blocks[1:], strict=False):
        between = lines[before.end : after.line - 1]
        if before.lang == "sh" and after.lang in ("", "diff") and not any(line.strip() for line in between):
            before.expected = after
    return blocks


def _is_fresh(install: str) -> bool:
    """Whether ``install`` is the plain editable install (``python -m`` or not)."""
    return re.sub(r"^python3? -m ", "", install) == "pip install -e ."


def _unbound_names(code: str) -> list[str]:
    """The names a module reads but never binds, builtins aside."""
    table = symtable.symtable(code, "README.md", "exec")
    bound = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    bound |= {child.get_name() for child in table.get_children()}
    free: set[str] = set()

    def visit(scope: symtable.SymbolTable) -> None:
        for symbol in scope.get_symbols():
            if symbol.is_referenced() and (scope is table or symbol.is_global()):
                free.add(symbol.get_name())
        for child in scope.get_children():
            visit(child)

    visit(table)
    return sorted(name for name in free - bound if not hasattr(builtins, name))


def _why_not_run(block: Block) -> str:
    """Why ``block`` is not run, or ``""``."""
    if block.lang == "python":
        try:
            unbound = _unbound_names(block.text)
        except SyntaxError as error:
            return f"a fragment, not a whole program ({error.msg}, line {error.lineno})"
        if unbound:
            return f"a fragment, not a whole program: it reads {', '.join(unbound)} without defining them"
        return ""
    for line in block.text.splitlines():
        for pattern, reason in NOT_RUN.items():
            if re.search(pattern, line):
                return f"not run, {reason}: {line.strip()[:80]}"
    if NEEDS_GPU.search(block.text) or "[cuda]" in block.install:
        return "needs an NVIDIA GPU and pycuda (the [cuda] extra): tests/gpu runs these where there is one"
    return ""


def _split_setup(block: Block) -> None:
    """For a block that holds its install line, leave the commands after it to run."""
    parts = block.text.strip().split(" && ")
    if block.install not in parts:
        return
    at = parts.index(block.install)
    setup = parts[: at + 1]
    known = {"python3 -m venv .venv", ". .venv/bin/activate", block.install}
    assert set(setup) <= known, f"README.md:{block.line}: the test does not know how to make {setup}"
    block.setup = " && ".join(setup)
    block.text = " && ".join(parts[at + 1 :]) + "\n"


def readme_blocks() -> list[Block]:
    """The blocks to run or skip, each knowing the runnable blocks before it."""
    blocks = [b for b in parse_readme(README.read_text(encoding="utf-8")) if b.lang in ("sh", "python")]
    runnable: list[Block] = []
    for block in blocks:
        block.skip = _why_not_run(block)
        if block.lang == "sh" and not block.skip:
            _split_setup(block)
        block.previous = list(runnable)
        if not block.skip:
            runnable.append(block)
    return blocks


try:
    BLOCKS, PARSE_ERROR = readme_blocks(), ""
except AssertionError as error:  # a test fails with it, and the rest of the suite still runs
    BLOCKS, PARSE_ERROR = [], str(error)


def _normal(line: str) -> str:
    return " ".join(line.split())


def _env(bin_folder: Path) -> dict[str, str]:
    """The environment of a shell whose ``bin_folder``'s virtualenv is active, no other."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    ours = Path(sys.prefix, "bin").resolve()
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and Path(p).resolve() != ours]
    env["PATH"] = os.pathsep.join([str(bin_folder), *path])
    env["VIRTUAL_ENV"] = str(bin_folder.parent)
    return env


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtualenv made afresh with exactly README's ``python -m pip install -e .``, run in the
    checkout; its ``bin`` folder."""
    venv = tmp_path_factory.mktemp("readme-venv") / ".venv"
    built = ROOT / "passviz" / "labextension" / "package.json"
    built_before = built.stat().st_mtime if built.exists() else None
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    env = _env(venv / "bin") | {"PIP_NO_COMPILE": "1"}
    done = subprocess.run(
        ["bash", "-c", FRESH_INSTALL],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=900,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"{FRESH_INSTALL} failed in a fresh virtualenv:\n{done.stdout[-6000:]}", pytrace=False)
    rebuilt = not built.exists() or built.stat().st_mtime != built_before
    print(
        f"\nREADME's fresh virtualenv: {FRESH_INSTALL} took {time.monotonic() - start:.0f} s, "
        + ("rebuilding the viewer with Node" if rebuilt else "the viewer's build up to date")
    )
    assert (venv / "bin" / "passviz").exists(), "the install made no passviz command"
    return venv / "bin"


@dataclass
class Ran:
    status: int
    output: str


class Runner:
    """Runs README's blocks in order in one working folder, each once."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.done: dict[int, Ran] = {}
        self.status_before = _git_status()
        """The checkout's ``git status`` before any block ran."""

    def run(self, block: Block, fresh: Callable[[], Path]) -> Ran:
        for earlier in block.previous:
            self._run_once(earlier, fresh)
        return self._run_once(block, fresh)

    def _run_once(self, block: Block, fresh: Callable[[], Path]) -> Ran:
        if block.line not in self.done:
            bin_folder = fresh() if _is_fresh(block.install) else Path(sys.prefix, "bin")
            if block.lang == "sh":
                command, stdin = ["bash", "-e", "-o", "pipefail", "-c", block.text], ""
            else:
                command, stdin = [str(bin_folder / "python"), "-"], block.text
            start = time.monotonic()
            done = subprocess.run(
                command,
                cwd=self.folder,
                env=_env(bin_folder),
                input=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=BLOCK_TIMEOUT,
                check=False,
            )
            print(f"README.md:{block.line} ({block.install}) ran in {time.monotonic() - start:.1f} s")
            self.done[block.line] = Ran(done.returncode, done.stdout)
        return self.done[block.line]


def _git_status() -> set[str] | None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return None
    done = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return set(done.stdout.splitlines()) if done.returncode == 0 else None


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Runner:
    """A working folder holding copies of README.md and examples/, and the checkout's state."""
    folder = tmp_path_factory.mktemp("readme-work")
    shutil.copy(README, folder / "README.md")
    shutil.copytree(ROOT / "examples", folder / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    return Runner(folder)


def _params() -> list[object]:
    return [
        pytest.param(block, id=block.id, marks=[pytest.mark.skip(reason=block.skip)] if block.skip else [])
        for block in BLOCKS
    ]


def test_readme_has_commands() -> None:
    """The parser finds README's blocks: the fresh machine's demo, run after its install line."""
    assert not PARSE_ERROR, PARSE_ERROR
    demo = [b for b in BLOCKS if b.setup]
    assert demo and demo[0].install == FRESH_INSTALL and "passviz trace" in demo[0].text, [
        (b.id, b.install, b.skip) for b in BLOCKS
    ]
    assert sum(1 for b in BLOCKS if not b.skip) >= 10


@pytest.mark.parametrize("block", _params())
def test_readme_command(block: Block, runner: Runner, request: pytest.FixtureRequest) -> None:
    ran = runner.run(block, lambda: request.getfixturevalue("fresh_venv"))
    where = f"README.md:{block.line} after `{block.install}`"
    expected_status = next((s for key, s in EXPECTED_STATUS.items() if key in block.text), 0)
    assert ran.status == expected_status, (
        f"{where} exited {ran.status}, not {expected_status}:\n{block.text}\n{ran.output[-4000:]}"
    )
    if block.expected is not None:
        printed = {_normal(line) for line in ran.output.splitlines()}
        missing = [
            line
            for line in block.expected.text.splitlines()
            if line.strip() and line.strip() != "..." and _normal(line) not in printed
        ]
        assert not missing, (
            f"{where} does not print the lines README.md:{block.expected.line} shows:\n"
            + "\n".join(missing)
            + f"\n--- it printed:\n{ran.output[-4000:]}"
        )


def test_the_checkout_stays_clean(runner: Runner, request: pytest.FixtureRequest) -> None:
    """Every block ran (or had run) in the working folder, and the checkout has nothing new."""
    before = runner.status_before
    if before is None:
        pytest.skip("not a git checkout")
    for block in BLOCKS:
        if not block.skip:
            runner.run(block, lambda: request.getfixturevalue("fresh_venv"))
    after = _git_status()
    assert after is not None
    assert not after - before, f"README's commands left these in the checkout: {sorted(after - before)}"
