"""Every use passviz makes of xDSL's private API (``passviz.ir.xdsl_compat``) works on the xDSL installed.

Each function of the module is called here on plain xDSL objects, each override it lists is
checked against the xDSL class it overrides (the member is still there, with the parameters
passviz's override takes), each patch against the attribute it replaces.  An xDSL upgrade that
renames, removes or reshapes one of them fails here, in one place.  The last tests check that
the lists are complete: every passviz class that overrides a private xDSL member is listed, and
every public name of the module is exercised by this file.
"""

from __future__ import annotations

import ast
import enum
import importlib
import inspect
import io
import pkgutil
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, cf, func
from xdsl.dialects.builtin import Builtin, IntegerAttr, ModuleOp, i64
from xdsl.interpreters.arith import ArithFunctions
from xdsl.ir import Operation, SSAValue
from xdsl.ir.core import IRWithName
from xdsl.irdl import VarConstraint
from xdsl.parser import AffineParser, Parser
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.common_subexpression_elimination import CSEDriver, KnownOps
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

import passviz
from passviz.ir import xdsl_compat
from passviz.ir.names import keep_suffix_only_names
from passviz.ir.xdsl_compat import (
    ORIGINALS,
    OVERRIDES,
    PATCHES,
    REWRITER_EDITS,
    XDSL_REWRITER_MODULES,
    Patch,
    PrivateOverride,
    TensorLiteralElement,
    block_names,
    check_comparison_operands,
    comparison_predicate,
    consume_token,
    cse_known_ops,
    cse_rewriter,
    cse_simplify_block,
    current_token,
    implementations,
    indent_level,
    op_links,
    original,
    parse_tensor_literal_element,
    parser_state,
    patch,
    print_new_line,
    print_while_pair,
    resume_from,
    set_cse_known_ops,
    set_cse_rewriter,
    use_lexer,
    value_names,
)


def _context() -> Context:
    ctx = Context()
    for dialect in (Builtin, arith.Arith, cf.Cf, func.Func):
        ctx.load_dialect(dialect)
    return ctx


def _module(text: str) -> ModuleOp:
    return Parser(_context(), text).parse_module()


def _ops(module: ModuleOp, name: str) -> list[Operation]:
    return [op for op in module.walk() if op.name == name]


# -- reads and calls: the parser -----------------------------------------------------------


def test_parser_tokens() -> None:
    parser = Parser(_context(), "12 loc")
    token = current_token(parser)
    assert (token.kind, token.text) == (MLIRTokenKind.INTEGER_LIT, "12")
    assert current_token(parser) is token  # not consumed
    assert consume_token(parser, MLIRTokenKind.INTEGER_LIT) is token
    assert current_token(parser).text == "loc"
    resume_from(parser, 0)
    assert current_token(parser).text == "12"
    resume_from(parser, 3)
    assert current_token(parser).text == "loc"
    consume_token(parser, MLIRTokenKind.BARE_IDENT)
    assert current_token(parser).kind is MLIRTokenKind.EOF


def test_parser_state_is_shared_with_an_affine_parser() -> None:
    parser = Parser(_context(), "(d0, d1) -> (d1) next")
    state = parser_state(parser)
    assert state.current_token is current_token(parser)
    affine_map = AffineParser(state).parse_affine_map()
    assert (affine_map.num_dims, len(affine_map.results)) == (2, 1)
    assert current_token(parser).text == "next"  # the parser continues where the affine parser stopped


def test_use_lexer() -> None:
    parser = Parser(_context(), "")
    assert current_token(parser).kind is MLIRTokenKind.EOF
    use_lexer(parser, MLIRLexer(Input("7 : i64", "<lexer>")))
    assert current_token(parser).text == "7"
    assert parser.parse_attribute() == IntegerAttr(7, i64)


def test_parse_tensor_literal_element() -> None:
    parser = Parser(_context(), "-3 0x7F true")
    negative = parse_tensor_literal_element(parser)
    assert isinstance(negative, TensorLiteralElement)
    assert (negative.is_negative, negative.value) == (True, -3)
    hex_element = parse_tensor_literal_element(parser)
    assert (hex_element.value, hex_element.span.text) == (127, "0x7F")
    assert parse_tensor_literal_element(parser).value is True
    # The members passviz's subclass relies on (passviz.ir.mlir_parser._BitPatternAwareElement).
    assert {"is_negative", "value", "span"} <= set(TensorLiteralElement.__dataclass_fields__)
    assert list(inspect.signature(TensorLiteralElement.to_type).parameters) == ["self", "parser", "type"]


# -- reads and calls: the printer ----------------------------------------------------------

_BRANCH = """
func.func @f(%a: i32) -> i32 {
  cf.br ^bb1(%a : i32)
^bb1(%b: i32):
  func.return %b : i32
}
"""


