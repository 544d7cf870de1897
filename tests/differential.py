"""Differential testing of passviz's input parser and verifier against real MLIR.

Each input is given to passviz, parsed and verified exactly as ``passviz trace`` reads its input
(``passviz_verdict``), and to an oracle: Triton's own parser and verifier for Triton IR
(``triton_verdicts``), ``iree-opt`` 3.13 for the rest (``iree_verdicts``).  Both verdicts are an
acceptance or a rejection at a line; they must agree (``compare``).

The inputs (``campaign``) are seeded mutations of seed IR that the oracle accepts: the peer
projects' test files (``../shared/peer``, split at ``// -----``) and the IR the tests hold in
their own string literals.  The mutations (``MUTATIONS``) are those that MLIR's verifier and
lexer are about: a use moved above its definition, a terminator dropped, an operand added or
dropped, a value taken out of its region or into another function, a digit that is not ASCII, an
integer type wider than MLIR allows, types changed, lines dropped, duplicated or swapped, and the
random text edits of ``tests/fuzz.py``.

The oracles run in batches: ``iree-opt --split-input-file`` reads all inputs joined at
``// -----`` in one process (its diagnostics name lines of the joined file, mapped back to each
input's; every input ends its last line, as each part of a split file does), and Triton's
``ir.parse_mlir_module`` reads them in one worker process (``tests/triton_parse_worker.py``),
started again past an input it aborts on.  A crash of the oracle is no verdict.

    python -m tests.differential --oracle iree --count 1000 --seed 0    # the disagreements
    python -m tests.differential --oracle triton a.mlir b.mlir          # both verdicts on files
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tests.fuzz import mutate_text

TESTS = Path(__file__).resolve().parent
"""The tests folder, whose string literals are seeds too."""

PEER = TESTS.parents[1] / "shared" / "peer"
"""The peer projects' test files."""

ORACLES = ("triton", "iree")
"""Triton's parser and verifier (for Triton IR), and ``iree-opt`` (for the rest)."""


# -- verdicts ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """What a parser and verifier made of one input: accepted, or rejected at ``line``
    (None where the rejection names no line of the input)."""

    accepted: bool
    line: int | None = None
    message: str = ""

    def __str__(self) -> str:
        return "accepted" if self.accepted else f"rejected at line {self.line}: {self.message}"


ACCEPTED = Verdict(True)


def passviz_verdict(text: str, filename: str = "input.mlir") -> Verdict:
    """passviz's verdict on ``text``: parsed and verified as ``passviz trace`` reads its input.

    The one place this module reaches into passviz, so that a move of its modules is one edit."""
    from passviz.ir.errors import InputError, IRParseError
    from passviz.ir.verify import IncrementalVerifier
    from passviz.pipelines import parse_located, verify_input

    try:
        parsed = parse_located(text, filename)
        verify_input(parsed.module, filename, IncrementalVerifier(parsed.module), parsed.op_starts)
    except IRParseError as exc:
        return Verdict(False, exc.line, exc.message)
    except InputError as exc:
        return Verdict(False, None, str(exc))
    return ACCEPTED


_ERROR = re.compile(r"^(.*?):(\d+):(\d+): error: (.*)$", re.MULTILINE)
"""A diagnostic of ``iree-opt``: ``FILE:LINE:COL: error: MESSAGE``."""

_TRITON_ERROR = re.compile(r'^loc\("(.*?)":(\d+):(\d+)\): error: (.*)$', re.MULTILINE)
"""A diagnostic of Triton's parser: ``loc("FILE":LINE:COL): error: MESSAGE``."""

SPLIT = "// -----"
"""The marker ``--split-input-file`` splits a file at."""


def iree_opt_path() -> str:
    """``iree-opt`` beside this Python, else on the ``PATH``."""
    from tests.conftest import iree_opt

    return iree_opt()


