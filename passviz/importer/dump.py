"""MLIR's IR-printing output (``--mlir-print-ir-before-all``, ``-after-all``, ``-after-change``,
``-after-failure``, Triton's ``MLIR_ENABLE_DUMP``, ``--mlir-print-ir-tree-dir`` folders) as a
trace: one step per printed pass, ops matched from each snapshot to the next."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from passviz.importer.delta import Flat, diff, flatten, restate, splice, splice_all
from passviz.importer.identity import Ids, MatchStats, match, match_in_place
from passviz.importer.inplace import InPlace, changed_lines, read_in_place
from passviz.importer.reader import (
    Block,
    LineCache,
    Op,
    ReadError,
    Region,
    RegionMark,
    Snapshot,
    read_ir,
    spelled_name,
    unlink,
)
from passviz.ir.collection import collector_paused
from passviz.trace.model import Delta, Flag, ImportInfo, InitialState, Step, Trace, TraceMeta
from passviz.version import __version__

_BANNER = re.compile(r"^// -----// (.*?)(?: //----- //)?[ \t]*$", re.M)
"""A banner: a pass's IR dump, or another (the software pipeliner's ``internal IR Dump After:``,
which has no closing ``//----- //``)."""
_DUMP = re.compile(r"IR Dump (Before|After) (.*)$")
_SCOPE = re.compile(r" \('([^']+)' operation(?:: (.*))?\)$")
_NEW_STYLE = re.compile(r"^(\S+?)(?: Failed)?: (.*)$")
_OLD_STYLE = re.compile(r"^(.*?)(?: Failed)? \((.*)\)$")
_DIAGNOSTIC = re.compile(
    r"^(?:[^\s:][^:\n]*:\d+:\d+|<unknown>:\d+(?::\d+)?|loc\(.*\)): (?:error|warning|note|remark): .*$", re.M
)
_TREE_FILE = re.compile(r"^(\d+(?:_\d+)*)_")
_MODULE = (None, "builtin.module")
"""The scope of a dump that prints the whole module."""
_STAGE = re.compile(r"^passviz stage ([\w.-]+)$")
"""The line ``passviz triton`` writes into the dump as a compile stage starts (``ttir``, ``ttgir``,
``llir``, ...): the passes after it are that stage's."""


@dataclass
class Banner:
    """One ``// -----// IR Dump ... //----- //`` line, read."""

    when: str
    """``before`` or ``after``."""
    name: str
    """The pass as the banner names it (``Canonicalizer``, ``CSEPass``)."""
    argument: str
    """Its command-line argument, with options where the banner gives them (``canonicalize{...}``)."""
    failed: bool = False
    scope_op: str | None = None
    scope_symbol: str | None = None
    text: str = ""
    stage: str | None = None
    """The compile stage the pass ran in, where the dump marks stages (``passviz triton``)."""

    @property
    def label(self) -> str:
        """The step's name: the pass and the scope as the banner says them."""
        if self.scope_op is None or self.scope_symbol is None:
            return self.name
        return f"{self.name} ('{self.scope_op}' operation: {self.scope_symbol})"


def read_banner(body: str) -> Banner | None:
    """The banner's parts, or None for a banner that is no pass's (a pass's own debug dump)."""
    found = _DUMP.match(body)
    if found is None:
        return None
    when, rest = found.group(1).lower(), found.group(2).strip()
    scope_op = scope_symbol = None
    scope = _SCOPE.search(rest)
    if scope is not None:
        scope_op, scope_symbol = scope.group(1), scope.group(2)
        rest = rest[: scope.start()]
    failed = " Failed" in rest
    new = _NEW_STYLE.match(rest)
    old = _OLD_STYLE.match(rest)
    if new is not None and (old is None or " " not in new.group(1)):
        name, argument = new.group(1), new.group(2).strip()
    elif old is not None:
        name, argument = old.group(1).strip(), old.group(2).strip()
    else:
        name, argument = rest.replace(" Failed", "").strip(), ""
    return Banner(when, name, argument or name, failed, scope_op, scope_symbol)


@dataclass
class Sections:
    """A dump cut at its banners."""

    banners: list[Banner] = field(default_factory=lambda: list[Banner]())
    skipped: list[str] = field(default_factory=lambda: list[str]())
    """Banners that print no pass's IR (``SoftwarePipeliner internal IR Dump``)."""