def test_printer_name_tables() -> None:
    module = _module(_BRANCH)
    (branch,) = _ops(module, "cf.br")
    printer = Printer(stream=io.StringIO())
    printer.print_op(module)
    (dest,) = branch.successors
    assert block_names(printer)[dest] == "bb1"
    assert value_names(printer)[branch.operands[0]] == "a"
    # Written before printing, the tables name what an op printed on its own shows.
    stream = io.StringIO()
    alone = Printer(stream=stream)
    value_names(alone)[branch.operands[0]] = "v7"
    block_names(alone)[dest] = "b3"
    alone.print_op(branch)
    assert stream.getvalue() == "cf.br ^b3(%v7 : i32)"


def test_print_new_line() -> None:
    stream = io.StringIO()
    printer = Printer(stream=stream)
    printer.print_string("x")
    with printer.indented():
        print_new_line(printer)
    printer.print_string("y")
    assert stream.getvalue() == "x\n  y"


def test_indent_level() -> None:
    printer = Printer(stream=io.StringIO())
    assert indent_level(printer) == 0
    with printer.indented(2):
        assert indent_level(printer) == 2


# -- reads and calls: IR objects and dialects -----------------------------------------------


def test_op_links() -> None:
    module = _module(_BRANCH)
    (branch,) = _ops(module, "cf.br")
    (ret,) = _ops(module, "func.return")
    prev, nxt, operands, successors = op_links(branch)
    assert (prev, nxt) == (branch.prev_op, branch.next_op) == (None, None)
    assert operands == tuple(branch.operands) and isinstance(operands, tuple)
    assert successors == tuple(branch.successors) and isinstance(successors, tuple)
    # The same tuples at each read while nothing changes (the recorder compares them at once).
    assert op_links(branch)[2] is operands and op_links(branch)[3] is successors
    assert op_links(ret)[3] == ()

    module = _module(
        "%0 = arith.constant 1 : i32\n%1 = arith.addi %0, %0 : i32\n%2 = arith.muli %1, %1 : i32"
    )
    first, second, third = module.body.block.ops
    assert op_links(second)[:2] == (first, third)


def test_comparison_helpers() -> None:
    a, b = (arith.ConstantOp.from_int_and_width(v, 32).result for v in (1, 2))
    wide = arith.ConstantOp.from_int_and_width(3, 64).result
    check_comparison_operands(a, b)
    with pytest.raises(TypeError):
        check_comparison_operands(a, wide)
    assert comparison_predicate("slt", {"eq": 0, "slt": 2}) == 2
    with pytest.raises(VerifyException):
        comparison_predicate("nope", {"eq": 0})


def test_print_while_pair() -> None:
    x, y = (arith.ConstantOp.from_int_and_width(v, 32).result for v in (1, 2))
    stream = io.StringIO()
    printer = Printer(stream=stream)
    value_names(printer).update({x: "arg", y: "init"})
    print_while_pair(printer, (x, y))
    assert stream.getvalue() == "%arg = %init"


# -- reads and calls: CSE and the interpreter -----------------------------------------------


def test_cse_driver_state() -> None:
    module = _module(
        "func.func @f(%a: i32) -> i32 {\n"
        "  %0 = arith.addi %a, %a : i32\n"
        "  %1 = arith.addi %a, %a : i32\n"
        "  %2 = arith.muli %0, %1 : i32\n"
        "  func.return %2 : i32\n"
        "}"
    )
    (function,) = _ops(module, "func.func")
    block = function.regions[0].blocks.first
    assert block is not None
    first, second = _ops(module, "arith.addi")
    (product,) = _ops(module, "arith.muli")

    driver = CSEDriver()
    rewriter = PatternRewriter(InsertPoint.at_start(block))
    set_cse_rewriter(driver, rewriter)
    assert cse_rewriter(driver) is rewriter
    scope = KnownOps()
    set_cse_known_ops(driver, scope)
    assert cse_known_ops(driver) is scope
    cse_simplify_block(driver, block)
    assert list(product.operands) == [first.results[0], first.results[0]]
    assert not second.results[0].uses
    assert first in cse_known_ops(driver)


def test_interpreter_implementations() -> None:
    table = dict(implementations(ArithFunctions()))
    assert arith.AddiOp in table and callable(table[arith.AddiOp])
    assert all(isinstance(op_type, type) and issubclass(op_type, Operation) for op_type in table)


# -- overrides -------------------------------------------------------------------------------


def _import(path: str) -> Any:
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _parameters(member: Any) -> list[str]:
    return list(inspect.signature(member).parameters)


@pytest.mark.parametrize("override", OVERRIDES, ids=lambda o: f"{o.base.__name__}.{o.name}")
def test_override_matches_xdsl(override: PrivateOverride) -> None:
    owners = [c for c in override.base.__mro__ if override.name in c.__dict__]
    assert owners, f"xDSL's {override.base.__qualname__} has no {override.name} any more"
    assert owners[0].__module__.startswith("xdsl."), owners[0]
    xdsl_member = owners[0].__dict__[override.name]
    subclass = _import(override.by)
    assert issubclass(subclass, override.base)
    assert override.name in subclass.__dict__, f"{override.by} no longer overrides {override.name}"
    passviz_member = subclass.__dict__[override.name]
    if override.parameters is None:
        assert not inspect.isfunction(xdsl_member)
        if isinstance(xdsl_member, type):
            assert issubclass(passviz_member, xdsl_member)
        else:
            assert type(passviz_member) is type(xdsl_member)
    else:
        assert inspect.isfunction(xdsl_member), f"{override.name} is no longer a method"
        assert _parameters(xdsl_member) == list(override.parameters)
        assert _parameters(passviz_member) == list(override.parameters)
    assert override.why


