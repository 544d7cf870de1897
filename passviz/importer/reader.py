"""A dialect-agnostic reader of MLIR's textual IR: ops, results, operands, regions, blocks and
locations, read from the printed structure alone, whatever the dialects.

MLIR prints every op the same way around its own syntax: results (``%a, %b:2 =``), the op's name,
then text that its dialect alone understands, regions as ``{`` at the end of a line and ``}`` at
the start of one, block labels (``^bb1(%x: i32):``) at the region's indentation, and, with debug
information, ``loc(...)`` at the end.  That is enough to follow values (``%x``, ``%x#1``) and
successors (``^bb1``) through an op's text without knowing what the op means, so this reads any
dump: ``tt``, ``ttg``, ``flow``, ``hal``, a user's own dialect.  Attributes stay text; aliases
(``#blocked``, ``#loc3``, ``!type``) are expanded in place, so that a text never depends on how
a snapshot happened to number them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

_RESOURCES = re.compile(r"^\{-#.*?^#-\}[ \t]*$", re.S | re.M)
"""The file-level resource section (``{-# dialect_resources: ... #-}``)."""

_ALIAS_LINE = re.compile(r"^([#!][A-Za-z_][\w$.\-]*) = (.*)$", re.M)
"""An alias definition: ``#map = affine_map<...>``, ``#loc3 = loc(...)``, ``!t = ...``."""

_ALIAS_REF = re.compile(r'"(?:[^"\\\n]|\\.)*"|[#!][A-Za-z_][\w$.\-]*')
"""A string (left alone) or something that may name an alias."""

_TOKEN = re.compile(
    r"""(?P<str>"(?:[^"\\\n]|\\.)*")
    |(?P<val>%[\w$.\-]+(?:\#\d+)?)
    |(?P<blk>\^[\w$.\-]+)
    |(?P<nl>\n)
    |(?P<open>[(\[{])
    |(?P<close>[)\]}])
    |(?P<other>[^"%^\n()\[\]{}]+|.)""",
    re.X,
)

_RESULTS = re.compile(r"((?:%[\w$.\-]+(?::\d+)?)(?:\s*,\s*%[\w$.\-]+(?::\d+)?)*)\s*=\s*")
_OP_NAME = re.compile(r'"((?:[^"\\\n]|\\.)*)"|([A-Za-z_][\w$.\-]*)')
_LABEL = re.compile(r"\^([\w$.\-]+)")
_QUALIFIED_NAME = re.compile(r"[A-Za-z_][\w$]*\.[A-Za-z_]")
"""The start of an op's name with its dialect (``scf.yield``)."""
_INDENT = re.compile(r"[ \t]*")
_BLANKS = ("", " ", "\t", "\n", "\r", "\f", "\v")
"""What ``goes_on`` cannot tell a line by, after the indentation of the one before."""


class ReadError(ValueError):
    """Text that does not read as printed MLIR IR."""


@dataclass(eq=False, slots=True)
class Value:
    """An SSA value: an op's result or a block's argument."""

    name: str
    """As printed, without ``%`` (``0``, ``arg3``, ``x#1``)."""
    type: str = ""
    """Its type where the text says it (a block argument's); results' types stay in their op's text."""
    id: str = ""


@dataclass(eq=False, slots=True)
class Use:
    """A use of a value by name in an op's text, resolved once its region has been read."""

    name: str
    value: Value | None = None


@dataclass(eq=False, slots=True)
class BlockUse:
    """A successor named in an op's text (``^bb2``), resolved in its region."""

    name: str
    block: Block | None = None


@dataclass(eq=False, slots=True)
class RegionMark:
    """Where an op's text holds its region ``index``."""

    index: int


Part = str | Use | BlockUse | RegionMark


def _values() -> list[Value]:
    return []  # (not ``list[Value]()``: a generic alias's call costs several times a list's)


def _parts() -> list[Part]:
    return []


def _regions() -> list[Region]:
    return []


def _ops() -> list[Op]:
    return []


def _blocks() -> list[Block]:
    return []


@dataclass(eq=False, slots=True)
class Op:
    """An op as printed: its name, results, text (values, successors and regions as parts) and location."""

    name: str
    results: list[Value] = field(default_factory=_values)
    parts: list[Part] = field(default_factory=_parts)
    regions: list[Region] = field(default_factory=_regions)
    loc: str | None = None
    parent: Block | None = None
    id: str = ""

    @property
    def operands(self) -> list[Value]:
        """The values the op's text uses, in order (a value used twice counts twice)."""
        return [p.value for p in self.parts if isinstance(p, Use) and p.value is not None]

    @property
    def successors(self) -> list[Block]:
        return [p.block for p in self.parts if isinstance(p, BlockUse) and p.block is not None]

    def symbol(self) -> str | None:
        """The op's symbol name as its text shows it first (``@add_kernel``), or None."""
        for part in self.parts:
            if isinstance(part, RegionMark):
                return None
            if isinstance(part, str) and (found := re.search(r'@(?:"(?:[^"\\]|\\.)*"|[\w$.\-]+)', part)):
                return found.group(0)
        return None

    def walk(self) -> Iterator[Op]:
        """This op and every op nested in it, in pre-order (without recursion)."""
        stack: list[Op] = [self]
        while stack:
            op = stack.pop()
            yield op
            if op.regions:
                stack.extend(reversed([child for r in op.regions for b in r.blocks for child in b.ops]))


@dataclass(eq=False, slots=True)
class Block:
    """A block: its label as printed (None: an entry block without one), arguments and ops."""

    label: str | None
    args: list[Value] = field(default_factory=_values)
    ops: list[Op] = field(default_factory=_ops)
    region: Region | None = None
    id: str = ""


@dataclass(eq=False, slots=True)
class Region:
    """A region: its blocks; ``args_in_header`` when its entry block's arguments print in its op's header."""

    blocks: list[Block] = field(default_factory=_blocks)
    args_in_header: bool = False
    op: Op | None = None
    id: str = ""


@dataclass
class Snapshot:
    """One printed IR: its top-level op (a module, or the op an op-scoped dump printed)."""

    top: Op
    aliases: dict[str, str]
    """Each alias the text defined, and what it stands for (already expanded)."""
    body: str = ""
    """The text read, aliases written out ("" where it was not one op's: ``read_line_as`` has
    nothing to go by)."""
    starts: dict[int, Op] = field(default_factory=lambda: dict[int, Op]())
    """Each op of ``body`` printed on one line up to its regions (all of it, for an op without),
    by where that line starts."""


class _Scope:
    """The names a region defines, and the uses in it still to resolve."""

    def __init__(self, parent: _Scope | None) -> None:
        self.parent = parent
        self.names: dict[str, Value] = {}
        self.pending: list[Use] = []
        self.blocks: dict[str, Block] = {}
        self.block_uses: list[BlockUse] = []

    def lookup(self, name: str) -> Value | None:
        scope: _Scope | None = self
        while scope is not None:
            found = scope.names.get(name)
            if found is not None:
                return found
            scope = scope.parent
        return None

    def close(self) -> None:
        """Resolve what this region's names resolve; hand the rest to the enclosing region."""
        for use in self.pending:
            found = self.names.get(use.name)
            if found is not None:
                use.value = found
            elif self.parent is not None:
                self.parent.pending.append(use)
        for use in self.block_uses:
            use.block = self.blocks.get(use.name)


def expand_aliases(text: str) -> tuple[str, dict[str, str]]:
    """``text`` without its alias definitions, every alias it uses written out, and the aliases."""
    lines = _alias_lines(text)
    raw = {m.group(1): m.group(2).strip() for m in lines}
    # (``_ALIAS_LINE.sub("", text)``, without a scan of the whole text)
    cuts = [0, *(cut for m in lines for cut in m.span()), len(text)]
    body = "".join(text[cuts[i] : cuts[i + 1]] for i in range(0, len(cuts), 2)) if lines else text
    expanded: dict[str, str] = {}

    def expand(name: str, seen: frozenset[str]) -> str:
        done = expanded.get(name)
        if done is not None:
            return done
        definition = raw[name]
        if name.startswith("#") and definition.startswith("loc(") and definition.endswith(")"):
            definition = definition[4:-1]
        result = _ALIAS_REF.sub(lambda m: sub(m, seen | {name}), definition)
        expanded[name] = result
        return result

    def sub(match: re.Match[str], seen: frozenset[str]) -> str:
        token = match.group(0)
        if token in raw and token not in seen:
            return expand(token, seen)
        return token

    for name in raw:
        expand(name, frozenset())
    if not expanded:
        return body, expanded
    return _written_out(body, expanded), expanded


_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_NAME_REST = re.compile(r"[A-Za-z_][\w$.\-]*")
"""An alias's name after its first character (``#`` or ``!``)."""


def _written_out(body: str, aliases: dict[str, str]) -> str:
    """``body`` with each alias it names written out, strings left alone (what ``_ALIAS_REF``'s
    tokens give). A regular expression's scan of a snapshot's megabytes takes many times as long
    as ``str.find`` and ``str.split``, which find the strings, then the characters aliases start
    with (``#``, ``!``) between them: no name holds a quote or either character, so each piece
    after one of them starts with the name, if it is one."""
    leads = "".join(sorted({name[0] for name in aliases}))
    pieces: list[str] = []
    last = 0
    pos = body.find('"')
    while pos >= 0:
        token = _STRING.match(body, pos)
        if token is None:
            pos = body.find('"', pos + 1)
            continue
        pieces += [_names_written_out(body[last:pos], leads, aliases), token.group(0)]
        last = token.end()
        pos = body.find('"', last)
    pieces.append(_names_written_out(body[last:], leads, aliases))
    return "".join(pieces)


def _names_written_out(text: str, leads: str, aliases: dict[str, str]) -> str:
    """``text`` (no string in it) with each alias it names written out: cut where the first of
    ``leads`` is, then each piece at the others; what an alias is written out as is not read
    again."""
    lead, others = leads[0], leads[1:]
    if lead not in text:
        return _names_written_out(text, others, aliases) if others else text
    parts = text.split(lead)
    out = [_names_written_out(parts[0], others, aliases) if others else parts[0]]
    for piece in parts[1:]:
        name = _NAME_REST.match(piece)
        written = aliases.get(lead + name.group(0)) if name is not None else None
        if written is None or name is None:
            out += [lead, _names_written_out(piece, others, aliases) if others else piece]
            continue
        rest = piece[name.end() :]
        out += [written, _names_written_out(rest, others, aliases) if others else rest]
    return "".join(out)


def _alias_lines(text: str) -> list[re.Match[str]]:
    """``_ALIAS_LINE.finditer(text)``: found where lines start with ``#`` or ``!`` (``str.find``
    finds them several times as fast as a regular expression's scan of the whole text)."""
    starts = [0] if text[:1] in ("#", "!") else []
    for lead in ("\n#", "\n!"):
        pos = text.find(lead)
        while pos >= 0:
            starts.append(pos + 1)
            pos = text.find(lead, pos + 1)
    found = [_ALIAS_LINE.match(text, start) for start in sorted(starts)]
    return [m for m in found if m is not None]


@dataclass(frozen=True)
class _Line:
    """An op printed on one line, read once, as any line of the same shape (the same text but
    for its values' and blocks' names) reads: its parts, each name a slot (an index into the
    line's names, in order) resolved where the line is read again."""

    results: tuple[tuple[int, int], ...]
    """Each result group's slot and count (0: one value, ``%x``; n: ``%x:n``)."""
    name: str
    parts: tuple[str, ...]
    """The op's text parts, ``""`` where ``slots`` puts a value or a block."""
    slots: tuple[tuple[int, int, int], ...]
    """(index in ``parts``, ``_USE`` / ``_DEF`` (defined in the op's header) / ``_BLOCK``, slot)."""
    loc: str | None


_USE, _DEF, _BLOCK = 0, 1, 2

_NAMES = re.compile(r'("(?:[^"\\\n]|\\.)*"|%[\w$.\-]+(?:\#\d+)?|\^[\w$.\-]+)')
"""A string (left in the shape) or a value's or block's name, as ``_TOKEN`` finds them."""


@dataclass(frozen=True)
class _Template:
    """A ``_Line`` read from a line, to read a line of the same shape but for the digits of its
    numbers (outside names: ``[23]``, ``:102:22``) without tokenizing it: the 64
    ``llvm.insertvalue`` of a struct, each at its index. A digit never decides where a token ends,
    so such a line reads as this one did, each text part the same stretch of the shape."""

    line: _Line
    parts: tuple[tuple[int, int], ...]
    """Where each of the line's text parts lies in its shape."""
    loc: tuple[int, int] | None
    """Where its location lies in its shape."""

    def filled(self, shape: str) -> _Line:
        """The ``_Line`` of the line of ``shape``, alike but for its digits."""
        line = self.line
        parts = tuple([shape[start:end] for start, end in self.parts])
        loc = shape[self.loc[0] : self.loc[1]] if self.loc is not None else None
        return _Line(line.results, line.name, parts, line.slots, loc)


def _template(line: _Line, shape: str) -> _Template | None:
    """``line``, read from a line of ``shape``, as a ``_Template``: where each of its text parts
    (and its location) lies in the shape, walked in order (each value's or block's slot one
    ``\\x00``); None where a digit is elsewhere (a result group's count, the op's name) or the
    parts are not the shape's stretches."""
    if any(count for _, count in line.results) or any(char.isdigit() for char in line.name):
        return None
    pos = shape.find(line.parts[0]) if line.parts and line.parts[0] else -1
    if pos < 0 or shape[:pos].strip("\x00, =:"):
        return None
    spans: list[tuple[int, int]] = []
    for part in line.parts:
        if not part:
            if not shape.startswith("\x00", pos):
                return None
            spans.append((pos, pos))
            pos += 1
            continue
        if not shape.startswith(part, pos):
            return None
        spans.append((pos, pos + len(part)))
        pos += len(part)
    loc = None
    if line.loc is not None:
        at = shape.find(line.loc, pos)
        if at < 0 or shape[pos:at].strip(" ") or shape[at + len(line.loc) :].strip():
            return None
        loc = (at, at + len(line.loc))
    template = _Template(line, tuple(spans), loc)
    return template if template.filled(shape) == line else None


_DIGITS = str.maketrans("0123456789", "\x01" * 10)
"""Each digit as ``\\x01``: a line's shape as ``LineCache.templates`` keys it."""


@dataclass
class LineCache:
    """One-line ops by their shape (``_shape``): snapshots of one dump print most lines again, with
    the same text or values renumbered, and reading a line is most of reading a snapshot."""

    shapes: dict[str, _Line] = field(default_factory=lambda: dict[str, _Line]())
    templates: dict[str, _Template] = field(default_factory=lambda: dict[str, _Template]())
    """By shape with each digit as ``\\x01`` (``_DIGITS``): lines alike but for their numbers'
    digits, each part of their text where the template's was."""

    def known(self, shape: str) -> _Line | None:
        """The line of ``shape`` as read before, or as a template reads it, or None."""
        known = self.shapes.get(shape)
        if known is None and "\x01" not in shape:
            template = self.templates.get(shape.translate(_DIGITS))
            if template is not None:
                known = self.shapes[shape] = template.filled(shape)
        return known


_VALUE_NAME = re.compile(r"%[\w$.\-]+(?:\#\d+)?")
"""A value's name, as ``_NAMES`` finds it."""


def _shape(line: str) -> tuple[str, list[str]]:
    """``line`` with each value and block name as ``\\x00``, and those names in order."""
    quote = line.find('"')
    head = line if quote < 0 else line[:quote]
    if "^" in head or (quote >= 0 and ("%" in line[quote:] or "^" in line[quote:])):
        return _shape_any(line)
    # The common line: values before any string (its location's file name), no block: the
    # names found with ``str.find``, several times as fast as a regular expression's scan.
    pos = head.find("%")
    if pos < 0:
        return line, []
    pieces: list[str] = []
    names: list[str] = []
    last = 0
    match = _VALUE_NAME.match
    while pos >= 0:
        found = match(head, pos)
        if found is None:
            pos = head.find("%", pos + 1)
            continue
        end = found.end()
        pieces.append(line[last:pos])
        names.append(line[pos + 1 : end])
        last = end
        pos = head.find("%", end)
    pieces.append(line[last:])
    return "\x00".join(pieces), names


def _shape_any(line: str) -> tuple[str, list[str]]:
    """``_shape`` of any line: strings skipped, values' and blocks' names cut out."""
    pieces = _NAMES.split(line)
    names: list[str] = []
    for index in range(1, len(pieces), 2):
        token = pieces[index]
        if token[0] != '"':
            names.append(token[1:])
            pieces[index] = "\x00"
    return "".join(pieces), names


def read_ir(text: str, lines: LineCache | None = None) -> Snapshot:
    """The IR printed in ``text``: one top-level op, or several (read as a module holding them,
    as MLIR reads a file of ops); ``lines``: the one-line ops read before (of earlier snapshots
    of the same dump), which this read uses and adds to."""
    resources = "{-#" in text
    if resources:
        text = _RESOURCES.sub("", text)
    body, aliases = expand_aliases(text)
    reader = _Reader(body, lines)
    tops = reader.top_level()
    if not tops:
        raise ReadError("no IR in the text")
    if len(tops) == 1:
        if resources or lines is None:
            return Snapshot(tops[0], aliases)
        return Snapshot(tops[0], aliases, reader.text, reader.starts)
    module = Op("builtin.module", parts=["module ", RegionMark(0)])
    region = Region(op=module)
    block = Block(None, region=region)
    region.blocks.append(block)
    module.regions.append(region)
    for op in tops:
        op.parent = block
        block.ops.append(op)
    return Snapshot(module, aliases)


def _header_line(op: Op) -> bool:
    """Whether ``op`` (with regions) was printed on one line up to its first region."""
    for part in op.parts:
        if isinstance(part, RegionMark):
            return True
        if isinstance(part, str) and "\n" in part:
            return False
    return False


def read_header_as(line: str, old: Op) -> Op | None:
    """The op whose line up to its regions (``{`` ends it) is printed as ``line`` (without its
    indentation), where ``old`` was: ``old``'s regions, results and location (printed after its
    regions), its header's names naming what they named in ``old``. None where the line is not
    that, or names anything else."""
    if not line.rstrip().endswith("{"):
        return None
    try:
        tops = _Reader(line + "\n}\n").top_level()
    except ReadError:
        return None
    if len(tops) != 1 or tops[0].name != old.name or len(tops[0].regions) != 1:
        return None
    head = tops[0].parts[: _mark(tops[0].parts)]
    body = _mark(old.parts)
    named: dict[str, Value | None] = {}
    for part in old.parts[:body]:
        if isinstance(part, Use):
            named[part.name] = part.value
        elif isinstance(part, BlockUse):
            return None
    parts: list[Part] = []
    for part in head:
        if isinstance(part, Use):
            if part.name not in named:
                return None
            part = Use(part.name, named[part.name])
        elif not isinstance(part, str):
            return None
        parts.append(part)
    return Op(old.name, old.results, [*parts, *old.parts[body:]], old.regions, old.loc, old.parent)


def _mark(parts: list[Part]) -> int:
    """Where the first region's mark is among ``parts``."""
    return next(index for index, part in enumerate(parts) if isinstance(part, RegionMark))


def read_line_as(line: str, old: Op, lines: LineCache) -> Op | None:
    """The one-line op printed as ``line`` (without its indentation) where ``old`` was, in its
    block: the values and blocks it names are the ones ``old`` named (its operands and results);
    it defines the values ``old`` did, the same ``Value``s. None where it names anything else, or
    defines other values, or is not an op of one line."""
    shape, names = _shape(line)
    known = lines.known(shape)
    if known is None:
        # Read once on its own, which remembers its shape (if it has one to remember).
        try:
            _Reader(line + "\n", lines).top_level()
        except ReadError:
            return None
        known = lines.known(shape)
    if known is None or any(count for _, count in known.results):
        return None
    if [names[slot] for slot, _ in known.results] != [value.name for value in old.results]:
        return None
    named: dict[str, Value | None] = {p.name: p.value for p in old.parts if isinstance(p, Use)}
    named.update((value.name, value) for value in old.results)
    parts: list[Part] = [*known.parts]
    for index, kind, slot in known.slots:
        name = names[slot]
        if kind != _USE or name not in named:
            return None
        parts[index] = Use(name, named[name])
    op = Op(_qualified(known.name, old.parent), old.results, parts, loc=known.loc)
    op.parent = old.parent
    return op


class _Reader:
    def __init__(self, text: str, lines: LineCache | None = None) -> None:
        self.text = text if text.endswith("\n") else text + "\n"
        self.pos = 0
        self.lines = lines
        self.defs: list[Use] = []
        """The header definitions (``%x : type``, ``%x = ...``) of the op ``_op_body`` read last."""
        self.starts: dict[int, Op] = {}
        """``Snapshot.starts``."""

    # -- lines -------------------------------------------------------------------------

    def _skip_blank(self) -> None:
        """Move past blank lines (and ``//`` comment lines)."""
        text = self.text
        while self.pos < len(text):
            end = text.find("\n", self.pos)
            end = len(text) if end < 0 else end
            line = text[self.pos : end].strip()
            if line and not line.startswith("//"):
                return
            self.pos = end + 1

    def _line_indent(self, pos: int) -> tuple[int, str]:
        """The indentation of the line at ``pos`` and its first characters after it."""
        match = _INDENT.match(self.text, pos)
        assert match is not None
        return len(match.group(0)), self.text[match.end() : match.end() + 1]

    def top_level(self) -> list[Op]:
        ops: list[Op] = []
        scope = _Scope(None)
        while True:
            self._skip_blank()
            if self.pos >= len(self.text):
                break
            ops.append(self._op(scope, None, self._line_indent(self.pos)[0]))
        scope.close()
        return ops

    # -- regions -------------------------------------------------------------------------

    def _region(self, op: Op, scope: _Scope, header_defs: list[Value]) -> Region:
        """A region, from the line after its ``{`` to just past its ``}``."""
        region = Region(op=op)
        inner = _Scope(scope)
        block: Block | None = None
        text = self.text
        while True:
            # Most lines are an op's: its indentation and first character, in one match.
            at = _INDENT.match(text, self.pos)
            assert at is not None
            first = text[at.end() : at.end() + 1]
            if first and first not in "\n/" and not first.isspace():
                indent = at.end() - self.pos
            else:
                self._skip_blank()
                if self.pos >= len(text):
                    raise ReadError("a region is not closed")
                indent, first = self._line_indent(self.pos)
            if first == "}":
                self.pos += indent + 1
                break
            if first == "^":
                block = self._label(region, inner, indent)
                continue
            if block is None:
                block = Block(None, region=region)
                region.blocks.append(block)
                if header_defs:
                    region.args_in_header = True
                    block.args = header_defs
                    header_defs = []
                for arg in block.args:
                    inner.names[arg.name] = arg
            child = self._op(inner, block, indent)
            child.parent = block
            block.ops.append(child)
        if not region.blocks and header_defs:
            # An empty body (a declaration's) holds no block: the names stand for nothing.
            pass
        inner.close()
        return region

    def _label(self, region: Region, scope: _Scope, indent: int) -> Block:
        """A block label line: ``^bb1(%a: i32, %b: f32 loc(...)):  // 2 preds: ...``."""
        match = _LABEL.match(self.text, self.pos + indent)
        assert match is not None
        block = Block(match.group(1), region=region)
        region.blocks.append(block)
        scope.blocks[block.label or ""] = block
        self.pos = match.end()
        if self.text.startswith("(", self.pos):
            close = self._matching(self.pos)
            for arg in _split_top(self.text[self.pos + 1 : close]):
                name, _, type_ = arg.partition(":")
                value = Value(name.strip().lstrip("%"), type_.strip())
                block.args.append(value)
                scope.names[value.name] = value
            self.pos = close + 1
        end = self.text.find("\n", self.pos)
        self.pos = len(self.text) if end < 0 else end + 1
        return block

    def _matching(self, pos: int) -> int:
        """The position of the bracket closing the one at ``pos``."""
        depth = 0
        for match in _TOKEN.finditer(self.text, pos):
            kind = match.lastgroup
            if kind == "open":
                depth += 1
            elif kind == "close":
                depth -= 1
                if depth == 0:
                    return match.start()
        raise ReadError("a bracket is not closed")

    # -- ops -------------------------------------------------------------------------------

    def _op(self, scope: _Scope, block: Block | None, indent: int) -> Op:
        """The op on the line at ``self.pos``, indented ``indent``, and the lines it goes on to."""
        text = self.text
        pos = self.pos + indent
        lines = self.lines
        if lines is None:
            return self._read_op(scope, block, indent, pos)
        eol = text.find("\n", pos)
        shape, names = _shape(text[pos:eol])
        known = lines.known(shape)
        if known is not None and not goes_on(text, eol + 1, indent):
            self.pos = eol + 1
            op = self.starts[pos - indent] = self._again(known, names, scope, block)
            return op
        op = self._read_op(scope, block, indent, pos)
        if (not op.regions and self.pos == eol + 1) or (op.regions and _header_line(op)):
            self.starts[pos - indent] = op
        plain = "\x01" not in shape
        if not op.regions and self.pos == eol + 1 and "\x00" not in text[pos:eol]:
            remembered = self._remember(op, text[pos:eol], len(names))
            if remembered is not None:
                lines.shapes[shape] = remembered
                template = _template(remembered, shape) if plain else None
                if template is not None:
                    lines.templates.setdefault(shape.translate(_DIGITS), template)
        return op

    def _remember(self, op: Op, line: str, count: int) -> _Line | None:
        """``op``, read from ``line`` alone (``count`` names in it), as a ``_Line`` to read lines
        of its shape by; None if its parts do not hold each name once, in order."""
        defs = {id(use) for use in self.defs}
        found = _RESULTS.match(line)
        groups = found.group(1).split(",") if found is not None else []
        results = tuple((slot, int(group.partition(":")[2] or 0)) for slot, group in enumerate(groups))
        parts: list[str] = []
        slots: list[tuple[int, int, int]] = []
        slot = len(groups)
        for part in op.parts:
            if isinstance(part, str):
                parts.append(part)
                continue
            kind = _BLOCK if isinstance(part, BlockUse) else _DEF if id(part) in defs else _USE
            slots.append((len(parts), kind, slot))
            parts.append("")
            slot += 1
        if slot != count:
            return None
        named = _OP_NAME.match(line, found.end() if found is not None else 0)
        assert named is not None
        name = named.group(1) if named.group(1) is not None else named.group(2)
        return _Line(results, name, tuple(parts), tuple(slots), op.loc)

    def _again(self, line: _Line, names: list[str], scope: _Scope, block: Block | None) -> Op:
        """The op of shape ``line`` with ``names``, read again: its values resolved in ``scope``
        as ``_op_body`` resolves them."""
        results: list[Value] = []
        for slot, count in line.results:
            if count:
                results += [Value(f"{names[slot]}#{i}") for i in range(count)]
            else:
                results.append(Value(names[slot]))
        parts: list[Part] = [*line.parts]
        defs: dict[str, Value] = {}
        local = scope.names
        for index, kind, slot in line.slots:
            name = names[slot]
            if kind == _USE:
                # (The region's own names first: most uses are of a value defined beside them.)
                found = local.get(name) or scope.lookup(name) or defs.get(name)
                use = Use(name, found)
                if found is None:
                    scope.pending.append(use)
                parts[index] = use
            elif kind == _DEF:
                value = Value(name)
                defs.setdefault(name, value)
                parts[index] = Use(name, value)
            else:
                successor = BlockUse(name)
                scope.block_uses.append(successor)
                parts[index] = successor
        if len(results) == 1:
            local[results[0].name] = results[0]
        else:
            self._define(results, scope)
        name = line.name
        return Op(name if "." in name else _qualified(name, block), results, parts, loc=line.loc)

    def _define(self, results: list[Value], scope: _Scope) -> None:
        for value in results:
            scope.names[value.name] = value
        if len(results) > 1 and all("#" in r.name for r in results):
            scope.names.setdefault(results[0].name.partition("#")[0], results[0])

    def _read_op(self, scope: _Scope, block: Block | None, indent: int, pos: int) -> Op:
        text = self.text
        results: list[Value] = []
        match = _RESULTS.match(text, pos)
        if match is not None:
            for group in match.group(1).split(","):
                name, _, count = group.strip().lstrip("%").partition(":")
                if count:
                    results += [Value(f"{name}#{i}") for i in range(int(count))]
                else:
                    results.append(Value(name))
            pos = match.end()
        found = _OP_NAME.match(text, pos)
        if found is None:
            line = text[pos : text.find("\n", pos)]
            raise ReadError(f"not an op: {line[:80]!r}")
        name = found.group(1) if found.group(1) is not None else found.group(2)
        op = Op(_qualified(name, block), results)
        op.parts.append(text[pos : found.end()])
        self.pos = found.end()
        self._op_body(op, scope, indent)
        self._define(results, scope)
        return op

    def _op_body(self, op: Op, scope: _Scope, indent: int) -> None:
        """The rest of ``op``'s text, its regions and location, up to the end of its last line."""
        text = self.text
        parts = op.parts
        depth = 0
        loc_start: int | None = None
        loc_depth = -1
        loc_end = -1
        header_defs: list[Value] = []
        defs: list[Use] = []
        header = True
        pos = self.pos
        while pos < len(text):
            match = _TOKEN.match(text, pos)
            assert match is not None
            kind = match.lastgroup
            token = match.group(0)
            pos = match.end()
            if kind == "val":
                if header and (text.startswith(":", pos) or text.startswith(" = ", pos)):
                    value = Value(token[1:])
                    header_defs.append(value)
                    defined = Use(value.name, value)
                    defs.append(defined)
                    parts.append(defined)
                    continue
                found = scope.lookup(token[1:])
                if found is None and header and not any(v.name == token[1:] for v in header_defs):
                    # An unknown name in the header of an op with a region: the region's
                    # argument (``scf.forall (%i) in ...``), if a region follows.
                    use = Use(token[1:])
                    parts.append(use)
                    scope.pending.append(use)
                    continue
                known = (
                    next((v for v in header_defs if v.name == token[1:]), None) if found is None else found
                )
                use = Use(token[1:], known)
                if known is None:
                    scope.pending.append(use)
                parts.append(use)
            elif kind == "blk":
                use = BlockUse(token[1:])
                scope.block_uses.append(use)
                parts.append(use)
            elif kind == "open":
                if token == "{" and _ends_line(text, pos) and (depth == 0 or self._holds_ops(pos)):
                    parts.append(RegionMark(len(op.regions)))
                    self.pos = text.find("\n", pos) + 1
                    self._adopt_header_uses(op, scope, header_defs)
                    header = False
                    region = self._region(op, scope, header_defs)
                    header_defs = []
                    op.regions.append(region)
                    pos = self.pos
                    continue
                if token == "(" and loc_start is None and depth == 0 and _last_word(parts) == "loc":
                    last = parts[-1]
                    if isinstance(last, str) and last.endswith("loc") and last != "loc":
                        # ``loc`` came in one run of text with what precedes it: part it off.
                        parts[-1:] = [last[:-3], "loc"]
                    loc_start = len(parts) - 1
                    loc_depth = depth
                depth += 1
                parts.append(token)
            elif kind == "close":
                depth -= 1
                parts.append(token)
                if loc_start is not None and depth == loc_depth:
                    loc_end = len(parts)
            elif kind == "nl":
                if depth == 0 and not goes_on(text, pos, indent):
                    self.pos = pos
                    break
                nxt_indent = self._line_indent(pos)[0]
                parts.append("\n" + " " * max(nxt_indent - indent, 0))
                pos += nxt_indent
            else:
                if loc_start is not None and loc_end != -1 and token.strip():
                    loc_start, loc_end = None, -1
                parts.append(token)
        else:
            self.pos = pos
        if loc_start is not None and loc_end != -1:
            loc = "".join(p for p in parts[loc_start:loc_end] if isinstance(p, str))
            del parts[loc_start:]
            _merge_strings(parts)
            # One space sets the location off; more (a printer's own) stay in the op's text.
            if parts and isinstance(parts[-1], str) and parts[-1].endswith(" "):
                parts[-1] = parts[-1][:-1]
                if not parts[-1]:
                    parts.pop()
            op.loc = loc
        if header:
            self._adopt_header_uses(op, scope, [])
        _merge_strings(parts)
        self.defs = defs

    def _holds_ops(self, pos: int) -> bool:
        """Whether the lines after the ``{`` ending the line at ``pos`` are a region's (ops, block
        labels, its ``}``), not a bracketed list inside an op's text (``slices({``, then
        ``[0, 1] = %c8192,``)."""
        saved = self.pos
        self.pos = self.text.find("\n", pos) + 1
        self._skip_blank()
        indent, first = self._line_indent(self.pos)
        start = self.pos + indent
        self.pos = saved
        return first in ("%", "^", '"', "}") or _QUALIFIED_NAME.match(self.text, start) is not None

    def _adopt_header_uses(self, op: Op, scope: _Scope, header_defs: list[Value]) -> None:
        """Give the header's unknown names to the region about to be read (as its entry block's
        arguments), or leave them to resolve later (forward references)."""
        for part in op.parts:
            if isinstance(part, Use) and part.value is None and scope.lookup(part.name) is None:
                if any(v.name == part.name for v in header_defs) or not isinstance(op.parts[-1], RegionMark):
                    continue
                value = Value(part.name)
                header_defs.append(value)
                part.value = value
                if part in scope.pending:
                    scope.pending.remove(part)
        # A header's own definitions resolve the uses of the same name in the header.
        names = {v.name: v for v in header_defs}
        for part in op.parts:
            if isinstance(part, Use) and part.value is None and part.name in names:
                part.value = names[part.name]
                if part in scope.pending:
                    scope.pending.remove(part)


def goes_on(text: str, pos: int, indent: int) -> bool:
    """Whether the line at ``pos`` of ``text`` goes on with the op (indented ``indent``) of the
    line before, which closed all its brackets."""
    if text[pos + indent : pos + indent + 1] not in _BLANKS and text.startswith(" " * indent, pos):
        return False  # (the common case, an op beside it: indented no further, not blank)
    at = _INDENT.match(text, pos)
    assert at is not None
    first = text[at.end() : at.end() + 1]
    return at.end() - pos > indent and first not in ("", "}", "^", "\n") and not _blank(text, pos)


def unlink(top: Op) -> None:
    """Take ``top``'s tree apart (each op's regions, each region's blocks, each block's ops), a
    snapshot no longer wanted: its ops refer to their blocks, so that otherwise only the cyclic
    collector frees it, which goes through every op still held to find it."""
    holders = [op for op in top.walk() if op.regions]
    for op in holders:
        for region in op.regions:
            for block in region.blocks:
                block.ops = []
            region.blocks = []
        op.regions = []


def spelled_name(text: str) -> str | None:
    """The op's name as ``text`` (an op's first part) spells it at its start (``module``,
    ``builtin.module``, ``"tt.func"``), or None."""
    found = _OP_NAME.match(text)
    return found.group(0) if found is not None else None


def _qualified(name: str, block: Block | None) -> str:
    """An op's name as printed, with the dialect MLIR leaves out in its parent's dialect's
    regions (``return`` in ``func.func``) put back."""
    if "." in name:
        return name
    parent = block.region.op if block is not None and block.region is not None else None
    dialect = parent.name.partition(".")[0] if parent is not None and "." in parent.name else ""
    return "builtin.module" if name == "module" else f"{dialect}.{name}" if dialect else name


def _ends_line(text: str, pos: int) -> bool:
    """Whether only blanks follow ``pos`` on its line."""
    end = text.find("\n", pos)
    return not text[pos : len(text) if end < 0 else end].strip()


def _blank(text: str, pos: int) -> bool:
    end = text.find("\n", pos)
    return not text[pos : len(text) if end < 0 else end].strip()


def _last_word(parts: list[Part]) -> str | None:
    for part in reversed(parts):
        if isinstance(part, str):
            if not part.strip():
                continue
            return part.strip().rsplit(" ", 1)[-1]
        return None
    return None


def _merge_strings(parts: list[Part]) -> None:
    """Join neighbouring text parts, in place."""
    out: list[Part] = []
    for part in parts:
        if isinstance(part, str) and out and isinstance(out[-1], str):
            out[-1] += part
        else:
            out.append(part)
    parts[:] = out


def _split_top(text: str) -> list[str]:
    """``text`` split at its commas outside brackets and strings (``<>`` counted too)."""
    items: list[str] = []
    depth = 0
    start = 0
    index = 0
    while index < len(text):
        char = text[index]
        if char == '"':
            index += 1
            while index < len(text) and text[index] != '"':
                index += 2 if text[index] == "\\" else 1
        elif char in "([{<":
            depth += 1
        elif char in ")]}" or (char == ">" and text[index - 1 : index] != "-"):
            depth -= 1
        elif char == "," and depth == 0:
            items.append(text[start:index])
            start = index + 1
        index += 1
    if text[start:].strip():
        items.append(text[start:])
    return [item.strip() for item in items if item.strip()]