def split_dump(text: str) -> Sections:
    """``text`` cut at its banners (a banner may start mid-line: streams interleave)."""
    text = _own_lines(text)
    sections = Sections()
    matches = list(_BANNER.finditer(text))
    for _, banner in _cut(text, matches, None, sections.skipped):
        if banner is not None:
            sections.banners.append(banner)
    if not matches:
        raise ReadError("no IR dump banner (// -----// IR Dump ... //----- //) in the text")
    return sections


def _cut(
    text: str, matches: Sequence[re.Match[str]], stage: str | None, skipped: list[str]
) -> Iterator[tuple[str | None, Banner | None]]:
    """``text`` cut at ``matches`` (its banners): each pass's banner with its text up to the next
    and the stage it is in (``stage`` until a stage marker says otherwise), or at a stage marker
    the new stage and None; a banner that prints no pass's IR goes to ``skipped``."""
    for index, found in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        banner = read_banner(found.group(1))
        if banner is None:
            marked = _STAGE.match(found.group(1))
            if marked is None:
                skipped.append(found.group(1))
                continue
            stage = marked.group(1)
            yield stage, None
            continue
        banner.text = text[found.end() : end]
        banner.stage = stage
        yield stage, banner


_MARK = "// -----// "


def _banners(text: str) -> list[re.Match[str]]:
    """``_BANNER.finditer(text)`` where ``text`` has each banner on a line of its own
    (``_own_lines``): at each mark, found by ``str.find``, many times as fast as a scan of the
    whole text."""
    found: list[re.Match[str]] = []
    pos = text.find(_MARK)
    while pos >= 0:
        banner = _BANNER.match(text, pos)
        if banner is not None:
            found.append(banner)
        pos = text.find(_MARK, banner.end() if banner is not None else pos + 1)
    return found


def _own_lines(text: str) -> str:
    """``text`` with a line break before each banner that starts mid-line (not at its start):
    by splitting at the banners, which is much faster than a look-behind over the whole dump."""
    pieces = text.split(_MARK)
    out = [pieces[0]]
    last = pieces[0][-1:]
    for piece in pieces[1:]:
        if last not in ("", "\n"):
            out.append("\n")
        out += [_MARK, piece]
        last = piece[-1:] or _MARK[-1]
    return "".join(out)


def read_tree_dir(folder: Path) -> str:
    """The files of an ``--mlir-print-ir-tree-dir`` folder, in the order the passes ran, as one dump."""
    files: list[tuple[tuple[int, ...], str, Path]] = []
    for path in folder.rglob("*.mlir"):
        found = _TREE_FILE.match(path.name)
        order = tuple(int(n) for n in found.group(1).split("_")) if found else (1 << 30,)
        files.append((order, str(path.relative_to(folder)), path))
    if not files:
        raise ReadError(f"{folder}: no .mlir files in the folder")
    return "".join(path.read_text(encoding="utf-8") + "\n" for _, _, path in sorted(files))


@dataclass
class ImportReport:
    """What an import found: the trace and how its ops matched from step to step."""

    trace: Trace
    stats: list[MatchStats] = field(default_factory=lambda: list[MatchStats]())
    """One per step, as the step's snapshot matched the one before."""


def _diagnostics(text: str) -> tuple[str, list[str]]:
    """``text`` without the diagnostics printed into it, and the diagnostics."""
    if not any(f": {kind}: " in text for kind in ("error", "warning", "note", "remark")):
        return text, []  # (a diagnostic says one of these: no need to look line by line)
    if _DIAGNOSTIC.search(text) is None:
        return text, []
    lines = text.split("\n")
    found: list[str] = []
    kept: list[str] = []
    skip = 0
    rest = False
    for index, line in enumerate(lines):
        if rest:
            if not line.startswith(_MARK):
                found[-1] += "\n" + line
                continue
            rest = False
        if skip:
            skip -= 1
            continue
        if _DIAGNOSTIC.match(line):
            found.append(line)
            if next((k for k in reversed(kept) if k.strip()), "") == "}":
                # After the IR (its closing brace): the diagnostic's lines go on to the next
                # banner (a message of several lines and paragraphs, as iree-compile warns).
                rest = True
            elif index + 2 < len(lines) and re.fullmatch(r"\s*\^[~^]*\s*", lines[index + 2]):
                # MLIR follows a diagnostic with the source line and a caret under the column.
                skip = 2
            continue
        kept.append(line)
    return "\n".join(kept), [diagnostic.rstrip() for diagnostic in found]


