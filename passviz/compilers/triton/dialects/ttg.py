"""TritonGPU's ``ttg`` tensor encodings that TTIR tests carry: ``#ttg.blocked`` and ``#ttg.slice``.

TTIR itself has no layouts; Triton's tests of tt canonicalizations still write
tensors such as ``tensor<32x1xf32, #blocked>``, and the tt ops infer their
results' encodings through the ``ttg`` dialect (``LayoutEncoding``):

- a ``tt.reduce`` along ``axis`` gives ``#ttg.slice<{dim = axis, parent = E}>``;
- a ``tt.expand_dims`` at ``axis`` takes such a slice back to its parent.

Syntax and checks are Triton 3.6's (``TritonGPUAttrDefs.td`` and
``lib/Dialect/TritonGPU/IR/Dialect.cpp``): the keys of ``#ttg.blocked`` are
``sizePerThread``, ``threadsPerWarp``, ``warpsPerCTA``, ``order`` and, for
more than one CTA, ``CGALayout``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, Self, cast

from xdsl.dialects.builtin import I32, ArrayAttr, IntAttr, IntegerAttr, i32
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute
from xdsl.irdl import IRDLOperation, irdl_attr_definition, irdl_op_definition, prop_def
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from passviz.compilers.triton.dialects.tt import LayoutEncoding, LayoutInferenceError
from passviz.ir.printer import AliasedAttribute

IntList = ArrayAttr[IntAttr]


def _ints(values: Sequence[int]) -> IntList:
    return ArrayAttr(IntAttr(v) for v in values)


def _parse_ints(parser: AttrParser) -> IntList:
    values = parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False, allow_negative=False)
    )
    return _ints(values)


def _print_ints(printer: Printer, values: IntList) -> None:
    printer.print_string("[" + ", ".join(str(v.data) for v in values) + "]")


def _parse_keyed(parser: AttrParser, parsers: dict[str, Callable[[], Attribute]]) -> dict[str, Attribute]:
    """``<{key = value, ...}>`` with each key at most once, as Triton's attribute parsers read it."""
    found: dict[str, Attribute] = {}

    def parse_entry() -> None:
        position = parser.pos
        key = parser.parse_identifier()
        if key not in parsers:
            parser.raise_error(f"unexpected key: {key}", position, parser.pos)
        if key in found:
            parser.raise_error(f"duplicate key: {key}", position, parser.pos)
        parser.parse_punctuation("=")
        found[key] = parsers[key]()

    with parser.in_angle_brackets():
        parser.parse_comma_separated_list(parser.Delimiter.BRACES, parse_entry)
    return found


class _DistributedLayout(LayoutEncoding):
    """A layout that spreads a tensor's elements over threads: a reduction's
    result is the slice of it along the reduced axis."""

    @property
    def rank(self) -> int:
        """The rank of the tensors this layout describes."""
        raise NotImplementedError

    def reduce_encoding(self, axis: int) -> Attribute:
        return SliceEncodingAttr(axis, cast(Attribute, self))  # every layout is an attribute


@irdl_attr_definition
class BlockedEncodingAttr(ParametrizedAttribute, _DistributedLayout, AliasedAttribute):
    """How a tensor's elements are spread over threads, warps and CTAs.

    ``#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>``
    """

    name = "ttg.blocked"

    ASM_ALIAS = "blocked"

    size_per_thread: IntList
    """Contiguous elements each thread holds, per dimension."""

    threads_per_warp: IntList
    """Threads of a warp along each dimension."""

    warps_per_cta: IntList
    """Warps of a CTA along each dimension."""

    order: IntList
    """The dimensions from fastest to slowest varying."""

    cga_layout: ArrayAttr[IntList]
    """The CTA bases of a CGA (``CGALayout``); empty for one CTA."""

    KEYS: ClassVar[tuple[str, ...]] = ("sizePerThread", "threadsPerWarp", "warpsPerCTA", "order")
    """The keys of the syntax, in the order of the parameters above."""

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        parsers: dict[str, Callable[[], Attribute]] = {key: lambda: _parse_ints(parser) for key in cls.KEYS}
        parsers["CGALayout"] = lambda: ArrayAttr(
            parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: _parse_ints(parser))
        )
        found = _parse_keyed(parser, parsers)
        if missing := [key for key in cls.KEYS if key not in found]:
            parser.raise_error(f"#ttg.blocked needs {', '.join(missing)}", start, parser.pos)
        params = (*(found[key] for key in cls.KEYS), found.get("CGALayout", ArrayAttr(())))
        return _checked(parser, cls, params, start)

    def print_parameters(self, printer: Printer) -> None:
        values = (self.size_per_thread, self.threads_per_warp, self.warps_per_cta, self.order)
        printer.print_string("<{")
        for index, (key, value) in enumerate(zip(self.KEYS, values, strict=True)):
            printer.print_string(", " if index else "")
            printer.print_string(f"{key} = ")
            _print_ints(printer, value)
        if self.cga_layout.data:
            printer.print_string(", CGALayout = [")
            for index, basis in enumerate(self.cga_layout):
                printer.print_string(", " if index else "")
                _print_ints(printer, basis)
            printer.print_string("]")
        printer.print_string("}>")

    @property
    def rank(self) -> int:
        return len(self.order)

    def verify(self) -> None:
        lists = (self.size_per_thread, self.threads_per_warp, self.warps_per_cta)
        if any(len(values) != self.rank for values in lists):
            raise VerifyException(
                "sizePerThread, threadsPerWarp, warpsPerCTA and order must have the same rank"
            )
        if sorted(v.data for v in self.order) != list(range(self.rank)):
            raise VerifyException(
                f"order {[v.data for v in self.order]} is not a permutation of 0..{self.rank - 1}"
            )

    def expand_dims_encoding(self, axis: int) -> Attribute:
        raise LayoutInferenceError("ExpandDimsOp operand encoding must be SliceEncodingAttr")