def iree_verdicts(texts: Sequence[str]) -> list[Verdict]:
    """``iree-opt``'s verdict on each of ``texts``, from one run on all of them joined at ``// -----``
    (``--split-input-file``: each part is parsed and verified alone; its diagnostics name lines of
    the joined file, which are mapped back to the part's)."""
    if not texts:
        return []
    for text in texts:
        assert SPLIT not in text, "an input may not hold the split marker"
        assert text.endswith("\n"), "each input ends its last line (as each part iree-opt splits off does)"
    joined = ""
    starts: list[int] = []  # the line of the joined file each text starts at
    for index, text in enumerate(texts):
        if index:
            joined += f"{SPLIT}\n"
        starts.append(joined.count("\n") + 1)
        joined += text
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "inputs.mlir")
        path.write_text(joined, encoding="utf-8")
        done = subprocess.run(
            [iree_opt_path(), "--split-input-file", "--mlir-disable-threading", str(path)],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=600,
            check=False,
        )
    outputs = done.stdout.split(f"{SPLIT}\n")
    if done.returncode not in (0, 1) or len(outputs) != len(texts):
        # iree-opt died on an input (or printed the marker in an output): ask again in halves.
        if len(texts) == 1:
            found = _ERROR.search(done.stderr)
            if found is not None and found.group(1) == str(path):  # it died after its diagnostic
                return [Verdict(False, int(found.group(2)), found.group(4))]
            return [Verdict(False, None, f"iree-opt crashed (status {done.returncode})")]
        middle = len(texts) // 2
        return iree_verdicts(texts[:middle]) + iree_verdicts(texts[middle:])
    verdicts = [ACCEPTED if output.strip() else Verdict(False, None, "") for output in outputs]
    ends = [*starts[1:], joined.count("\n") + 2]
    located: dict[int, Verdict] = {}
    foreign: list[str] = []
    for found in _ERROR.finditer(done.stderr):
        line = int(found.group(2))
        if found.group(1) != str(path):
            foreign.append(found.group(4))
            continue
        index = next(i for i in range(len(texts)) if starts[i] <= line < ends[i])
        located.setdefault(index, Verdict(False, line - starts[index] + 1, found.group(4)))
    for index, verdict in enumerate(verdicts):
        if not verdict.accepted:
            verdicts[index] = located.get(index, Verdict(False, None, foreign[0] if foreign else ""))
    return verdicts


def triton_verdicts(texts: Sequence[str]) -> list[Verdict]:
    """Triton's verdict on each of ``texts``: its ``ir.parse_mlir_module`` (which verifies) in a
    worker process (``tests/triton_parse_worker.py``), started again after an input it aborts on."""
    verdicts: dict[int, Verdict] = {}
    with tempfile.TemporaryDirectory() as folder:
        for index, text in enumerate(texts):
            Path(folder, f"{index}.mlir").write_text(text, encoding="utf-8")
        start = 0
        while start < len(texts):
            done = subprocess.run(
                [sys.executable, "-m", "tests.triton_parse_worker", folder, str(start)],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=600,
                cwd=TESTS.parent,
                check=False,
            )
            for line in done.stdout.splitlines():
                index, accepted, diagnostic = json.loads(line)
                verdicts[index] = (
                    ACCEPTED if accepted else _triton_error(diagnostic, Path(folder, f"{index}.mlir"))
                )
            while start in verdicts:
                start += 1
            if start < len(texts):  # the worker died on this input
                if done.returncode == 0 or (start == 0 and not done.stdout):
                    raise RuntimeError(f"the Triton worker failed: {done.stderr[-2000:]}")
                verdicts[start] = Verdict(False, None, f"Triton aborted (status {done.returncode})")
                start += 1
    return [verdicts[index] for index in range(len(texts))]


def _triton_error(diagnostic: str, path: Path) -> Verdict:
    """The verdict a Triton ``diagnostic`` on ``path`` gives: its first error, at its line."""
    for found in _TRITON_ERROR.finditer(diagnostic):
        line = int(found.group(2)) if found.group(1) == str(path) else None
        return Verdict(False, line, found.group(4))
    return Verdict(False, None, diagnostic.strip().splitlines()[0] if diagnostic.strip() else "")


VERDICTS: dict[str, Callable[[Sequence[str]], list[Verdict]]] = {
    "triton": triton_verdicts,
    "iree": iree_verdicts,
}


def oracle_of(text: str) -> str:
    """Which oracle reads ``text``: Triton for Triton IR, ``iree-opt`` otherwise."""
    return "triton" if re.search(r"\btt\.|\bttg\.|\bttng\.|!tt\.|#ttg\.", text) else "iree"


# -- seeds -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seed:
    """IR to mutate: where it comes from, and its text."""

    name: str
    text: str


