"""How much IR attribute and type aliases stand for, bounded ("billion laughs").

``!t1 = tuple<!t0, !t0>`` stands for twice what ``!t0`` does, so 26 such
lines stand for 2^26 types.  xDSL 0.74's parser keeps them shared, but its
printer writes every alias out in full, and hashing and comparing walk the
whole tree: 41 s at depth 20, no end at 26.  ``AliasExpansion`` counts the
attributes each use of an alias stands for (counted once per distinct
attribute object, so counting is linear in the input) and refuses input whose
uses add up to more than ``MAX_ALIAS_EXPANSION`` plus
``ALIAS_EXPANSION_PER_CHARACTER`` per character of input.  It stands for a
bound MLIR does not need, since MLIR's printer prints aliases back as aliases.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import cast

from xdsl.ir import Attribute, Data, ParametrizedAttribute

MAX_ALIAS_EXPANSION = 1 << 20
"""Attributes that alias uses may stand for in any input, in all (1,048,576)."""

ALIAS_EXPANSION_PER_CHARACTER = 16
"""Attributes that alias uses may stand for per character of input, besides
``MAX_ALIAS_EXPANSION``: real IR (``#blocked`` in every tensor type of a
TTGIR file, ``loc(#loc12)`` on every op) stays far below."""


class AliasExpansion:
    """The attributes the alias uses read so far stand for, against the input's limit."""

    def __init__(self, input_length: int) -> None:
        self.limit = MAX_ALIAS_EXPANSION + ALIAS_EXPANSION_PER_CHARACTER * input_length
        """The most attributes the input's alias uses may stand for."""
        self.total = 0
        """The attributes the alias uses read so far stand for."""
        self._sizes: dict[int, int] = {}
        """The tree size of each attribute measured, by ``id``."""
        self._measured: list[Attribute] = []
        """The attributes measured, kept alive so that their ids stay theirs."""

    def use(self, value: Attribute) -> bool:
        """Count one use of an alias of ``value``; False once the total is past the limit."""
        self.total += self._size(value)
        return self.total <= self.limit

    def refusal(self) -> str:
        """Why the input is refused once ``use`` returned False."""
        return (
            f"the aliases used so far stand for {self.total:,} attributes and types, "
            f"more than passviz reads in an input of this size ({self.limit:,})"
        )

    def _size(self, root: Attribute) -> int:
        """How many attributes ``root`` is made of, counting each use of a shared one."""
        sizes = self._sizes
        stack: list[tuple[Attribute, bool]] = [(root, False)]
        while stack:
            attr, children_done = stack.pop()
            if id(attr) in sizes:
                continue
            if children_done:
                sizes[id(attr)] = 1 + sum(sizes[id(child)] for child in _children(attr))
                self._measured.append(attr)
                continue
            stack.append((attr, True))
            stack.extend((child, False) for child in _children(attr) if id(child) not in sizes)
        return sizes[id(root)]


def _children(attr: Attribute) -> Iterable[Attribute]:
    """The attributes ``attr`` holds: parameters, array elements, dictionary values."""
    if isinstance(attr, ParametrizedAttribute):
        return attr.parameters
    if not isinstance(attr, Data):
        return ()
    data: object = cast(object, attr.data)  # pyright: ignore[reportUnknownMemberType]
    if isinstance(data, tuple | list):
        return [d for d in data if isinstance(d, Attribute)]  # pyright: ignore[reportUnknownVariableType]
    if isinstance(data, Mapping):  # a DictionaryAttr's immutabledict is no dict
        return [d for d in data.values() if isinstance(d, Attribute)]  # pyright: ignore[reportUnknownVariableType, reportUnknownMemberType]
    return ()