def _wrap(op: Op) -> Op:
    """``op`` in a module of its own: a dump whose first IR is one function."""
    module = Op("builtin.module", parts=["module ", RegionMark(0)])
    region = Region(op=module)
    block = Block(None, region=region)
    region.blocks.append(block)
    module.regions.append(region)
    op.parent = block
    block.ops.append(op)
    return module


def _find(top: Op, name: str, symbol: str | None, printed: Op | None = None) -> Op | None:
    """The op an op-scoped dump printed: the op of that name and symbol in ``top``; of several
    (each executable's ``hal.executable.variant @embedded_elf_x86_64``, initializers, which have
    no symbol), the one most like ``printed``, if one is."""
    named = [op for op in top.walk() if op.name == name and op is not top]
    if symbol is not None:
        named = [op for op in named if op.symbol() == symbol]
    if len(named) == 1:
        return named[0]
    if not named or printed is None:
        return None
    wanted = _contents(printed)
    scores = sorted(
        ((sum((_contents(op) & wanted).values()), index) for index, op in enumerate(named)), reverse=True
    )
    if scores[0][0] == 0 or scores[0][0] == scores[1][0]:
        return None
    return named[scores[0][1]]


def _contents(op: Op) -> Counter[tuple[str, str | None]]:
    """The ops nested in ``op``, by name and the symbol each names first."""
    return Counter((nested.name, nested.symbol()) for nested in op.walk())


def _respell(new: Op, old: Op) -> None:
    """Name ``new``, printed on its own, as ``old`` was named in the module it replaces it in:
    MLIR prints a nested module ``builtin.module`` (a variant's region holds ``hal`` ops by
    default) and the same module printed on its own ``module``."""
    first, was = new.parts[0] if new.parts else None, old.parts[0] if old.parts else None
    if new.name != old.name or not isinstance(first, str) or not isinstance(was, str):
        return
    spelled, spelled_was = spelled_name(first), spelled_name(was)
    if spelled and spelled_was and spelled != spelled_was:
        new.parts[0] = spelled_was + first[len(spelled) :]


def _children(module: Op) -> Counter[tuple[str, str | None]]:
    """The ops directly in ``module``, by name and the symbol each names first."""
    return Counter((op.name, op.symbol()) for region in module.regions for b in region.blocks for op in b.ops)


def _likeness(
    ops: Counter[tuple[str, str | None]], wanted: Counter[tuple[str, str | None]]
) -> tuple[int, int]:
    """How alike two modules' ops are: how many are the same by name and symbol, then by name."""
    names = Counter[str]()
    wanted_names = Counter[str]()
    for (name, _), count in ops.items():
        names[name] += count
    for (name, _), count in wanted.items():
        wanted_names[name] += count
    return sum((ops & wanted).values()), sum((names & wanted_names).values())