def _passviz_classes() -> Iterator[type]:
    for info in pkgutil.walk_packages(passviz.__path__, "passviz."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if inspect.isclass(value) and value.__module__ == module.__name__:
                yield value


def test_every_override_is_listed() -> None:
    listed = {(override.by, override.name) for override in OVERRIDES}
    undeclared: list[str] = []
    for cls in _passviz_classes():
        xdsl_bases = [base for base in cls.__mro__[1:] if base.__module__.startswith("xdsl.")]
        for name, value in cls.__dict__.items():
            if not name.startswith("_") or name.startswith("__") or name == "_abc_impl":
                continue
            if isinstance(value, VarConstraint):
                continue  # an IRDL constraint variable (``_T``), read per class: not xDSL's API
            if issubclass(cls, enum.Enum) and name.startswith("_") and name.endswith("_"):
                continue  # what Python's enum machinery sets on every enum (``_member_map_``)
            if any(name in base.__dict__ for base in xdsl_bases):
                if (f"{cls.__module__}.{cls.__qualname__}", name) not in listed:
                    undeclared.append(f"{cls.__module__}.{cls.__qualname__}.{name}")
    assert not undeclared, f"list these overrides in passviz.ir.xdsl_compat.OVERRIDES: {undeclared}"


# -- monkeypatches ---------------------------------------------------------------------------


@pytest.mark.parametrize("target", PATCHES, ids=lambda p: f"{p.owner.__name__}.{p.name}")
def test_patch_target_matches_xdsl(target: Patch) -> None:
    assert target.owner.__module__.startswith("xdsl.")
    member = original(target.owner, target.name)
    assert member is ORIGINALS[(target.owner, target.name)]
    kinds: dict[str, Callable[[Any], bool]] = {
        "function": inspect.isfunction,
        "staticmethod": lambda m: isinstance(m, staticmethod),
        "classmethod": lambda m: isinstance(m, classmethod),
    }
    assert kinds[target.kind](member), f"{target.name} is no longer a {target.kind}"
    function = member if target.kind == "function" else member.__func__
    assert _parameters(function) == list(target.parameters)
    _importable(target.by)
    assert target.why


def _importable(module: str) -> None:
    importlib.import_module(module)


def test_patch_replaces_and_puts_back() -> None:
    xdsl_erase = Rewriter.__dict__["erase_op"]
    marker = staticmethod(lambda *args, **kwargs: None)
    assert patch(Rewriter, "erase_op", marker) is xdsl_erase
    try:
        assert Rewriter.__dict__["erase_op"] is marker
    finally:
        assert patch(Rewriter, "erase_op", xdsl_erase) is marker
    assert Rewriter.__dict__["erase_op"] is xdsl_erase
    with pytest.raises(ValueError, match="not in PATCHES"):
        patch(Rewriter, "not_listed", marker)


def test_rewrite_hook_targets() -> None:
    static = {name for name, member in Rewriter.__dict__.items() if isinstance(member, staticmethod)}
    assert static == set(REWRITER_EDITS), "Rewriter's static methods changed: hook the new ones?"
    assert {Rewriter.__module__, Builder.__module__, PatternRewriter.__module__} == XDSL_REWRITER_MODULES
    for name in REWRITER_EDITS:
        assert (Rewriter, name) in ORIGINALS


def test_suffix_only_names_patch() -> None:
    xdsl_extract = original(IRWithName, "extract_valid_name").__func__
    assert xdsl_extract(SSAValue, "x_1") == "x"
    assert xdsl_extract(SSAValue, "_0") == "", "xDSL keeps %_0 now: passviz.ir.names can go"
    keep_suffix_only_names()
    keep_suffix_only_names()  # idempotent
    value = arith.ConstantOp.from_int_and_width(1, 32).result
    value.name_hint = "_0"
    assert value.name_hint == "_0"
    value.name_hint = "x_1"
    assert value.name_hint == "x"


# -- completeness ----------------------------------------------------------------------------


def _public_names(path: Path) -> Iterator[str]:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names = [node.name]
        elif isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names = [node.target.id]
        else:
            names = []
        yield from (name for name in names if not name.startswith("_"))


def test_every_public_name_is_exercised_here() -> None:
    source = Path(__file__).read_text(encoding="utf-8")
    missing = [
        name
        for name in _public_names(Path(xdsl_compat.__file__))
        if not re.search(rf"\b{name}\b", source.split("# -- reads and calls", 1)[1])
    ]
    assert not missing, f"exercise these in tests/test_xdsl_compat.py: {missing}"