def _without_comment_lines(text: str) -> str:
    """``text`` without its lines that are only a comment (``// CHECK: ...``), nor blank lines at its ends."""
    kept = [line for line in text.split("\n") if not line.lstrip().startswith("//")]
    return "\n".join(kept).strip("\n") + "\n"


def peer_seeds() -> list[Seed]:
    """The peer files' chunks (split at ``// -----``), without their comment lines."""
    seeds: list[Seed] = []
    for path in sorted(PEER.rglob("*.mlir")):
        chunks = re.split(r"^// -----.*$", path.read_text("utf-8"), flags=re.MULTILINE)
        for index, chunk in enumerate(chunks):
            text = _without_comment_lines(chunk)
            if text.strip():
                seeds.append(Seed(f"{path.relative_to(PEER)}#{index}", text))
    return seeds


_IR_START = re.compile(r"^\s*(tt\.func|func\.func|util\.func|module|builtin\.module)\b", re.MULTILINE)

SEED_MODULES_EXCLUDED = frozenset({"differential", "test_differential_parsers", "test_expected_errors"})
"""Test modules whose strings are no seeds: this harness's own."""


def own_seeds() -> list[Seed]:
    """The IR the tests hold in string literals: each literal that starts a function or module,
    with balanced braces (fragments and templates are left to the oracle to refuse)."""
    seeds: list[Seed] = []
    for path in sorted(TESTS.glob("*.py")):
        if path.stem in SEED_MODULES_EXCLUDED:
            continue
        tree = ast.parse(path.read_text("utf-8"))
        found: set[str] = set()
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            text = node.value
            if _IR_START.search(text) and text.count("{") == text.count("}") and SPLIT not in text:
                found.add(_without_comment_lines(text))
        seeds.extend(Seed(f"tests/{path.name}:{i}", text) for i, text in enumerate(sorted(found)))
    return seeds


@dataclass(frozen=True)
class SeedPool:
    """The seeds of one oracle, among the peer chunks and test IR it reads (``oracle_of``):
    ``seeds``, which it and passviz accept, to mutate; ``refused``, which it accepts and passviz
    refuses (compared unchanged: disagreements, unless deliberate); ``unmodelled``, which passviz
    refuses as written in ops or types it does not model (left out, with passviz's verdict); and
    how many the oracle refused."""

    seeds: list[Seed]
    refused: list[Seed]
    unmodelled: list[tuple[Seed, Verdict]]
    refused_by_oracle: int


UNMODELLED = re.compile(r"is not registered|does not have a custom format")
"""passviz's words for an op, type or dialect it does not model."""


@cache
def seed_pool(oracle: str) -> SeedPool:
    """The seeds of ``oracle``: peer chunks and test IR that it reads (``oracle_of``) and accepts.

    Those with explicit locations (``loc(...)``) are left out: MLIR reports an error there, at
    the location the IR names, where passviz names the line of the text."""
    candidates = [
        s for s in peer_seeds() + own_seeds() if oracle_of(s.text) == oracle and "loc(" not in s.text
    ]
    verdicts = VERDICTS[oracle]([s.text for s in candidates])
    accepted = [seed for seed, verdict in zip(candidates, verdicts, strict=True) if verdict.accepted]
    seeds: list[Seed] = []
    refused: list[Seed] = []
    unmodelled: list[tuple[Seed, Verdict]] = []
    for seed in accepted:
        verdict = passviz_verdict(seed.text)
        if verdict.accepted:
            seeds.append(seed)
        elif UNMODELLED.search(verdict.message):
            unmodelled.append((seed, verdict))
        else:
            refused.append(seed)
    return SeedPool(seeds, refused, unmodelled, len(candidates) - len(accepted))


# -- mutations ---------------------------------------------------------------------------------

_NAME = r"%[\w$.\-]+"
_DEFS = re.compile(rf"^\s*((?:{_NAME}(?::\d+)?\s*,\s*)*{_NAME}(?::\d+)?)\s*=")
_USE = re.compile(rf"({_NAME})(?:#\d+)?")
_OP = re.compile(r"^\s*(?:%|\"|[a-z_]+\.[\w.]+|return\b)")


