"""Every use passviz makes of xDSL's private API, named and explained, in one module.

xDSL is pinned (``pyproject.toml``), and what it keeps private (names that begin with ``_``)
may change in any release without notice.  passviz uses it in three ways, all of them here:

1. **Reads and calls** of private attributes and methods: one function each below, whose
   docstring says what it touches and why passviz needs it.  The rest of passviz calls these
   functions and never names a private xDSL attribute itself.
2. **Overrides** of private methods and class attributes, by passviz's subclasses of xDSL
   classes (the parser, the affine parser, the lexer, CSE, the interpreter): ``OVERRIDES``.
   The overriding code stays with the behaviour it belongs to; ``OVERRIDES`` names each one,
   says why, and gives the parameters xDSL's method has, so that a rename or a new signature
   (after which the override would silently no longer be called) fails a test.
3. **Monkeypatches** of xDSL's classes (the rewrite hooks, the ``%_0`` name fix): ``PATCHES``
   lists every attribute passviz replaces, and ``patch`` is the only way passviz replaces one.

``tests/test_xdsl_compat.py`` exercises every function, override and patch against the
installed xDSL, so an xDSL upgrade that breaks one fails there, in one place;
``tests/test_layers.py`` fails if any other module of passviz names a private xDSL name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from xdsl.dialects import arith, scf
from xdsl.interpreter import Interpreter, InterpreterFunctions, OpImpl
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.core import IRWithName
from xdsl.parser import AffineParser, AttrParser, BaseParser, Parser, ParserState
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, PatternRewriteWalker
from xdsl.printer import Printer
from xdsl.rewriter import Rewriter
from xdsl.transforms.common_subexpression_elimination import CSEDriver, KnownOps
from xdsl.utils.base_printer import BasePrinter
from xdsl.utils.lexer import Position
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind

# -- 1. reads and calls ------------------------------------------------------------------
# The parser

TensorLiteralElement = AttrParser._TensorLiteralElement  # pyright: ignore[reportPrivateUsage]
"""``AttrParser._TensorLiteralElement``: the class of one element of a ``dense<...>`` literal
while it is parsed, before the literal's type is known.  passviz subclasses it to read a hex
element under a float type as the float's bit pattern, as MLIR does (``dense<0xFF800000>`` is
``-inf``); see the ``_TensorLiteralElement`` entry of ``OVERRIDES``."""


def current_token(parser: BaseParser) -> MLIRToken:
    """``GenericParser._current_token``: the token the parser is at, not consumed.

    xDSL exposes only its start (``parser.pos``); passviz needs its kind and text to decide
    before parsing (a fast path for simple types, numbers and locations; Triton 3.9's
    ``!tt.tensordesc<...>`` syntax), its span to locate errors, and its kind to tell whether
    a parse read all of its input (``EOF``)."""
    return parser._current_token  # pyright: ignore[reportPrivateUsage]


def consume_token(parser: BaseParser, kind: MLIRTokenKind) -> MLIRToken:
    """``GenericParser._consume_token``: step over the current token, known to be of ``kind``.

    passviz's parser reads a location alias defined later in the file (``loc(#loc3)``) as a
    placeholder, consuming the alias token without looking it up; no public method consumes
    a token without parsing or checking it."""
    return parser._consume_token(kind)  # pyright: ignore[reportPrivateUsage]


def resume_from(parser: BaseParser, pos: Position) -> None:
    """``GenericParser._resume_from``: move the parser to ``pos`` and lex the token there.

    passviz reads some texts with a regular expression instead of token by token (a location
    ``loc("file":1:2)``, a type read before), then skips the parser past them; xDSL has no
    public way to move the parser."""
    parser._resume_from(pos)  # pyright: ignore[reportPrivateUsage]


def parser_state(parser: BaseParser) -> ParserState[MLIRTokenKind]:
    """``GenericParser._parser_state``: the lexer and current token a parser reads from.

    xDSL's own parser hands its state to the ``AffineParser`` it reads affine maps with;
    passviz does the same to read them with its bounded affine parser
    (``passviz.ir.affine_text.BoundedAffineParser``), which continues where the parser is."""
    return parser._parser_state  # pyright: ignore[reportPrivateUsage]


def use_lexer(parser: BaseParser, lexer: MLIRLexer) -> None:
    """``GenericParser._parser_state``, replaced: the parser reads from ``lexer`` from its start.

    ``Parser.__init__`` builds its own ``MLIRLexer`` and lexes the first token at once; passviz
    builds the parser on empty input, then swaps in its bounded lexer
    (``passviz.ir.literals.BoundedLexer``) before any token of the real input is read."""
    parser._parser_state = ParserState(lexer)  # pyright: ignore[reportPrivateUsage]


def parse_tensor_literal_element(parser: AttrParser) -> TensorLiteralElement:
    """``AttrParser._parse_tensor_literal_element``: one element of a ``dense<...>`` literal
    (a ``TensorLiteralElement``), before its type is known.

    passviz parses a splat ``dense<1.0> : tensor<128x64xf32>`` itself, packing its one element
    once, and needs xDSL's reading of the element (signs, booleans, complex numbers, hex)."""
    return parser._parse_tensor_literal_element()  # pyright: ignore[reportPrivateUsage]


