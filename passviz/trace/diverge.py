"""Two traces of the same input, side by side: the first pass after which their IR differs.

The traces may come from anywhere: passviz's port of a pipeline and the real
compiler's dump of it (``passviz import``, ``passviz triton``), two versions
of a compiler, a pass before and after a change.  Each is cut into passes
(a recorded trace's ``pass-end`` steps, an imported trace's steps), the two
lists of passes are aligned by name (``difflib``'s longest matching runs), and
the IR after each aligned pair is compared as text, modulo what printing
changes and meaning does not: value and block names, locations, alias names.
A pass only one side ran between two passes both ran counts as part of the
one before it (a compiler's inliner that runs ``canonicalize`` inside itself,
printing it as passes of their own); what one side runs after the last pass
both ran (a whole compile against its first stage) is listed, not compared.

Pure text and data: the traces replay through their own replayers.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from passviz.trace.model import Trace

_OPTIONS = re.compile(r"[{(].*$", re.S)
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|%[\w$.\-]+(?:#\d+)?|\^[\w$.\-]+')
_ALIAS_DEFINITION = re.compile(r"^([#!][\w$.\-]+) = (.*)$", re.M)
_ALIAS_USE = re.compile(r'"(?:[^"\\\n]|\\.)*"|[#!][A-Za-z_][\w$.\-]*')
_RESULT_GROUP = re.compile(r"%([\w$.\-]+):(\d+)(?=[ ,])")
_BLOCK_LABEL = re.compile(r"^\s*(\^[\w$.\-]+)")


@dataclass(frozen=True)
class Pass:
    """A pass of one trace: its name and the step after which its output stands."""

    key: str
    """Its name, as both sides say it (``canonicalize``: options and scopes dropped)."""
    label: str
    """Its name as the trace says it."""
    step: int
    """The step its output stands after."""


@dataclass
class Divergence:
    """Where two traces part."""

    aligned: list[tuple[Pass, Pass]]
    """The passes both ran, in order, each with the step its output stands after on each side
    (passes one side alone ran folded into the pass before them)."""
    only_a: list[Pass] = field(default_factory=lambda: list[Pass]())
    """Passes only the first trace ran."""
    only_b: list[Pass] = field(default_factory=lambda: list[Pass]())
    """Passes only the second trace ran."""
    first: int | None = None
    """The index in ``aligned`` of the first pass after which the IR differs; None: none does."""
    initial_differs: bool = False
    """Whether the two start from different IR (then nothing after it is compared)."""
    diff: list[str] = field(default_factory=lambda: list[str]())
    """The unified diff of the two IRs (normalized) where they first differ."""
    steps: tuple[int, int] | None = None
    """Within the first pass that differs, where both traces record it step by step (passviz's
    own traces): the first pair of steps, one from each, after which the IR differs or whose
    rewrites differ by name."""


def pass_key(name: str) -> str:
    """``canonicalize{max-iterations=10}`` and ``CanonicalizerPass`` alike as ``canonicalize``'s
    key: the pass's argument without options or scope, lower case."""
    return _OPTIONS.sub("", name).strip().lower()


