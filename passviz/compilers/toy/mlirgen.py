"""MLIRGen: the Toy AST to the ``toy`` dialect, as the tutorial's ``MLIRGen.cpp``.

Every op is located at its source (``loc("file":line:col)``).  Problems the
tutorial's MLIRGen reports (an unknown variable, ``transpose`` of two values,
an operator it has no op for) and those it leaves to a later crash or to the
verifier (a call to no function, a redeclared variable, a statement after
``return``) are all one ``ToyError`` at the place in the source.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, FunctionType, IntAttr, ModuleOp, StringAttr, TensorType, f64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from passviz.compilers.toy import ast
from passviz.compilers.toy import dialect as toy
from passviz.compilers.toy.lexer import Location, ToyError
from passviz.recording.interface import StepRecorder, TracedPass

FIRST_PRIVATE_CHAPTER = 4
"""From chapter 4 on (for the inliner), MLIRGen makes every function but ``main`` private."""


def mlirgen(module: ast.Module, *, chapter: int = 6) -> ModuleOp:
    """The ``toy`` IR of ``module``, verified, as ``toyc-ch<chapter> -emit=mlir`` makes it."""
    generated = ModuleOp([])
    known = {function.proto.name: len(function.proto.params) for function in module.functions}
    for function in module.functions:
        generated.body.block.add_op(_FunctionGen(known, chapter).function(function))
    _verify(generated)
    return generated


def location_of(op: Operation) -> Location | None:
    """Where in the Toy source ``op`` comes from, if MLIRGen made it."""
    loc = op.location
    if not isinstance(loc, FileLineColLoc):
        return None
    return Location(loc.filename.data, loc.line.data, loc.column.data)


def _loc(location: Location) -> FileLineColLoc:
    return FileLineColLoc(StringAttr(location.file), IntAttr(location.line), IntAttr(location.col))


def _verify(module: ModuleOp) -> None:
    """The tutorial verifies the module MLIRGen made; a failure points at the source."""
    names: dict[str, toy.FuncOp] = {}
    for op in module.body.block.ops:
        assert isinstance(op, toy.FuncOp)
        name = op.sym_name.data
        if name in names:
            raise _error(op, f"redefinition of function '{name}'")
        names[name] = op
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as exc:
            raise _error(op, f"'{op.name}' op {exc}") from None


def _error(op: Operation, message: str) -> ToyError:
    location = location_of(op)
    assert location is not None, op
    return ToyError(location, message)


@dataclass
class _FunctionGen:
    """Generates one function: the tutorial's MLIRGen with its scoped symbol table."""

    functions: dict[str, int]
    """The module's functions and how many parameters each takes."""
    chapter: int
    """Which chapter's toyc this behaves as."""
    variables: dict[str, SSAValue] = field(default_factory=dict[str, SSAValue])
    """The values of the variables in scope, by name."""
    block: Block = field(default_factory=Block)
    """Where ops go."""

    def add(self, op: Operation, location: Location) -> Operation:
        op.location = _loc(location)
        self.block.add_op(op)
        return op

    def declare(self, name: str, value: SSAValue, location: Location) -> None:
        if name in self.variables:
            raise ToyError(location, f"redeclaration of variable '{name}'")
        self.variables[name] = value

    def function(self, function: ast.Function) -> toy.FuncOp:
        proto = function.proto
        self.block = Block(arg_types=[toy.unranked()] * len(proto.params))
        for index, (param, arg) in enumerate(zip(proto.params, self.block.args, strict=True)):
            arg.name_hint = f"arg{index}"  # as MLIR names a function's arguments
            arg.location = _loc(proto.loc)
            self.declare(param.name, arg, param.loc)
        for expr in function.body:
            self.statement(expr)
        last = self.block.last_op
        results: list[Attribute] = []
        if not isinstance(last, toy.ReturnOp):
            self.add(toy.ReturnOp(), proto.loc)
        elif last.input is not None:
            results = [toy.unranked()]
        op = toy.FuncOp(
            proto.name,
            FunctionType.from_lists([toy.unranked()] * len(proto.params), results),
            Region(self.block),
            private=self.chapter >= FIRST_PRIVATE_CHAPTER and proto.name != "main",
        )
        op.location = _loc(proto.loc)
        return op

    def statement(self, expr: ast.Expr) -> None:
        match expr:
            case ast.ReturnExpr():
                value = None if expr.expr is None else self.value(expr.expr)
                self.add(toy.ReturnOp(value), expr.loc)
            case ast.PrintExpr():
                self.add(toy.PrintOp(self.value(expr.arg)), expr.loc)
            case _:
                self.value(expr)

    def value(self, expr: ast.Expr) -> SSAValue:
        """The value of ``expr``, generating the ops that compute it."""
        match expr:
            case ast.NumberExpr():
                return self.add(toy.ConstantOp.from_values([expr.value], []), expr.loc).results[0]
            case ast.LiteralExpr():
                return self.add(toy.ConstantOp.from_values(expr.flatten(), expr.dims), expr.loc).results[0]
            case ast.VariableExpr():
                if expr.name not in self.variables:
                    raise ToyError(expr.loc, f"unknown variable '{expr.name}'")
                return self.variables[expr.name]
            case ast.VarDeclExpr():
                value = self.value(expr.init)
                if expr.shape:
                    value = self.add(toy.ReshapeOp(value, TensorType(f64, expr.shape)), expr.loc).results[0]
                self.declare(expr.name, value, expr.loc)
                return value
            case ast.BinaryExpr():
                lhs = self.value(expr.lhs)
                rhs = self.value(expr.rhs)
                if expr.op == "+":
                    return self.add(toy.AddOp(lhs, rhs), expr.loc).results[0]
                if expr.op == "*":
                    return self.add(toy.MulOp(lhs, rhs), expr.loc).results[0]
                raise ToyError(expr.loc, f"invalid binary operator '{expr.op}'")
            case ast.CallExpr():
                return self.call(expr)
            case ast.PrintExpr():
                raise ToyError(expr.loc, "print returns no value")
            case ast.ReturnExpr():
                raise ToyError(expr.loc, "return is a statement, not a value")

    def call(self, expr: ast.CallExpr) -> SSAValue:
        args = [self.value(arg) for arg in expr.args]
        if expr.callee == "transpose":
            if len(args) != 1:
                raise ToyError(
                    expr.loc,
                    "MLIR codegen encountered an error: toy.transpose does not accept multiple arguments",
                )
            return self.add(toy.TransposeOp(args[0]), expr.loc).results[0]
        if expr.callee not in self.functions:
            raise ToyError(expr.loc, f"call to undefined function '{expr.callee}'")
        expected = self.functions[expr.callee]
        if expected != len(args):
            raise ToyError(
                expr.loc, f"'{expr.callee}' takes {expected} argument(s) but is called with {len(args)}"
            )
        return self.add(toy.GenericCallOp(expr.callee, args), expr.loc).results[0]


@dataclass(frozen=True)
class ToyMLIRGen(TracedPass):
    """MLIRGen as the first pass of a trace: one step per function generated,
    each adding the function MLIRGen made to the (empty) module."""

    name: ClassVar[str] = "toy-mlirgen"
    generated: ModuleOp | None = None
    """The module ``mlirgen`` made; its functions are copied in, in order."""

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        if self.generated is None:
            return
        for function in self.generated.body.block.ops:
            assert isinstance(function, toy.FuncOp)
            with recorder.step(f"MLIRGen @{function.sym_name.data}", full=True):
                end = InsertPoint.at_end(op.body.block)
                recorder.rewriter(end).insert(function.clone(), end)