@dataclass(frozen=True)
class Line:
    """One line of a seed: its brace depth where it starts, the values it defines and uses."""

    index: int
    text: str
    depth: int
    defs: tuple[str, ...]
    uses: tuple[str, ...]

    @property
    def balanced(self) -> bool:
        """Whether the line opens no region (nor closes one)."""
        return self.text.count("{") == self.text.count("}")

    @property
    def is_op(self) -> bool:
        return bool(_OP.match(self.text)) and not self.text.lstrip().startswith("}")

    @property
    def opens(self) -> bool:
        return self.text.count("{") > self.text.count("}")


def lines_of(text: str) -> list[Line]:
    """``text``'s lines, with their depth, definitions and uses."""
    out: list[Line] = []
    depth = 0
    for index, text_line in enumerate(text.split("\n")):
        code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', text_line.split("//")[0])
        defined = _DEFS.match(code)
        defs = tuple(re.findall(_NAME, defined.group(1))) if defined else ()
        rest = code[defined.end() :] if defined else code
        if code.lstrip().startswith("^"):  # a block's label defines its arguments
            defs, rest = tuple(re.findall(_NAME, code)), ""
        uses = tuple(m.group(1) for m in _USE.finditer(rest))
        out.append(Line(index, text_line, depth, defs, uses))
        depth += code.count("{") - code.count("}")
    return out


def _join(lines: Sequence[str]) -> str:
    return "\n".join(lines)


def _texts(lines: Sequence[Line]) -> list[str]:
    return [line.text for line in lines]


def _end_of(lines: Sequence[Line], index: int) -> int:
    """The index of the last line of the op that starts at ``index`` (its region's ``}`` line)."""
    if not lines[index].opens:
        return index
    depth = lines[index].depth
    for line in lines[index + 1 :]:
        if line.depth <= depth + 1 and line.text.lstrip().startswith("}") and _depth_after(line) <= depth:
            return line.index
    return len(lines) - 1


def _depth_after(line: Line) -> int:
    code = line.text.split("//")[0]
    return line.depth + code.count("{") - code.count("}")


def _same_block(lines: Sequence[Line], first: int, last: int) -> bool:
    """Whether lines ``first`` and ``last`` are ops of one block (no region closes, nor label, between)."""
    depth = lines[first].depth
    if lines[last].depth != depth:
        return False
    return all(
        line.depth >= depth and not (line.depth == depth and line.text.lstrip().startswith(("^", "}")))
        for line in lines[first + 1 : last + 1]
    )


def use_before_definition(text: str, rng: random.Random) -> str | None:
    """An op moved below a later op of its block that uses its result (or into its region)."""
    lines = lines_of(text)
    pairs = [
        (d.index, u.index)
        for d in lines
        if d.defs and d.balanced and d.is_op
        for u in lines[d.index + 1 :]
        if u.is_op and set(d.defs) & set(u.uses) and _same_block(lines, d.index, u.index)
    ]
    if not pairs:
        return None
    first, user = rng.choice(pairs)
    texts = _texts(lines)
    end = _end_of(lines, user)
    moved = texts.pop(first)
    texts.insert(end, moved)
    return _join(texts)


def _terminators(lines: Sequence[Line]) -> list[Line]:
    """The last op of each block."""
    found: list[Line] = []
    for line in lines:
        if not (line.is_op and line.balanced):
            continue
        following = next((n for n in lines[line.index + 1 :] if n.text.strip()), None)
        if following is not None and following.text.lstrip().startswith(("}", "^")):
            found.append(line)
    return found


def drop_terminator(text: str, rng: random.Random) -> str | None:
    """A block's last op deleted."""
    lines = lines_of(text)
    terminators = _terminators(lines)
    if not terminators:
        return None
    texts = _texts(lines)
    del texts[rng.choice(terminators).index]
    return _join(texts)


_OPERANDS = re.compile(
    rf"(?P<ops>{_NAME}(?:#\d+)?(?:\s*,\s*{_NAME}(?:#\d+)?)*)(?P<rest>\s*:\s*(?P<types>[^{{}}()]*?))?\s*$"
)