def _split_pipeline(pipeline: str) -> list[str]:
    """``a,b{x=1,y=2},c(d,e)`` as its top-level passes."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for char in pipeline:
        if char in "{(":
            depth += 1
        elif char in "})":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return [part.strip() for part in parts if part.strip()]


def passes(trace: Trace) -> list[Pass]:
    """The passes of ``trace``, each with the step after which its output stands."""
    if "imported" in trace.meta:
        # One step per pass; its argument as the dump's banner gave it (``meta.pipeline``), also
        # where the steps are grouped by compile stage.
        names = _split_pipeline(trace.meta.get("pipeline", ""))
        if len(names) != len(trace.steps):
            names = [step.pass_name or step.name or "?" for step in trace.steps]
        return [
            Pass(pass_key(name), step.name or name, step.index)
            for name, step in zip(names, trace.steps, strict=True)
        ]
    return [
        Pass(pass_key(step.pass_name or "?"), step.pass_name or "?", step.index)
        for step in trace.steps
        if step.kind == "pass-end"
    ]


def _expand_aliases(text: str) -> str:
    """``text`` with its alias definitions dropped and each alias written out."""
    text = re.sub(r"^\{-#.*?^#-\}[ \t]*$", "", text, flags=re.S | re.M)
    definitions = dict(_ALIAS_DEFINITION.findall(text))
    text = _ALIAS_DEFINITION.sub("", text)

    def expand(match: re.Match[str]) -> str:
        name = match.group(0)
        body = definitions.get(name)
        return name if body is None else _ALIAS_USE.sub(expand, body)

    return _ALIAS_USE.sub(expand, text)


def _without_locations(text: str) -> str:
    """``text`` without its ``loc(...)`` attributes (balanced parentheses, strings skipped)."""
    out: list[str] = []
    index = 0
    while True:
        found = text.find("loc(", index)
        if found < 0:
            out.append(text[index:])
            return "".join(out)
        start = found
        while start > index and text[start - 1] == " ":
            start -= 1
        out.append(text[index:start])
        depth = 0
        cursor = found + 3
        in_string = False
        while cursor < len(text):
            char = text[cursor]
            if in_string:
                if char == "\\":
                    cursor += 1
                elif char == '"':
                    in_string = False
            elif char == '"':
                in_string = True
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    break
            cursor += 1
        index = cursor + 1


def normalized_ir(text: str) -> list[str]:
    """The IR in ``text`` as lines that two printings of the same IR share: aliases written out,
    locations dropped, ``%x:2`` groups as their values, runs of spaces inside a line as one, blank
    lines gone; in each op at the module's top (a function), values named in order of first
    appearance and blocks in order of definition (printers reuse block names across regions)."""
    text = _without_locations(_expand_aliases(text))
    chunks: list[list[str]] = [[]]
    top: int | None = None
    for line in text.splitlines():
        if not line.strip():
            continue
        # MLIR prints the builtin module by its short name, xDSL by its full one.
        line = re.sub(r"^(\s*)builtin\.module\b", r"\1module", line)
        line = re.sub(r"^(\s*\^.*?:)\s*//.*$", r"\1", line)
        line = _RESULT_GROUP.sub(
            lambda m: ", ".join(f"%{m.group(1)}#{i}" for i in range(int(m.group(2)))), line
        )
        indent = len(line) - len(line.lstrip())
        # Spacing inside a line is the printer's (MLIR's scf.for prints two before its type).
        line = line[:indent] + re.sub(r"(?<=\S) {2,}", " ", line[indent:]).rstrip()
        if top is None and chunks[0]:
            top = indent
        if indent == top and not line.lstrip().startswith(("}", "^")):
            chunks.append([])
        chunks[-1].append(line)
    return [line for chunk in chunks for line in _renamed(chunk)]


def _renamed(chunk: list[str]) -> list[str]:
    """``chunk``'s lines with values named by first appearance and blocks by definition; a use of
    a block name goes to its latest definition so far, else to its next one (a forward branch)."""
    definitions: list[tuple[int, str]] = []
    for index, line in enumerate(chunk):
        label = _BLOCK_LABEL.match(line)
        if label is not None:
            definitions.append((index, label.group(1)))
    canonical = {position: f"^b{order}" for order, (position, _) in enumerate(definitions)}
    values: dict[str, str] = {}

    def block(name: str, index: int) -> str:
        before = [p for p, n in definitions if n == name and p <= index]
        after = [p for p, n in definitions if n == name and p > index]
        found = before[-1] if before else (after[0] if after else None)
        return canonical[found] if found is not None else "^?"

    out: list[str] = []
    for index, line in enumerate(chunk):

        def rename(match: re.Match[str], index: int = index) -> str:
            token = match.group(0)
            if token.startswith('"'):
                return token
            if token.startswith("^"):
                return block(token, index)
            return values.setdefault(token, f"%{len(values)}")

        out.append(_TOKEN.sub(rename, line))
    return out


def _align(a: list[Pass], b: list[Pass]) -> tuple[list[tuple[Pass, Pass]], list[Pass], list[Pass]]:
    """The passes both ran, each pair's steps moved to the last step before the next pair's
    (what one side alone ran counts with the pass before it), and what each alone ran."""
    matcher = difflib.SequenceMatcher(None, [p.key for p in a], [p.key for p in b], autojunk=False)
    pairs: list[tuple[int, int]] = []
    for block in matcher.get_matching_blocks():
        pairs += [(block.a + k, block.b + k) for k in range(block.size)]
    matched_a = {i for i, _ in pairs}
    matched_b = {j for _, j in pairs}
    aligned: list[tuple[Pass, Pass]] = []
    for index, (i, j) in enumerate(pairs):
        # What one side alone ran after the last pass both ran is no part of it: one trace
        # may go further (a whole compile against its first stage).
        next_i, next_j = pairs[index + 1] if index + 1 < len(pairs) else (i + 1, j + 1)
        aligned.append(
            (
                Pass(a[i].key, a[i].label, a[next_i - 1].step),
                Pass(b[j].key, b[j].label, b[next_j - 1].step),
            )
        )
    only_a = [p for i, p in enumerate(a) if i not in matched_a]
    only_b = [p for j, p in enumerate(b) if j not in matched_b]
    return aligned, only_a, only_b


def diverge(a: Trace, b: Trace) -> Divergence:
    """Where ``a`` and ``b`` (two traces of the same input) first differ, pass by pass."""
    aligned, only_a, only_b = _align(passes(a), passes(b))
    result = Divergence(aligned, only_a, only_b)
    replay_a, replay_b = a.replay(), b.replay()
    before_a, before_b = normalized_ir(replay_a.text()), normalized_ir(replay_b.text())
    if before_a != before_b:
        result.initial_differs = True
        result.diff = list(
            difflib.unified_diff(before_a, before_b, "A: initial IR", "B: initial IR", lineterm="")
        )
        return result
    start_a = start_b = -1
    for index, (pass_a, pass_b) in enumerate(aligned):
        replay_a.advance_to(pass_a.step)
        replay_b.advance_to(pass_b.step)
        after_a, after_b = normalized_ir(replay_a.text()), normalized_ir(replay_b.text())
        if after_a != after_b:
            result.first = index
            found = _first_differing_steps(a, b, (start_a, pass_a.step), (start_b, pass_b.step))
            if found is not None:
                result.steps, (after_a, after_b) = found
            result.diff = list(
                difflib.unified_diff(
                    after_a, after_b, f"A: after {pass_a.label}", f"B: after {pass_b.label}", lineterm=""
                )
            )
            return result
        start_a, start_b = pass_a.step, pass_b.step
    return result


def _first_differing_steps(
    a: Trace, b: Trace, span_a: tuple[int, int], span_b: tuple[int, int]
) -> tuple[tuple[int, int], tuple[list[str], list[str]]] | None:
    """The first pair of rewrite steps, in order within the spans (after the first, up to the last),
    whose names differ or after which the IR differs, and the IR after each (normalized); None
    unless both record the pass rewrite by rewrite, or where they rewrite alike."""
    steps_a = [s for s in a.steps[span_a[0] + 1 : span_a[1] + 1] if s.kind == "rewrite"]
    steps_b = [s for s in b.steps[span_b[0] + 1 : span_b[1] + 1] if s.kind == "rewrite"]
    if not steps_a or not steps_b:
        return None
    replay_a, replay_b = a.replay(), b.replay()

    def at(step_a: int, step_b: int) -> tuple[list[str], list[str]]:
        replay_a.advance_to(step_a)
        replay_b.advance_to(step_b)
        return normalized_ir(replay_a.text()), normalized_ir(replay_b.text())

    for step_a, step_b in zip(steps_a, steps_b, strict=False):
        texts = at(step_a.index, step_b.index)
        if step_a.name != step_b.name or texts[0] != texts[1]:
            return (step_a.index, step_b.index), texts
    if len(steps_a) == len(steps_b):
        return None
    # One side rewrote more: its first extra rewrite, against the other side's last.
    shared = min(len(steps_a), len(steps_b))
    pair = (steps_a[min(shared, len(steps_a) - 1)].index, steps_b[min(shared, len(steps_b) - 1)].index)
    return pair, at(*pair)