class _Importer:
    def __init__(self) -> None:
        self.ids = Ids()
        self.top: Op | None = None
        self.flat: Flat | None = None
        self.initial: InitialState | None = None
        self.steps: list[Step] = []
        self.stats: list[MatchStats] = []
        self.notes: list[str] = []
        self.kinds: dict[str, str] = {}
        self.passes: list[str] = []
        """Each step's pass, as its banner names it (with options)."""

    def start(self, snapshot: Snapshot) -> None:
        top = snapshot.top if snapshot.top.name == "builtin.module" else _wrap(snapshot.top)
        self._aliases(snapshot)
        self.ids.fresh(top)
        self.top = top
        self.flat = flatten(top)
        self.initial = InitialState(root=top.id, delta=diff(None, self.flat))

    def _aliases(self, snapshot: Snapshot) -> None:
        for name, definition in snapshot.aliases.items():
            base = name[1:].rstrip("0123456789")
            found = re.match(r"#?[A-Za-z_][\w.]*<", definition)
            if name.startswith("#") and base and found and definition.endswith(">"):
                self.kinds.setdefault(found.group(0), base)

    def step(self, banner: Banner, snapshot: Snapshot, diagnostics: list[str]) -> None:
        assert self.top is not None
        self._aliases(snapshot)
        new = snapshot.top
        old = self._printed(new)
        whole = old is self.top
        if whole:
            stats = match(self.top, new, self.ids)
            self.top = new
        else:
            if old is None or old.parent is None:
                self.notes.append(
                    f"{banner.label}: the {new.name} {new.symbol() or ''} it printed is not in the module; "
                    "its dump was left out"
                )
                return
            stats = match(old, new, self.ids)
            _respell(new, old)
            block = old.parent
            new.parent = block
            block.ops[block.ops.index(old)] = new
        if whole or old is None or self.flat is None:
            flat = flatten(self.top, reuse=(self.flat, self.ids.computing) if self.flat is not None else None)
            delta = diff(self.flat, flat)
        else:
            flat, delta = splice(self.flat, old, new)
        self.flat = flat
        if old is not None:
            unlink(old)
        self._append(banner, delta, stats, diagnostics)

    def step_in_place(self, banner: Banner, read: InPlace, diagnostics: list[str]) -> bool:
        """A step whose snapshot is the one before with a few ops replaced (``read_in_place``),
        as ``step`` would make it; False (nothing done) where ``match_in_place`` cannot say how
        ``match`` would match it."""
        assert self.top is not None and self.flat is not None
        stats = match_in_place(self.top, read.pairs, self.ids, len(self.flat.ops))
        if stats is None:
            return False
        for old, new in read.pairs:
            for region in new.regions:
                region.op = new
            if old is self.top:
                self.top = new
                continue
            assert old.parent is not None
            ops = old.parent.ops
            ops[ops.index(old)] = new
        if read.pairs[0][1].regions:  # (a line starting an op with regions is read in place alone)
            self.flat, delta = restate(self.flat, read.pairs[0][1])
        else:
            self.flat, delta = splice_all(self.flat, read.pairs)
        self._aliases(read.snapshot)
        self._append(banner, delta, stats, diagnostics)
        return True

    def _printed(self, new: Op) -> Op | None:
        """The op of the module that the snapshot ``new`` printed: the module itself, or the op
        an op-scoped dump printed, a module nested in it too (as IREE prints the module inside
        each executable's variant while it translates that variant)."""
        assert self.top is not None
        if new.name != "builtin.module":
            return _find(self.top, new.name, new.symbol(), new)
        wanted = _children(new)
        if _children(self.top) == wanted:
            return self.top  # (the module's ops by name and symbol, as they were: no need to look further)
        nested = [op for op in self.top.walk() if op.name == "builtin.module" and op is not self.top]
        if not nested:
            return self.top
        scores = [(_likeness(_children(op), wanted), op) for op in [self.top, *nested]]
        best = max(score for score, _ in scores)
        winners = [op for score, op in scores if score == best]
        if self.top in winners:
            return self.top
        return winners[0] if len(winners) == 1 else None

    def unchanged(self, banner: Banner) -> None:
        """A pass whose output prints as its input did, letter for letter: a step that changes
        nothing, without reading the snapshot again (most passes of a compile change nothing)."""
        assert self.flat is not None
        self._append(banner, Delta(), MatchStats(matched=len(self.flat.ops)), [])

    def _append(self, banner: Banner, delta: Delta, stats: MatchStats, diagnostics: list[str]) -> None:
        assert self.top is not None
        root = None
        if banner.scope_op is not None and banner.scope_op != "builtin.module":
            scoped = _find(self.top, banner.scope_op, banner.scope_symbol)
            root = scoped.id if scoped is not None else None
        flag = None
        if banner.failed:
            flag = Flag(kind="exception", message=f"{banner.name} failed")
            if diagnostics:
                flag["detail"] = "\n".join(diagnostics)
        index = len(self.steps)
        self.passes.append(banner.argument)
        self.steps.append(
            Step(
                index=index,
                kind="pass-end",
                # Where the dump marks a compile's stages, steps group by stage (the timeline's groups).
                pass_name=banner.stage or banner.argument,
                pass_index=index,
                name=banner.label,
                root=root,
                delta=delta,
                flag=flag,
            )
        )
        self.stats.append(stats)