def operand_count(text: str, rng: random.Random) -> str | None:
    """One operand more or fewer (and its type, where the op lists one type per operand), mostly
    on terminators: results and successors that no longer match."""
    lines = lines_of(text)
    terminators = _terminators(lines)
    pool = (
        terminators
        if terminators and rng.random() < 0.6
        else [line for line in lines if line.is_op and line.balanced]
    )
    candidates = [line for line in pool if _OPERANDS.search(line.text.split("//")[0])]
    if not candidates:
        return None
    line = rng.choice(candidates)
    code = line.text.split("//")[0].rstrip()
    found = _OPERANDS.search(code)
    assert found is not None
    operands = [o.strip() for o in found.group("ops").split(",")]
    types = [t.strip() for t in found.group("types").split(",")] if found.group("types") else []
    same = len(types) == len(operands)
    if rng.random() < 0.5 and len(operands) > 0:
        operands.pop(rng.randrange(len(operands)))
        if same:
            types.pop()
    else:
        operands.append(rng.choice(operands))
        if same:
            types.append(types[-1])
    new = ", ".join(operands)
    if types:
        new += (" : " if operands else " : ") + ", ".join(types)
    changed = code[: found.start()] + new
    texts = _texts(lines)
    texts[line.index] = re.sub(r"\s+:\s*$", "", changed.rstrip()) if not operands else changed
    return _join(texts)


def escape_region(text: str, rng: random.Random) -> str | None:
    """An operand replaced by a value defined inside a region that closed before its use."""
    lines = lines_of(text)
    pairs: list[tuple[Line, Line, str]] = []
    for d in lines:
        for name in d.defs:
            depth = d.depth
            for later in lines[d.index + 1 :]:
                if later.text.lstrip().startswith("}") and _depth_after(later) < depth:
                    depth = _depth_after(later)
                    if depth < 1:
                        break
                if later.depth < d.depth and later.is_op and later.uses:
                    pairs.append((d, later, name))
    if not pairs:
        return None
    _, user, name = rng.choice(pairs)
    old = rng.choice(user.uses)
    texts = _texts(lines)
    texts[user.index] = re.sub(re.escape(old) + r"(?![\w$.\-])", name, user.text, count=1)
    return _join(texts)


def hoist_out_of_region(text: str, rng: random.Random) -> str | None:
    """An op of a nested region moved above the op that holds the region."""
    lines = lines_of(text)
    moves: list[tuple[int, int]] = []
    for line in lines:
        if not (line.is_op and line.balanced and line.depth >= 2):
            continue
        holder = next(
            (o for o in reversed(lines[: line.index]) if o.opens and o.depth == line.depth - 1 and o.is_op),
            None,
        )
        if holder is not None:
            moves.append((line.index, holder.index))
    if not moves:
        return None
    index, holder = rng.choice(moves)
    texts = _texts(lines)
    moved = texts.pop(index)
    texts.insert(holder, moved)
    return _join(texts)


def other_function_value(text: str, rng: random.Random) -> str | None:
    """An operand replaced by a value of another function (their regions are isolated from above)."""
    lines = lines_of(text)
    starts = [line.index for line in lines if re.search(r"\bfunc\b.*@", line.text) and line.opens]
    if len(starts) < 2:
        return None

    def function(index: int) -> int:
        return max((s for s in starts if s <= index), default=-1)

    defs = [(line, name) for line in lines for name in line.defs if function(line.index) >= 0]
    users = [line for line in lines if line.is_op and line.uses and function(line.index) >= 0]
    pairs = [(d, name, u) for d, name in defs for u in users if function(d.index) != function(u.index)]
    if not pairs:
        return None
    _, name, user = rng.choice(pairs)
    old = rng.choice(user.uses)
    texts = _texts(lines)
    texts[user.index] = re.sub(re.escape(old) + r"(?![\w$.\-])", name, user.text, count=1)
    return _join(texts)


NOT_ASCII_DIGITS = ("\uff11", "\u0663", "\u0967", "\U0001d7d9", "\u00b2", "\u2460")
"""Digits (and digit-like characters) that are not ASCII: fullwidth 1, Arabic-Indic 3, Devanagari
1, mathematical double-struck 1, superscript 2, circled 1."""

_NAMED = re.compile(r'[%@^#][\w$.\-]+|"(?:[^"\\]|\\.)*"')


