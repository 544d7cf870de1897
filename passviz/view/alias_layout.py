"""Which attributes the IR pane prints by alias, from the texts alone: the twin of the viewer's
``layoutAliases`` (``extension/src/model/irtext.ts``), checked against it by the golden fixtures.

The CLI prints an attribute of an ``AliasedAttribute`` class by alias (``#blocked``, then
``#blocked1``, ... in order of first use) with its definition above the module.  The viewer has
op texts, not attributes: a trace records how each aliased attribute's text begins and its alias
(``meta.aliases``), and this finds those attributes in the texts, each up to its closing bracket.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

DEFAULT_ALIASES: dict[str, str] = {"#ttg.blocked<": "blocked"}
"""What a trace recorded before ``meta.aliases`` existed aliases: the viewer's former fixed table."""

_OPEN = "<{[("
_CLOSE = ">}])"


def attribute_end(text: str, start: int) -> int:
    """The end of the attribute whose first bracket is at ``start`` (just past its closing one)."""
    depth = 0
    for index in range(start, len(text)):
        char = text[index]
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
            if depth == 0:
                return index + 1
    return len(text)


@dataclass
class AliasLayout:
    """The aliases a module's texts use: each attribute's text with its name, in order of first use."""

    names: dict[str, str] = field(default_factory=lambda: dict[str, str]())

    @property
    def definitions(self) -> list[str]:
        """The lines above the module: ``#blocked = #ttg.blocked<...>``."""
        return [f"{name} = {attribute}" for attribute, name in self.names.items()]

    def apply(self, text: str) -> str:
        """``text`` with each aliased attribute written as its alias."""
        for attribute, name in self.names.items():
            text = text.replace(attribute, name)
        return text


def layout_aliases(texts: Iterable[str], kinds: Mapping[str, str] | None = None) -> AliasLayout:
    """The aliases ``texts`` use, for attributes beginning as ``kinds`` says (``meta.aliases``),
    numbered per alias in the order the texts show them, as the CLI's printer numbers them."""
    kinds = DEFAULT_ALIASES if kinds is None else kinds
    layout = AliasLayout()
    counts: dict[str, int] = {}
    for text in texts:
        at = 0
        while (found := _next_aliased(text, at, kinds)) is not None:
            start, prefix = found
            end = attribute_end(text, start + len(prefix) - 1)
            attribute = text[start:end]
            if attribute not in layout.names:
                alias = kinds[prefix]
                count = counts.get(alias, 0)
                counts[alias] = count + 1
                layout.names[attribute] = f"#{alias}{count or ''}"
            at = end
    return layout


def _next_aliased(text: str, at: int, kinds: Mapping[str, str]) -> tuple[int, str] | None:
    """Where the first aliased attribute at or after ``at`` begins, and its prefix."""
    found = [(start, prefix) for prefix in kinds if (start := text.find(prefix, at)) >= 0]
    return min(found) if found else None