class DumpImport:
    """An IR dump read as it is written: ``feed`` it the text as it comes, in pieces of any size;
    each snapshot is read and matched as soon as the next banner shows it whole; ``finish`` reads
    the last and gives the report, the same as ``import_text`` of the whole text."""

    def __init__(self, *, input_ir: str | None = None) -> None:
        self.importer = _Importer()
        self.lines = LineCache()
        self.input_ir = input_ir
        self.preamble = False
        """Whether the text before the first banner has been read."""
        self.started = False
        """Whether a banner has been read (and ``input_ir`` before it)."""
        self.held: list[str] = []
        """Text not read yet: from the last banner on (the section it opens may go on)."""
        self.edge = ""
        """The last characters held, where a banner's mark may have begun."""
        self.banners = 0
        self.stage: str | None = None
        self.skipped: list[str] = []
        self.pending: Banner | None = None
        self.diagnostics: list[str] = []
        self.printing: set[str] = set()
        self.first_after: str | None = None
        self.previous: tuple[str, str | None, str | None] | None = None
        self.last: Snapshot | None = None
        """The snapshot read last, where it is the whole module the import holds now."""

    def feed(self, text: str, *, at_banner: bool = False) -> None:
        """Take the next piece of the dump; read each section it completes (all of them where
        ``at_banner``: a banner begins right after the piece)."""
        if at_banner:
            held = "".join([*self.held, text])
            self.held, self.edge = [], ""
            if held:
                self._sections(held, last=False)
            return
        if _MARK not in self.edge + text:
            self.held.append(text)
            self.edge = (self.edge + text)[-len(_MARK) :]
            return
        held = "".join([*self.held, text])
        cut = held.rfind(_MARK)
        self.held, self.edge = [held[cut:]], held[-len(_MARK) :]
        if cut > 0:
            self._sections(held[:cut], last=False)

    def finish(self, name: str = "<dump>") -> ImportReport:
        """Read what is left (the last section goes to the end of the text) and give the report."""
        held = "".join(self.held)
        self.held, self.edge = [], ""
        self._sections(held, last=True)
        if not self.banners:
            raise ReadError("no IR dump banner (// -----// IR Dump ... //----- //) in the text")
        report = self._report(name)
        if self.importer.top is not None:
            unlink(self.importer.top)  # (the trace has it all: the last snapshot is not wanted)
            self.importer.top = self.last = None
        return report

    def _sections(self, text: str, *, last: bool) -> None:
        """Read the sections of ``text``, which ends where a banner begins (or, ``last``, where the
        dump ends): each banner on a line of its own, as ``split_dump`` cuts them."""
        if not self.preamble:
            self.preamble = True
            first = text.find(_MARK)
            # Diagnostics before the first banner (this text ends where one begins, unless it is
            # the last): the first step carries them.
            self.diagnostics = _diagnostics(text[: first if first >= 0 else 0 if last else len(text)])[1]
        text = _own_lines(text)
        if not last and text and not text.endswith("\n"):
            # A banner begins right after: on a line of its own (``_own_lines`` of the whole).
            text += "\n"
        matches = _banners(text)
        if matches and not self.started:
            self.started = True
            if self.input_ir is not None:
                self.importer.start(read_ir(self.input_ir, self.lines))
        self.banners += len(matches)
        for stage, banner in _cut(text, matches, self.stage, self.skipped):
            self.stage = stage
            if banner is not None:
                self._banner(banner)

    def _banner(self, banner: Banner) -> None:
        """One pass's section: its snapshot read and matched, or a step that changes nothing where
        it prints what the one before printed. Diagnostics after a snapshot were printed while the
        next pass ran: its step carries them."""
        importer = self.importer
        body, found = _diagnostics(banner.text)
        self.printing.add(banner.when)
        printed = (body, banner.scope_op, banner.scope_symbol)
        # The same text under another scope is the same IR where that text is the whole module
        # (Triton 3.9 prints the module for a pass on one of its functions).
        whole = self.last is not None and self.last.top is importer.top
        same = (
            (printed == self.previous or (whole and self.previous is not None and body == self.previous[0]))
            and not found
            and not banner.failed
            and importer.top is not None
        )
        if same and banner.when == "after":
            importer.unchanged(banner)
            self.diagnostics = found
            return
        if same and self.pending is not None and not self.pending.failed:
            importer.unchanged(self.pending)
            self.pending = banner
            self.diagnostics = found
            return
        target = banner if banner.when == "after" else self.pending
        last = self.last
        if (
            target is not None
            and whole
            and last is not None
            and banner.scope_op in _MODULE
            and self.previous is not None
            and changed_lines(self.previous[0], body)
        ):
            # Many passes change an op or two (most none: above): read only those lines. (The
            # printed texts compared first: aliases are written out only where few lines differ.)
            read = read_in_place(last, body, self.lines)
            if read is not None and importer.step_in_place(target, read, self.diagnostics):
                self.previous, self.last = printed, read.snapshot
                self.pending = None if banner.when == "after" else banner
                self.diagnostics = found
                return
        try:
            snapshot = read_ir(body, self.lines)
        except ReadError as exc:
            importer.notes.append(f"{banner.label}: its IR does not read ({exc}); left out")
            return
        self.previous = printed
        if importer.top is None:
            importer.start(snapshot)
            if banner.when == "after":
                self.first_after = banner.label
            self.pending = banner if banner.when == "before" else None
            self.diagnostics = found
            self.last = snapshot if snapshot.top.name == "builtin.module" else None
            return
        if banner.when == "after":
            importer.step(banner, snapshot, self.diagnostics)
            self.pending = None
        elif self.pending is not None:
            importer.step(self.pending, snapshot, self.diagnostics)
            self.pending = banner
        else:
            self.pending = banner
        self.diagnostics = found
        self.last = snapshot if snapshot.top is importer.top else None

    def _report(self, name: str) -> ImportReport:
        importer = self.importer
        if self.first_after is not None:
            importer.notes.append(
                f"the IR before the first pass ({self.first_after}) is not in the dump: the trace starts "
                "after it (give the input IR to start before it)"
            )
        if self.pending is not None and "after" not in self.printing:
            importer.notes.append(
                f"the IR after the last pass ({self.pending.label}) is not in the dump: a dump printed "
                "before each pass (as MLIR_ENABLE_DUMP prints) ends at the last pass's input"
            )
        if self.skipped:
            importer.notes.append(
                f"{len(self.skipped)} dumps that are no pass's were left out ({self.skipped[0]}, ...)"
            )
        if importer.initial is None:
            raise ReadError("the dump holds no IR that reads")
        info = ImportInfo(dump=name, printing="+".join(sorted(self.printing)))
        if importer.notes:
            info["notes"] = importer.notes
        meta = TraceMeta(
            input=name,
            pipeline=",".join(importer.passes),
            passviz_version=__version__,
            xdsl_version=_xdsl_version(),
            verify_each="off",
            imported=info,
        )
        if importer.kinds:
            meta["aliases"] = importer.kinds
        failed = any(step.flag is not None for step in importer.steps)
        trace = Trace(
            meta=meta, initial=importer.initial, steps=importer.steps, status="failed" if failed else "ok"
        )
        return ImportReport(trace, importer.stats)


def import_text(text: str, *, name: str = "<dump>", input_ir: str | None = None) -> ImportReport:
    """The trace of the IR-printing output ``text``; ``input_ir``: the IR before the first pass,
    for a dump printed after each pass (which does not hold it)."""
    # (Reading a dump allocates millions of objects, most of which live a while: a snapshot's ops,
    # until the next is matched. The import takes each snapshot apart once done with it, so it
    # needs no collection; what it made, the trace, lives on.)
    with collector_paused(promote=True):
        stream = DumpImport(input_ir=input_ir)
        stream.feed(text)
        return stream.finish(name)


def import_path(path: str | Path, *, input_ir: str | None = None) -> ImportReport:
    """The trace of a dump file, or of an ``--mlir-print-ir-tree-dir`` folder."""
    source = Path(path)
    text = read_tree_dir(source) if source.is_dir() else source.read_text(encoding="utf-8")
    return import_text(text, name=str(path), input_ir=input_ir)


def _xdsl_version() -> str:
    try:
        return version("xdsl")
    except PackageNotFoundError:
        return ""