def not_ascii_digit(text: str, rng: random.Random) -> str | None:
    """An ASCII digit of a number, a shape or a type (mostly; sometimes of a name) replaced by a
    digit that is not ASCII."""
    lines = lines_of(text)
    spots: list[tuple[int, int]] = []
    in_names: list[tuple[int, int]] = []
    for line in lines:
        if not line.is_op:
            continue
        code = line.text.split("//")[0]
        named = [range(m.start(), m.end()) for m in _NAMED.finditer(code)]
        for m in re.finditer(r"\d", code):
            (in_names if any(m.start() in r for r in named) else spots).append((line.index, m.start()))
    pool = in_names if in_names and (not spots or rng.random() < 0.2) else spots
    if not pool:
        return None
    index, column = rng.choice(pool)
    texts = _texts(lines)
    texts[index] = texts[index][:column] + rng.choice(NOT_ASCII_DIGITS) + texts[index][column + 1 :]
    return _join(texts)


WIDE_WIDTHS = ("16777215", "16777216", "2000000000", "4294967297", "99999999999999999999", "0")
"""Integer widths at and past MLIR's limit (2^24 - 1 bits), and zero."""


def wide_int(text: str, rng: random.Random) -> str | None:
    """An integer type's width replaced by one at or past MLIR's limit."""
    spots = [m for m in re.finditer(r"(?<![\w%@#$.\-])i(\d+)\b", text)]
    if not spots:
        return None
    m = rng.choice(spots)
    return text[: m.start(1)] + rng.choice(WIDE_WIDTHS) + text[m.end(1) :]


