"""Which ops of one snapshot are which ops of the next: ids kept across a pass.

Ops are matched within their (matched) block by what they compute (name, operands' matched
identities, the rest of their text), then across blocks by the same (moved), then within their
block by name and location (modified), then across blocks by name and location (moved and
modified), and last, ops in blocks that match none (a new loop's body) by what they compute.
A later match can make an earlier key resolve (its operands now known), so the phases repeat
until none matches more.  Everything left is created or erased.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from passviz.importer.reader import Block, BlockUse, Op, Region, RegionMark, Use, Value

Key = tuple[str, ...]
"""What an op computes (``_Matcher._key``): its name, counts and text, its values and blocks by
id, as a tuple (its parts' hashes kept by the strings, not a long string joined each time)."""


@dataclass
class Ids:
    """The next free id of each kind, by the kind's prefix: ``o`` (ops), ``r`` (regions), ``b``
    (blocks), ``v`` (values)."""

    next: Counter[str] = field(default_factory=lambda: Counter[str]())
    keys: dict[Op, Key] = field(default_factory=lambda: dict[Op, "Key"]())
    """What each op of the snapshot matched last computes (``_Matcher._key``), as the next match
    finds it: kept from the match that gave the op its id, which computed it then."""
    computing: set[Op] = field(default_factory=lambda: set[Op]())
    """The ops of the snapshot matched last that matched an op computing the same (the same
    name, text, and values and blocks by id): recorded as that op was, but for their place,
    location and values' names (``delta.flatten`` reuses the record)."""

    def fresh(self, top: Op) -> None:
        """Give every unnamed node under ``top`` a new id."""
        for op in top.walk():
            self._name(op, "o")
            for value in op.results:
                self._name(value, "v")
            for region in op.regions:
                self._name(region, "r")
                for block in region.blocks:
                    self._name(block, "b")
                    for value in block.args:
                        self._name(value, "v")

    def _name(self, node: Op | Region | Block | Value, prefix: str) -> None:
        if not node.id:
            node.id = f"{prefix}{self.next[prefix]}"
            self.next[prefix] += 1


@dataclass
class MatchStats:
    """How the ops of a snapshot matched the one before."""

    matched: int = 0
    moved: int = 0
    created: int = 0
    erased: int = 0
    by_phase: dict[str, int] = field(default_factory=lambda: dict[str, int]())


_NONE: frozenset[int] = frozenset()
_UNMATCHED: tuple[dict[Value, str], dict[Block, Block]] = ({}, {})
"""``key``'s matches for an old op (none: its own ids), never written."""
_COUNTS = tuple(str(count) for count in range(32))
"""How ``key`` writes the counts of an op's results and regions (mostly small)."""
_BY_KEY = frozenset({"compute", "moved", "created-moved"})
"""The phases that pair ops by what they compute (their keys equal, every value in them matched)."""

_Lookup = Callable[["Op", "str | None"], "list[Op] | None"]
"""A phase's candidates: for a new op and its block's matched id, the old ops it may be
(``_NEVER``: none, whatever matches later)."""
_NEVER: list[Op] = []
"""A lookup's answer where no old op can ever be a candidate (none has the op's name); never
written."""


class _Matcher:
    def __init__(self, old: Op, new: Op, known: dict[Op, Key]) -> None:
        self.old = old
        self.new = new
        self.old_ops = list(old.walk())
        self.new_ops = list(new.walk())
        self.unmatched = self.new_ops
        """The new ops not matched yet, in order (as of the last phase that matched some)."""
        self.omap: dict[Op, Op] = {}
        self.taken: set[Op] = set()
        self.vmap: dict[Value, str] = {}
        """Each new value matched: ``%`` and the id of the old value it matched (as ``key`` writes
        it: one string for all the keys that use the value)."""
        self.bmap: dict[Block, Block] = {}
        self.stats = MatchStats()
        self.known = known
        """Old ops' keys, computed before."""
        self.keys: dict[Op, Key] = {}
        """New ops' keys that no later match changes (every value and successor in them matched)."""
        self.computing: set[Op] = set()
        """The new ops paired by their key (``Ids.computing``)."""
        self.partial: dict[Op, tuple[Key, list[Value], list[Block]]] = {}
        """New ops' keys not final, each with the values and blocks it waits for (unmatched
        when it was computed): it holds while they stay unmatched."""

    def run(self) -> MatchStats:
        if self.old.name == self.new.name and len(self.old.regions) == len(self.new.regions):
            self._pair(self.new, self.old, "root")
        known = self.known
        old_keys = {
            op: known.get(op) or self._key(op, old=True)[0] for op in self.old_ops if op is not self.old
        }
        in_block: dict[tuple[str | None, Key], list[Op]] = defaultdict(list)
        for op, key in old_keys.items():
            in_block[(op.parent.id if op.parent is not None else "", key)].append(op)
        # (A key starts with the op's name: where no old op of that name is, in the block or
        # among those left, a new op's key need not be computed to find none.)
        named_in_block = {(block, key[0]) for block, key in in_block}
        built: dict[str, dict[Hashable, list[Op]]] = {}
        names_left: set[str] = set()

        def pools(kind: str) -> dict[Hashable, list[Op]]:
            # The later phases' candidates, gathered when a phase first looks, from the old ops
            # not matched by then (the phase would pass over the others): most ops of most
            # passes match by what they compute, in their block.
            found = built.get(kind)
            if found is None:
                found = built[kind] = self._pools(kind, old_keys)
                if kind == "anywhere":
                    names_left.update(key[0] for op, key in old_keys.items() if op not in self.taken)
            return found

        def anywhere(op: Op) -> list[Op] | None:
            found = pools("anywhere")
            return found.get(self._new_key(op)) if op.name in names_left else _NEVER

        phases: tuple[tuple[str, _Lookup], ...] = (
            (
                "compute",
                lambda op, block: (
                    in_block.get((block, self._new_key(op))) if (block, op.name) in named_in_block else _NEVER
                ),
            ),
            ("moved", lambda op, block: anywhere(op)),
            # By name and location, first only ops whose operands are all matched (one that
            # uses an op still unmatched may yet match by what it computes), then any.
            (
                "modified",
                lambda op, block: pools("in block").get((block, _shape(op))) if self._known(op) else None,
            ),
            (
                "moved-modified",
                lambda op, block: pools("located").get(_shape(op)) if self._known(op, True) else None,
            ),
            ("modified", lambda op, block: pools("in block").get((block, _shape(op)))),
            (
                "moved-modified",
                lambda op, block: pools("located").get(_shape(op)) if op.loc is not None else None,
            ),
            ("created-moved", lambda op, block: anywhere(op)),
        )
        # The ops a phase that looks them up by their key will never match: their key is final
        # (or none of their name is left), and its candidates were gone (they only go).
        missed: list[set[Op] | None] = [set() if phase in _BY_KEY else None for phase, _ in phases]
        progress = True
        while progress:
            progress = False
            for (phase, candidates), never in zip(phases, missed, strict=True):
                if self._phase(phase, candidates, never):
                    progress = True
                    break
        for op in self.new_ops:
            old = self.omap.get(op)
            if old is None:
                continue
            self.stats.matched += 1
            old_parent = old.parent.id if old.parent is not None else ""
            new_parent = self.bmap.get(op.parent) if op.parent is not None else None
            if op is not self.new and (new_parent is None or new_parent.id != old_parent):
                self.stats.moved += 1
        self.stats.created = len(self.new_ops) - len(self.omap)
        self.stats.erased = len(self.old_ops) - len(self.taken)
        return self.stats

    def _pools(self, kind: str, old_keys: dict[Op, Key]) -> dict[Hashable, list[Op]]:
        """The old ops not matched yet, in order: by what they compute (``anywhere``), by their
        block, name and location (``in block``), or by name and location (``located``)."""
        found: dict[Hashable, list[Op]] = defaultdict(list)
        taken = self.taken
        for op, key in old_keys.items():
            if op in taken:
                continue
            if kind == "anywhere":
                found[key].append(op)
            elif kind == "in block":
                found[(op.parent.id if op.parent is not None else "", _shape(op))].append(op)
            elif op.loc is not None:
                found[_shape(op)].append(op)
        return found

    def _phase(self, phase: str, lookup: _Lookup, missed: set[Op] | None) -> bool:
        """Match what ``lookup`` (an op and its matched block's id: old candidates) finds; ops it
        will never find one for go to ``missed`` (where given: a phase by key), and are passed
        over the next time."""
        found = False
        keys = self.keys
        for op in self.unmatched:
            if op in self.omap or (missed is not None and op in missed):
                continue
            parent = self.bmap.get(op.parent) if op.parent is not None else None
            block = parent.id if parent is not None else None
            if block is None and phase != "created-moved":
                # Its enclosing op is not matched (yet): nothing to compare its place with.
                continue
            pool = lookup(op, block)
            if not pool:
                if missed is not None and (pool is _NEVER or op in keys):
                    missed.add(op)
                continue
            taken = self.taken
            for index, old in enumerate(pool):
                if old not in taken:
                    # The candidates before it are taken for good: the next look starts here
                    # (an op repeated hundreds of times would otherwise scan them again).
                    del pool[:index]
                    self._pair(op, old, phase)
                    found = True
                    break
            else:
                pool.clear()
                if missed is not None and op in keys:
                    missed.add(op)
        if found:
            self.unmatched = [op for op in self.unmatched if op not in self.omap]
        return found

    def _known(self, op: Op, located: bool = False) -> bool:
        """Whether every value ``op`` uses is matched (and, if ``located``, ``op`` has a location)."""
        if located and op.loc is None:
            return False
        return all(v in self.vmap for v in op.operands)

    def _new_key(self, op: Op) -> Key:
        """A new op's key, by the ids of the old values and blocks its own matched."""
        key = self.keys.get(op)
        if key is not None:
            return key
        partial = self.partial.get(op)
        if partial is not None:
            key, values, blocks = partial
            # (Still the key while what it waits for is unmatched: matches never change.)
            if not any(v in self.vmap for v in values) and not any(b in self.bmap for b in blocks):
                return key
        key, values, blocks = self._key_waiting(op)
        if not values and not blocks:
            self.keys[op] = key
        else:
            self.partial[op] = (key, values, blocks)
        return key

    def _key_waiting(self, op: Op) -> tuple[Key, list[Value], list[Block]]:
        """A new op's key (``_key``), and the values and blocks it uses that are not matched yet
        (none: the key is final)."""
        values: list[Value] = []
        blocks: list[Block] = []
        key = self._key(op, old=False, waiting=(values, blocks))[0]
        return key, values, blocks

    def _key(
        self, op: Op, *, old: bool, waiting: tuple[list[Value], list[Block]] | None = None
    ) -> tuple[Key, bool]:
        """``key`` of ``op``: an old op's by its own ids, a new one's by the ids its values and
        blocks matched."""
        return key(op, None if old else (self.vmap, self.bmap), waiting)

    def _pair(self, new: Op, old: Op, phase: str) -> None:
        self.omap[new] = old
        self.taken.add(old)
        self.stats.by_phase[phase] = self.stats.by_phase.get(phase, 0) + 1
        if phase in _BY_KEY:
            self.computing.add(new)
        new.id = old.id
        for value, was in zip(new.results, old.results, strict=False):
            self._value(value, was)
        if len(new.regions) != len(old.regions):
            return
        for region, was_region in zip(new.regions, old.regions, strict=True):
            self._region(region, was_region)

    def _value(self, value: Value, was: Value) -> None:
        self.vmap[value] = "%" + was.id
        value.id = was.id

    def _region(self, region: Region, was: Region) -> None:
        region.id = was.id
        for block, was_block in _pair_blocks(region.blocks, was.blocks):
            self.bmap[block] = was_block
            block.id = was_block.id
            for value, was_value in zip(block.args, was_block.args, strict=False):
                self._value(value, was_value)


def key(
    op: Op,
    matching: tuple[dict[Value, str], dict[Block, Block]] | None = None,
    waiting: tuple[list[Value], list[Block]] | None = None,
) -> tuple[Key, bool]:
    """What ``op`` computes: its name, its text, the ids of the values and blocks it uses (by
    ``matching``, for a new op: the old values they matched, as ``%ID``, and the old blocks;
    ``?`` where none yet); and whether each of those is matched (the key is final). ``waiting``
    gets those not matched."""
    results, regions = len(op.results), len(op.regions)
    parts: list[str] = [
        op.name,
        _COUNTS[results] if results < len(_COUNTS) else str(results),
        _COUNTS[regions] if regions < len(_COUNTS) else str(regions),
    ]
    # The values an op's header defines (a function's arguments, a loop's induction
    # variable) are its own, not what it computes from.
    own: frozenset[int] | set[int] = (
        {id(v) for r in op.regions if r.args_in_header and r.blocks for v in r.blocks[0].args}
        if op.regions
        else _NONE
    )
    old = matching is None
    vmap, bmap = matching if matching is not None else _UNMATCHED
    complete = True
    append = parts.append
    for part in op.parts:
        if type(part) is str:
            append(part)
        elif type(part) is Use:
            value = part.value
            if value is None:
                append("%" + part.name)
            elif own and id(value) in own:
                append("%@")
            elif old:
                append("%" + value.id)
            else:
                matched = vmap.get(value)
                if matched is None:
                    complete = False
                    matched = "%?"
                    if waiting is not None:
                        waiting[0].append(value)
                append(matched)
        elif type(part) is BlockUse:
            block = part.block
            if block is None:
                append("^" + part.name)
            elif old:
                append("^" + block.id)
            else:
                paired = bmap.get(block)
                complete = complete and paired is not None
                if paired is None and waiting is not None:
                    waiting[1].append(block)
                append("^" + (paired.id if paired is not None else "?"))
        else:
            append("{}")
    return tuple(parts), complete


def _shape(op: Op) -> Hashable:
    return (op.name, op.loc, len(op.regions), len(op.results))


def _block_signature(block: Block) -> Hashable:
    return (len(block.args), tuple(op.name for op in block.ops))


def _pair_blocks(new: list[Block], old: list[Block]) -> list[tuple[Block, Block]]:
    """The blocks of a region before and after: all by position where their number is the same;
    else the entry blocks, and the others where their arguments and ops' names line up."""
    if len(new) == len(old):
        return list(zip(new, old, strict=True))
    if not new or not old:
        return []
    pairs: list[tuple[Block, Block]] = [(new[0], old[0])]
    matcher = SequenceMatcher(
        None, [_block_signature(b) for b in old[1:]], [_block_signature(b) for b in new[1:]], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            pairs += [(new[j + 1], old[i + 1]) for i, j in zip(range(i1, i2), range(j1, j2), strict=True)]
    return pairs


def match(old: Op, new: Op, ids: Ids) -> MatchStats:
    """Give ``new``'s nodes the ids of the ``old`` nodes they match; new ids to the rest."""
    matcher = _Matcher(old, new, ids.keys)
    stats = matcher.run()
    ids.fresh(new)
    # The keys final in this match are the next one's, once ``new`` is the snapshot matched from.
    for op in matcher.old_ops:
        ids.keys.pop(op, None)
    ids.keys.update(matcher.keys)
    ids.computing = matcher.computing
    return stats


def match_in_place(top: Op, pairs: list[tuple[Op, Op]], ids: Ids, count: int) -> MatchStats | None:
    """Ids for the snapshot ``top`` (``count`` ops, matched already) once each ``old`` op of
    ``pairs`` (in the text's order) is printed as its ``new`` one, in its place, naming the same
    values, as ``match`` of the whole would give them; None where it might not (another op
    computes what one of them does; one of them is alike another's by name and location; an op
    that goes has values another could use). A new op keeps its old one's id (and values) where
    the two compute the same, or where they are alike by name and location; else it is created
    and the old one erased. The ops are not put in place here."""
    olds = {id(old) for old, _ in pairs}
    old_keys = [ids.keys.get(old) or key(old)[0] for old, _ in pairs]
    new_keys = [key(new)[0] for _, new in pairs]
    names = {op.name for pair in pairs for op in pair}
    others = {ids.keys.get(op) or key(op)[0] for op in top.walk() if op.name in names and id(op) not in olds}
    phases: list[str | None] = []
    for index, (old, new) in enumerate(pairs):
        if old is top:
            phases.append("root")  # (``match`` pairs the two tops first, whatever they print)
            continue
        if old_keys[index] in others or new_keys[index] in others:
            return None
        for other, (was, _) in enumerate(pairs):
            if other != index and (new_keys[index] == old_keys[other] or _shape(new) == _shape(was)):
                return None
        if new_keys[index] == old_keys[index]:
            phases.append("compute")
        elif old.regions or old.results or new.results:
            # Paired by name and location, or not at all, it would leave what it holds, or the
            # ops using its values, to later phases: left to ``match``.
            return None
        elif _shape(new) == _shape(old):
            phases.append("modified")
        else:
            phases.append(None)
    stats = MatchStats()
    created = phases.count(None)
    modified = phases.count("modified")
    stats.matched = count - created
    stats.created = stats.erased = created
    stats.by_phase = {"root": 1, "compute": count - 1 - created - modified, "modified": modified}
    stats.by_phase = {phase: number for phase, number in stats.by_phase.items() if number}
    for (old, new), phase in zip(pairs, phases, strict=True):
        ids.keys.pop(old, None)
        if phase is not None:
            new.id = old.id
        else:
            ids.fresh(new)
    ids.computing = set()
    return stats


__all__ = ["Ids", "MatchStats", "RegionMark", "match", "match_in_place"]