# The printer


def value_names(printer: Printer) -> dict[SSAValue, str]:
    """``Printer._ssa_values``: the name the printer gives each SSA value it has printed.

    The table is returned itself, not a copy: passviz writes into it before printing, so that
    an op printed on its own shows its values under their trace ids (``%v3``), not under
    names the printer would number anew."""
    return printer._ssa_values  # pyright: ignore[reportPrivateUsage]


def block_names(printer: Printer) -> dict[Block, str]:
    """``Printer._blocks``: the name the printer gives each block (``^bb0``), itself.

    passviz writes into it, as into ``value_names``, so that an op printed on its own shows
    its successors under their trace ids."""
    return printer._blocks  # pyright: ignore[reportPrivateUsage]


def print_new_line(printer: BasePrinter) -> None:
    """``BasePrinter._print_new_line``: end the line and indent the next one.

    Some ops' custom syntax breaks its line before a region, a body or a list of dispatch
    arguments (``linalg.reduce``, ``flow.dispatch.workgroups``), as MLIR prints them;
    xDSL's printer breaks lines publicly only inside regions."""
    printer._print_new_line()  # pyright: ignore[reportPrivateUsage]


def indent_level(printer: BasePrinter) -> int:
    """``BasePrinter._indent``: how many levels the printer indents a new line.

    A region the op's syntax prints on a line of its own (``linalg.map``'s body) is indented one
    level more than the op where the syntax says so (``printer.indented()``) and not where it
    writes the spaces itself (``flow.dispatch.workgroups``): the region placeholder records which
    (``passviz.ir.placeholder``'s ``-iN``)."""
    return printer._indent  # pyright: ignore[reportPrivateUsage]


# IR objects


def op_links(
    op: Operation,
) -> tuple[Operation | None, Operation | None, tuple[SSAValue, ...], tuple[Block, ...]]:
    """``Operation._prev_op``, ``_next_op``, ``_operands`` and ``_successors``: what places
    ``op`` in its block and wires it to values and blocks, as xDSL stores it.

    The recorder compares every op's links after each rewrite to find the ops it changed
    (``passviz.recording.shadow``); the public ``op.operands`` and ``op.successors`` build a
    new view object at each access and compare element by element, the stored tuples compare
    at once.  The tuples are xDSL's own, to be read, never changed."""
    return op._prev_op, op._next_op, op._operands, op._successors  # pyright: ignore[reportPrivateUsage]


# Dialects


def check_comparison_operands(lhs: SSAValue, rhs: SSAValue) -> None:
    """``arith.ComparisonOperation._validate_operand_types``: raise ``TypeError`` unless the
    two operands of ``arith.cmpi``/``arith.cmpf`` have one type.

    passviz's ``arith.cmpi`` and ``arith.cmpf`` take tensors and vectors as MLIR's do, and
    check their operands in their constructors with xDSL's check, as xDSL's ops do."""
    arith.ComparisonOperation._validate_operand_types(lhs, rhs)  # pyright: ignore[reportPrivateUsage]


