"""A small subset of LLVM FileCheck, enough for the peer test files.

Supports ``CHECK``, ``CHECK-LABEL``, ``CHECK-SAME``, ``CHECK-NEXT`` and
``CHECK-NOT`` with ``[[NAME:regex]]`` captures and ``[[NAME]]`` uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DIRECTIVE = re.compile(r"//\s*CHECK(-LABEL|-SAME|-NEXT|-NOT)?:\s?(.*)$")
_VAR = re.compile(r"\[\[(\w+)(?::(.*?))?\]\]")


@dataclass
class Directive:
    kind: str
    pattern: str
    line: int


def directives(text: str) -> list[Directive]:
    """The CHECK directives of a test file chunk, in order."""
    out: list[Directive] = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _DIRECTIVE.search(line)
        if match:
            out.append(
                Directive((match.group(1) or "").lstrip("-") or "CHECK", match.group(2).strip(), number)
            )
    return out


def _to_regex(pattern: str, variables: dict[str, str]) -> tuple[str, list[str]]:
    parts: list[str] = []
    captures: list[str] = []
    pos = 0
    for match in _VAR.finditer(pattern):
        parts.append(_literal(pattern[pos : match.start()]))
        name, regex = match.group(1), match.group(2)
        if regex is not None:
            parts.append(f"(?P<{name}>{regex})")
            captures.append(name)
        else:
            parts.append(re.escape(variables[name]))
        pos = match.end()
    parts.append(_literal(pattern[pos:]))
    return "".join(parts), captures


def _literal(text: str) -> str:
    # FileCheck ignores differences in horizontal whitespace.
    return "".join(
        r"\s+" if piece.isspace() else re.escape(piece) for piece in re.split(r"(\s+)", text) if piece
    )


def check(output: str, text: str) -> None:
    """Raise AssertionError if ``output`` does not satisfy the directives in ``text``."""
    lines = output.splitlines()
    variables: dict[str, str] = {}
    cursor = 0  # index of the line the next CHECK may start at
    column = 0  # for CHECK-SAME: where on the current line matching continues
    pending_not: list[Directive] = []
    for d in directives(text):
        regex, captures = _to_regex(d.pattern, variables) if d.kind != "NOT" else ("", [])
        if d.kind == "NOT":
            pending_not.append(d)
            continue
        if d.kind == "SAME":
            line = lines[cursor - 1]
            match = re.compile(regex).search(line, column)
            assert match, f"CHECK-SAME at line {d.line} ({d.pattern!r}) does not match {line!r}"
            column = match.end()
        else:
            start = cursor
            found = None
            candidates = range(start, start + 1) if d.kind == "NEXT" else range(start, len(lines))
            for index in candidates:
                if index < len(lines) and (match := re.compile(regex).search(lines[index])):
                    found = (index, match)
                    break
            assert found, (
                f"CHECK{'-' + d.kind if d.kind != 'CHECK' else ''} at line {d.line} ({d.pattern!r}) not found after output line {start}"
            )
            index, match = found
            for nd in pending_not:
                for between in lines[start:index]:
                    assert nd.pattern not in between, f"CHECK-NOT at line {nd.line}: {nd.pattern!r} found"
            pending_not = []
            cursor, column = index + 1, match.end()
        for name in captures:
            variables[name] = match.group(name)
    for nd in pending_not:
        for between in lines[cursor:]:
            assert nd.pattern not in between, f"CHECK-NOT at line {nd.line}: {nd.pattern!r} found"