TYPES = ("i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "index")


def change_type(text: str, rng: random.Random) -> str | None:
    """One type in an op's line replaced by another."""
    pattern = r"(?<![\w%@#$.\-])(" + "|".join(TYPES) + r")(?![\w])"
    spots = [(line, m) for line in lines_of(text) if line.is_op for m in re.finditer(pattern, line.text)]
    if not spots:
        return None
    line, m = rng.choice(spots)
    texts = text.split("\n")
    other = rng.choice([t for t in TYPES if t != m.group(1)])
    texts[line.index] = line.text[: m.start()] + other + line.text[m.end() :]
    return _join(texts)


def drop_op(text: str, rng: random.Random) -> str | None:
    """An op that holds no region deleted: its uses lose their definition."""
    ops = [line for line in lines_of(text) if line.is_op and line.balanced]
    if not ops:
        return None
    texts = text.split("\n")
    del texts[rng.choice(ops).index]
    return _join(texts)


def duplicate_definition(text: str, rng: random.Random) -> str | None:
    """An op that defines values written twice: each value defined twice."""
    ops = [line for line in lines_of(text) if line.is_op and line.balanced and line.defs]
    if not ops:
        return None
    line = rng.choice(ops)
    texts = text.split("\n")
    texts.insert(line.index, line.text)
    return _join(texts)


def undefined_use(text: str, rng: random.Random) -> str | None:
    """An operand that names no value."""
    ops = [line for line in lines_of(text) if line.is_op and line.uses]
    if not ops:
        return None
    line = rng.choice(ops)
    old = rng.choice(line.uses)
    texts = text.split("\n")
    texts[line.index] = re.sub(re.escape(old) + r"(?![\w$.\-])", "%never_defined", line.text, count=1)
    return _join(texts)


def swap_ops(text: str, rng: random.Random) -> str | None:
    """Two ops of one block that hold no region swapped."""
    lines = lines_of(text)
    ops = [line for line in lines if line.is_op and line.balanced]
    pairs = [
        (a.index, b.index)
        for a in ops
        for b in ops
        if a.index < b.index and _same_block(lines, a.index, b.index)
    ]
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    texts = _texts(lines)
    texts[a], texts[b] = texts[b], texts[a]
    return _join(texts)


def drop_successor_operand(text: str, rng: random.Random) -> str | None:
    """A branch's successor given one operand fewer (or none), or a block's argument dropped."""
    spots = [m for m in re.finditer(r"\^[\w$.\-]+\(([^()]*)\)", text)]
    if not spots:
        return None
    m = rng.choice(spots)
    items = [i.strip() for i in _split_top(m.group(1))]
    items.pop(rng.randrange(len(items)))
    inner = ", ".join(items)
    if " : " not in m.group(1) and ":" not in m.group(1):
        return None
    if re.fullmatch(rf"({_NAME}\s*,\s*)*{_NAME}\s*:.*", m.group(1)):
        # ^bb1(%a, %b : i32, i32): operands, then types
        names, types = m.group(1).split(":", 1)
        n = [x.strip() for x in names.split(",")]
        t = [x.strip() for x in _split_top(types)]
        drop = rng.randrange(len(n))
        n.pop(drop)
        if len(t) > drop:
            t.pop(drop)
        inner = f"{', '.join(n)} : {', '.join(t)}" if n else ""
    replacement = m.group(0).split("(")[0] + (f"({inner})" if inner else "")
    return text[: m.start()] + replacement + text[m.end() :]


def _split_top(text: str) -> list[str]:
    """``text`` split at its commas outside ``<>``, ``()`` and ``[]``."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "<([":
            depth += 1
        elif char in ">)]":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


def text_edit(text: str, rng: random.Random) -> str | None:
    """``tests/fuzz.py``'s random edits: deletions, repeats, inserted tokens, swapped lines,
    replaced numbers, truncation."""
    mutated = mutate_text(text, rng)
    return None if SPLIT in mutated else mutated


MUTATIONS: dict[str, Callable[[str, random.Random], str | None]] = {
    "use-before-definition": use_before_definition,
    "drop-terminator": drop_terminator,
    "operand-count": operand_count,
    "escape-region": escape_region,
    "hoist-out-of-region": hoist_out_of_region,
    "other-function-value": other_function_value,
    "not-ascii-digit": not_ascii_digit,
    "wide-int": wide_int,
    "change-type": change_type,
    "drop-op": drop_op,
    "duplicate-definition": duplicate_definition,
    "undefined-use": undefined_use,
    "swap-ops": swap_ops,
    "drop-successor-operand": drop_successor_operand,
    "text-edit": text_edit,
}
"""The mutation classes, by name."""


@dataclass(frozen=True)
class Input:
    """One mutated input: its class, its seed and its text."""

    mutation: str
    seed: str
    text: str


def campaign(pool: SeedPool, mutated: int, seed: int) -> list[Input]:
    """The seeds the oracle accepts, unchanged, then ``mutated`` mutations, the classes in turn,
    each of a seed (one both accept) that the generator, seeded with ``seed``, picks among those
    the class applies to."""
    rng = random.Random(seed)
    inputs = [Input("unchanged", s.name, s.text) for s in pool.seeds + pool.refused]
    count = len(inputs) + mutated
    seeds = pool.seeds
    names = list(MUTATIONS)
    turn = 0
    misses = 0
    while len(inputs) < count and misses < 100 * len(names):
        name = names[turn % len(names)]
        turn += 1
        source = rng.choice(seeds)
        mutated = MUTATIONS[name](source.text, rng)
        if mutated is not None and not mutated.endswith("\n"):
            mutated += "\n"  # as iree-opt gives each part of a split file
        if mutated is None or mutated == source.text or SPLIT in mutated:
            misses += 1
            turn -= 1 if misses % 8 else 0  # try this class again on another seed, a few times
            continue
        inputs.append(Input(name, source.name, mutated))
    return inputs


# -- comparison --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """An input and both verdicts on it."""

    input: Input
    passviz: Verdict
    oracle: Verdict

    @property
    def agrees(self) -> bool:
        if self.passviz.accepted or self.oracle.accepted:
            return self.passviz.accepted == self.oracle.accepted
        return self.passviz.line is not None and self.passviz.line == self.oracle.line

    @property
    def oracle_crashed(self) -> bool:
        return self.oracle.message.startswith(("Triton aborted", "iree-opt crashed"))

    def describe(self) -> str:
        return (
            f"[{self.input.mutation}] {self.input.seed}\n  passviz: {self.passviz}\n  oracle:  {self.oracle}"
        )


def compare(inputs: Sequence[Input], oracle: str) -> list[Outcome]:
    """Both verdicts on each of ``inputs``."""
    oracle_verdicts = VERDICTS[oracle]([i.text for i in inputs])
    return [Outcome(i, passviz_verdict(i.text), o) for i, o in zip(inputs, oracle_verdicts, strict=True)]


@dataclass(frozen=True)
class Stricter:
    """A disagreement where passviz is deliberately stricter than MLIR, and why."""

    mutation: str
    """The mutation class it comes from."""
    passviz: re.Pattern[str]
    """passviz's message, which the oracle accepts."""
    reason: str


ALLOWED: tuple[Stricter, ...] = (
    Stricter(
        "unchanged",
        re.compile(r"dense literal of [0-9,]+ elements is larger than passviz reads"),
        "passviz reads at most passviz.ir.literals.MAX_DENSE_ELEMENTS elements of a dense literal "
        "(a resource limit against hostile input: tests/fuzz.py's own 300,000,000-element splat)",
    ),
    Stricter(
        "text-edit",
        re.compile(r"dense literal of [0-9,]+ elements is larger than passviz reads"),
        "the same limit, on a shape a random edit made huge (tensor<4294967296xf32>): passviz refuses the "
        "literal, MLIR reads it and refuses the text later or elsewhere",
    ),
    Stricter(
        "text-edit",
        re.compile(r"integer literal too large: passviz reads values of at most"),
        "passviz's lexer refuses an integer literal of more than passviz.ir.literals.MAX_INTEGER_DIGITS "
        "digits where it meets it (a resource limit: reading one takes time quadratic in its length); "
        "MLIR reads it, and refuses the text later or elsewhere",
    ),
    *(
        Stricter(
            mutation,
            re.compile(r"^Expected attribute i1 but got i\d+$"),
            "an op in xDSL's declarative assembly format (arith.addui_extended's overflow) checks its "
            "result type's constraint (i1) as it is read, MLIR only when it verifies the module read: "
            "both refuse the text, MLIR at a later use of the result whose type no longer matches",
        )
        for mutation in ("change-type", "wide-int")
    ),
)
"""The disagreements where passviz is deliberately stricter than the oracle, by mutation class:
passviz refuses what the oracle accepts, or refuses on another line than the oracle does."""


def allowed(outcome: Outcome) -> Stricter | None:
    """The entry of ``ALLOWED`` that ``outcome`` (a disagreement) is, if any."""
    if outcome.passviz.accepted:
        return None  # passviz accepts what the oracle refuses: never deliberate
    for entry in ALLOWED:
        if entry.mutation == outcome.input.mutation and entry.passviz.search(outcome.passviz.message):
            return entry
    return None


def report(outcomes: Sequence[Outcome]) -> Iterator[str]:
    """Lines that sum ``outcomes`` up: counts by class and verdict, then each disagreement."""
    by_class: Counter[tuple[str, str]] = Counter()
    for o in outcomes:
        verdict = (
            "crash" if o.oracle_crashed else "agree" if o.agrees else "allowed" if allowed(o) else "DISAGREE"
        )
        by_class[(o.input.mutation, verdict)] += 1
    for (mutation, verdict), n in sorted(by_class.items()):
        yield f"{n:6}  {mutation:24} {verdict}"
    for o in outcomes:
        if not o.agrees and not o.oracle_crashed:
            entry = allowed(o)
            yield ("allowed: " + entry.reason + "\n" if entry else "") + o.describe()


def _main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--oracle", choices=ORACLES, default="iree")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dump", type=Path, help="write the disagreeing inputs into this folder")
    parser.add_argument("files", nargs="*", type=Path, help="only give these files to both (no campaign)")
    args = parser.parse_args()
    if args.files:
        texts = [
            text if text.endswith("\n") else text + "\n"
            for text in (f.read_text("utf-8") for f in args.files)
        ]
        for f, text, verdict in zip(args.files, texts, VERDICTS[args.oracle](texts), strict=True):
            print(f"{f}\n  passviz: {passviz_verdict(text)}\n  oracle:  {verdict}")
        os._exit(0)
    pool = seed_pool(args.oracle)
    print(f"{len(pool.seeds)} seeds; {len(pool.unmodelled)} written in ops passviz does not model:")
    for seed, verdict in pool.unmodelled:
        print(f"  {seed.name}: {verdict}")
    outcomes = compare(campaign(pool, args.count, args.seed), args.oracle)
    for line in report(outcomes):
        print(line)
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
        for index, o in enumerate(outcomes):
            if not o.agrees and not o.oracle_crashed:
                (args.dump / f"{index}-{o.input.mutation}.mlir").write_text(o.input.text, encoding="utf-8")
    os._exit(0)


if __name__ == "__main__":
    _main()