def comparison_predicate(mnemonic: str, predicates: dict[str, int]) -> int:
    """``arith.ComparisonOperation._get_comparison_predicate``: the number of the predicate
    ``mnemonic`` (``"slt"``) in ``predicates``, or xDSL's ``VerifyException`` if it has none.

    passviz's ``arith.cmpi`` and ``arith.cmpf`` constructors take a mnemonic, as xDSL's do,
    and fail on an unknown one as xDSL's do."""
    return arith.ComparisonOperation._get_comparison_predicate(  # pyright: ignore[reportPrivateUsage]
        mnemonic, predicates
    )


def print_while_pair(printer: Printer, pair: tuple[SSAValue, SSAValue]) -> None:
    """``scf.WhileOp._print_pair``: one ``%arg = %init`` of an ``scf.while``'s header.

    passviz's ``scf.while`` prints the header list as xDSL does, but leaves it out when it is
    empty, as MLIR does."""
    scf.WhileOp._print_pair(printer, pair)  # pyright: ignore[reportPrivateUsage]


# Common subexpression elimination


def set_cse_rewriter(driver: CSEDriver, rewriter: Rewriter | PatternRewriter) -> None:
    """``CSEDriver._rewriter``, set: the rewriter the driver erases ops with.

    passviz's ``cse`` hands xDSL's driver the recorder's rewriter, so that each erasure is
    observed; the driver's constructor takes it only as its private field ``_rewriter``."""
    driver._rewriter = rewriter  # pyright: ignore[reportPrivateUsage]


def cse_rewriter(driver: CSEDriver) -> Rewriter | PatternRewriter:
    """``CSEDriver._rewriter``: the rewriter the driver erases ops with (``set_cse_rewriter``).

    passviz's ``cse`` replaces uses through it, one recorded step per replacement."""
    return driver._rewriter  # pyright: ignore[reportPrivateUsage]


def cse_known_ops(driver: CSEDriver) -> KnownOps:
    """``CSEDriver._known_ops``: the ops the driver has seen in the scope it is in.

    passviz's ``cse`` walks a region of several blocks by dominance, as MLIR does (xDSL's
    driver skips such regions), and keeps one scope per dominator-tree node: it reads and
    replaces (``set_cse_known_ops``) the driver's scope as it goes down and up the tree."""
    return driver._known_ops  # pyright: ignore[reportPrivateUsage]


def set_cse_known_ops(driver: CSEDriver, known: KnownOps) -> None:
    """``CSEDriver._known_ops``, replaced: the scope the driver looks ops up in (``cse_known_ops``)."""
    driver._known_ops = known  # pyright: ignore[reportPrivateUsage]


def cse_simplify_block(driver: CSEDriver, block: Block) -> None:
    """``CSEDriver._simplify_block``: eliminate the common subexpressions of ``block``'s ops
    within the driver's current scope.

    passviz's ``cse`` calls it on each block of a region of several blocks, in dominance
    order, each in the scope of the blocks that dominate it."""
    driver._simplify_block(block)  # pyright: ignore[reportPrivateUsage]


# The interpreter


def implementations(
    functions: InterpreterFunctions,
) -> Iterable[tuple[type[Operation], OpImpl[InterpreterFunctions, Operation]]]:
    """``InterpreterFunctions._impls``: each op type an interpreter table implements, with its
    implementation, as ``@register_impls`` collected them.

    passviz's interpreter looks implementations up by op name (so that a family's own
    ``arith.addi`` class runs as upstream's does) and lets a later table win over an earlier
    one; xDSL's interpreter looks them up by op class and refuses a second one."""
    return functions._impls()  # pyright: ignore[reportPrivateUsage]


# -- 2. overrides ------------------------------------------------------------------------


@dataclass(frozen=True)
class PrivateOverride:
    """A private method or class attribute of an xDSL class that a passviz subclass overrides."""

    base: type
    """The xDSL class whose private member is overridden."""

    name: str
    """The member's name."""

    parameters: tuple[str, ...] | None
    """The method's parameters, ``self`` included, as xDSL's method has them; ``None`` for a
    class attribute."""

    by: str
    """The overriding class, as ``module.Class``."""

    why: str
    """What passviz changes by overriding it."""