@irdl_attr_definition
class SliceEncodingAttr(ParametrizedAttribute, _DistributedLayout):
    """The layout of a tensor with one dimension of its parent layout removed.

    ``#ttg.slice<{dim = 1, parent = #blocked}>``
    """

    name = "ttg.slice"

    dim: IntAttr
    """The parent's dimension that is removed."""

    parent: Attribute
    """The layout sliced."""

    def __init__(self, dim: int, parent: Attribute) -> None:
        super().__init__(IntAttr(dim), parent)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        found = _parse_keyed(
            parser,
            {
                "dim": lambda: IntAttr(parser.parse_integer(allow_boolean=False, allow_negative=False)),
                "parent": parser.parse_attribute,
            },
        )
        if "dim" not in found or "parent" not in found:
            parser.raise_error("#ttg.slice needs dim and parent", start, parser.pos)
        return _checked(parser, cls, (found["dim"], found["parent"]), start)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{{dim = {self.dim.data}, parent = ")
        printer.print_attribute(self.parent)
        printer.print_string("}>")

    @property
    def rank(self) -> int:
        return cast(_DistributedLayout, self.parent).rank - 1  # verify() checked the parent

    def verify(self) -> None:
        if not isinstance(self.parent, _DistributedLayout):
            raise VerifyException(f"the parent of #ttg.slice must be a distributed layout, not {self.parent}")
        if self.dim.data >= self.parent.rank:
            raise VerifyException(
                f"dim {self.dim.data} is out of range for a parent of rank {self.parent.rank}"
            )

    def expand_dims_encoding(self, axis: int) -> Attribute:
        if self.dim.data != axis:
            raise LayoutInferenceError("Incompatible slice dimension for ExpandDimsOp operand")
        return self.parent


def _checked(
    parser: AttrParser, cls: type[ParametrizedAttribute], params: Sequence[Attribute], start: int
) -> Sequence[Attribute]:
    """``params``, once the attribute they make verifies; else a parse error over its text."""
    try:
        cls.new(params)
    except VerifyException as exc:
        parser.raise_error(str(exc), start, parser.pos)
    return params


_ADDRESS_SPACES: tuple[tuple[str, int], ...] = (
    ("local", 0b00001),
    ("global_read", 0b00010),
    ("global_write", 0b00100),
    ("tensor_read", 0b01000),
    ("tensor_write", 0b10000),
)
"""``TTG_AddrSpace``'s bits (Triton 3.9), in the order Triton prints them."""

_ALL_ADDRESS_SPACES = 0b11111


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """``ttg.barrier local|global_read``: Triton 3.9's ``tl.debug_barrier`` (3.6 made a ``gpu.barrier``).

    Like Triton's, it declares no memory effects, so nothing erases or merges it.
    """

    name = "ttg.barrier"

    addr_space = prop_def(IntegerAttr[I32], prop_name="addrSpace")
    """The address spaces made visible, as ``TTG_AddrSpace``'s bitmask."""

    def __init__(self, addr_space: int) -> None:
        super().__init__(properties={"addrSpace": IntegerAttr(addr_space, i32)})

    def print(self, printer: Printer) -> None:
        mask = self.addr_space.value.data
        if mask == 0:
            words = ["none"]
        elif mask == _ALL_ADDRESS_SPACES:
            words = ["all"]
        else:
            words = [word for word, bit in _ADDRESS_SPACES if mask & bit]
        printer.print_string(" " + "|".join(words))
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        bits = {"none": 0, "all": _ALL_ADDRESS_SPACES, **dict(_ADDRESS_SPACES)}
        mask = 0
        while True:
            pos = parser.pos
            word = parser.parse_identifier()
            if word not in bits:
                parser.raise_error(f"{word} is not an address space ({', '.join(bits)})", pos, parser.pos)
            mask |= bits[word]
            if parser.parse_optional_punctuation("|") is None:
                break
        op = cls(mask)
        op.attributes |= parser.parse_optional_attr_dict()
        return op


TTG = Dialect("ttg", [BarrierOp], [BlockedEncodingAttr, SliceEncodingAttr])
"""The ``ttg`` encodings, and the one ``ttg`` op Triton 3.9's TTIR has (``ttg.barrier``)."""