OVERRIDES: tuple[PrivateOverride, ...] = (
    PrivateOverride(
        AttrParser,
        "_TensorLiteralElement",
        None,
        "passviz.ir.mlir_parser.MLIRParser",
        "the class xDSL makes each dense literal element with: a hex element under a float type "
        "is its bit pattern, as in MLIR (xDSL reads it as an integer turned into a float)",
    ),
    PrivateOverride(
        AttrParser,
        "_parse_dense_literal_type",
        ("self",),
        "passviz.ir.mlir_parser.MLIRParser",
        "a dense literal's type: its element count is bounded before any element is read, and "
        "its constraint is built once (xDSL builds it per literal)",
    ),
    PrivateOverride(
        AttrParser,
        "_parse_dialect_resource_handle",
        ("self", "dialect_name", "interface"),
        "passviz.ir.mlir_parser.MLIRParser",
        "a resource handle is declared once per parse, so that every use names one resource, "
        "as in MLIR (xDSL declares a renamed handle again at each use)",
    ),
    PrivateOverride(
        AttrParser,
        "_parse_location",
        ("self",),
        "passviz.ir.mlir_parser.MLIRParser",
        "a location alias used before its definition (Triton's TTIR) stands for a placeholder "
        "resolved after the module is read",
    ),
    PrivateOverride(
        Parser,
        "_get_op_by_name",
        ("self", "name"),
        "passviz.ir.mlir_parser.MLIRParser",
        "an unknown op name is blamed at the name, as MLIR blames it (xDSL blames the token after "
        "it), and an integer type in its place is refused as MLIR refuses it",
    ),
    PrivateOverride(
        AttrParser,
        "_parse_optional_integer_or_float_type",
        ("self",),
        "passviz.ir.mlir_parser.MLIRParser",
        "integer types wider than passviz reads (hostile input) are refused where they are written",
    ),
    PrivateOverride(
        AffineParser,
        "_parse_primary",
        ("self", "parse_optional_bare_id"),
        "passviz.ir.affine_text.BoundedAffineParser",
        "each operand, group and negation of an affine map counts against its term bound",
    ),
    PrivateOverride(
        AffineParser,
        "_create_binop_expr",
        ("self", "lhs", "rhs", "binop"),
        "passviz.ir.affine_text.BoundedAffineParser",
        "a mod's dividend, which xDSL's simplifier copies, counts against the term bound again",
    ),
    PrivateOverride(
        MLIRLexer,
        "_unescaped_characters_regex",
        None,
        "passviz.ir.string_lexer.LinearStringLexer",
        "string literals are matched in linear time (xDSL's expression takes exponential time "
        "on an unclosed literal)",
    ),
    PrivateOverride(
        CSEDriver,
        "_mark_erasure",
        ("self", "op"),
        "passviz.compilers.mlir.passes.cse._RecordedCSEDriver",
        "ops are erased in the order they were found, as MLIR erases them (xDSL keeps a set)",
    ),
    PrivateOverride(
        CSEDriver,
        "_replace_and_delete",
        ("self", "op", "existing"),
        "passviz.compilers.mlir.passes.cse._RecordedCSEDriver",
        "each replacement is one recorded step, made through the recorder's rewriter",
    ),
    PrivateOverride(
        CSEDriver,
        "_simplify_region",
        ("self", "region"),
        "passviz.compilers.mlir.passes.cse._RecordedCSEDriver",
        "a region of several blocks is walked by dominance, as MLIR does (xDSL skips it)",
    ),
    PrivateOverride(
        CSEDriver,
        "_commit_erasures",
        ("self",),
        "passviz.compilers.mlir.passes.cse._RecordedCSEDriver",
        "the dead ops are erased in one recorded step, in the order they were found",
    ),
    PrivateOverride(
        Interpreter,
        "_run_op",
        ("self", "op", "inputs"),
        "passviz.interpret.core.KernelInterpreter",
        "each op runs under the run's limits (--max-ops, --timeout), is looked up by name, and "
        "its own failure is located at it",
    ),
)
"""Every private member of an xDSL class that passviz overrides.  A passviz subclass overriding
one not listed fails ``tests/test_xdsl_compat.py``, and so does an entry whose member xDSL no
longer has, or has with other parameters."""


# -- 3. monkeypatches --------------------------------------------------------------------

REWRITER_EDITS = (
    "erase_op",
    "replace_op",
    "replace_value_with_new_type",
    "inline_block",
    "insert_block",
    "insert_op",
    "move_region_contents_to_new_regions",
    "inline_region",
)
"""``Rewriter``'s static methods that edit IR (the rewrite hooks patch each)."""

XDSL_REWRITER_MODULES = frozenset(("xdsl.rewriter", "xdsl.builder", "xdsl.pattern_rewriter"))
"""The xDSL modules whose calls to ``Rewriter``'s static methods are part of an edit that a
rewriter or builder announces to its listeners afterwards: where ``Rewriter``, ``Builder`` and
``PatternRewriter`` live.  The rewrite hooks tell such calls from a pass's own by the module of
the caller's frame."""


@dataclass(frozen=True)
class Patch:
    """An attribute of an xDSL class that passviz replaces at run time."""

    owner: type
    """The xDSL class."""

    name: str
    """The attribute replaced."""

    kind: Literal["function", "staticmethod", "classmethod"]
    """What xDSL's attribute is, in the class's ``__dict__``."""

    parameters: tuple[str, ...]
    """The parameters of xDSL's function (``self`` or ``cls`` included), which the
    replacement takes too."""

    by: str
    """The passviz module that patches it."""

    why: str
    """Why passviz replaces it."""


_HOOKS = "passviz.ir.rewrite_hooks"
_HOOKS_WHY = (
    "xDSL has no global rewrite observer: while a recording runs, every rewrite a plain xDSL "
    "pass makes is reported to the recorder (MLIR's RewriterBase::Listener on every rewriter)"
)

_REWRITER_PARAMETERS: dict[str, tuple[str, ...]] = {
    "erase_op": ("op", "safe_erase"),
    "replace_op": ("op", "new_ops", "new_results", "safe_erase"),
    "replace_value_with_new_type": ("val", "new_type"),
    "inline_block": ("source", "insertion_point", "arg_values"),
    "insert_block": ("block", "insert_point"),
    "insert_op": ("op_or_ops", "insertion_point"),
    "move_region_contents_to_new_regions": ("region",),
    "inline_region": ("region", "insertion_point"),
}

PATCHES: tuple[Patch, ...] = (
    Patch(PatternRewriteWalker, "rewrite_region", "function", ("self", "region"), _HOOKS, _HOOKS_WHY),
    Patch(
        GreedyRewritePatternApplier,
        "match_and_rewrite",
        "function",
        ("self", "op", "rewriter"),
        _HOOKS,
        _HOOKS_WHY,
    ),
    Patch(PatternRewriter, "__init__", "function", ("self", "insert_point"), _HOOKS, _HOOKS_WHY),
    *(
        Patch(Rewriter, name, "staticmethod", _REWRITER_PARAMETERS[name], _HOOKS, _HOOKS_WHY)
        for name in REWRITER_EDITS
    ),
    Patch(
        IRWithName,
        "extract_valid_name",
        "classmethod",
        ("cls", "name"),
        "passviz.ir.names",
        "a name that is only a _N suffix (Triton's %_0) is kept whole; xDSL keeps it as '', "
        "which it then refuses as a name",
    ),
)
"""Every attribute of an xDSL class that passviz replaces at run time (through ``patch``)."""

ORIGINALS: dict[tuple[type, str], Any] = {(p.owner, p.name): p.owner.__dict__[p.name] for p in PATCHES}
"""xDSL's own attribute for each patch, as it was when this module was first imported
(before any patch: patches are made through ``patch``, which imports this module)."""


def patch(owner: type, name: str, value: Any) -> Any:
    """Set ``owner.name`` to ``value``, returning what it replaces (to put back by patching again).

    This is the only place passviz replaces an attribute of an xDSL class; it refuses one
    ``PATCHES`` does not list."""
    if (owner, name) not in ORIGINALS:
        raise ValueError(f"{owner.__qualname__}.{name} is not in PATCHES (passviz.ir.xdsl_compat)")
    replaced = owner.__dict__[name]
    setattr(owner, name, value)
    return replaced


def original(owner: type, name: str) -> Any:
    """xDSL's own ``owner.name`` (as in the class's ``__dict__``), whatever patch is in place."""
    return ORIGINALS[(owner, name)]
