"""The Toy AST, and its printer in the tutorial's ``-emit=ast`` format."""

from __future__ import annotations

from dataclasses import dataclass, field

from passviz.compilers.toy.lexer import Location


@dataclass(frozen=True)
class Node:
    """What every expression, statement and prototype has, as the tutorial's ``ExprAST`` does."""

    loc: Location
    """Where it is in the file: for each kind of node, the place its docstring names."""


@dataclass(frozen=True)
class NumberExpr(Node):
    """A number: ``1.5``, located where it starts."""

    value: float
    """Its value."""


@dataclass(frozen=True)
class LiteralExpr(Node):
    """A tensor literal: ``[[1, 2], [3, 4]]``, located at its ``[``."""

    values: tuple[LiteralExpr | NumberExpr, ...]
    """The elements at this level: all numbers or all literals of one shape."""
    dims: tuple[int, ...]
    """The shape of the whole literal."""

    def flatten(self) -> list[float]:
        """The numbers in row-major order."""
        numbers: list[float] = []
        for value in self.values:
            if isinstance(value, NumberExpr):
                numbers.append(value.value)
            else:
                numbers.extend(value.flatten())
        return numbers


@dataclass(frozen=True)
class VariableExpr(Node):
    """A reference to a variable or parameter by name, located at the name."""

    name: str
    """The name."""


@dataclass(frozen=True)
class BinaryExpr(Node):
    """``lhs op rhs`` for ``op`` one of ``+``, ``-``, ``*``, located where the right-hand side
    starts, as the tutorial's parser records it."""

    op: str
    """The operator character."""
    lhs: Expr
    """The left operand."""
    rhs: Expr
    """The right operand."""


@dataclass(frozen=True)
class CallExpr(Node):
    """A call to a user function or to the builtin ``transpose``, located at the callee's name."""

    callee: str
    """The function called."""
    args: tuple[Expr, ...]
    """The arguments."""


@dataclass(frozen=True)
class PrintExpr(Node):
    """The builtin ``print(x)``, located at ``print``."""

    arg: Expr
    """What is printed."""


@dataclass(frozen=True)
class VarDeclExpr(Node):
    """``var name<shape> = init``, located at ``var``; the shape may be empty."""

    name: str
    """The variable."""
    shape: tuple[int, ...]
    """The declared shape, empty when not given."""
    init: Expr
    """The initial value."""


@dataclass(frozen=True)
class ReturnExpr(Node):
    """``return`` or ``return expr``, located at ``return``."""

    expr: Expr | None
    """The value returned, if any."""


Expr = NumberExpr | LiteralExpr | VariableExpr | BinaryExpr | CallExpr | PrintExpr | VarDeclExpr | ReturnExpr
"""Any Toy expression or statement."""


@dataclass(frozen=True)
class Prototype(Node):
    """``def name(a, b)``, located at ``def``."""

    name: str
    """The function's name."""
    params: tuple[VariableExpr, ...]
    """The parameters."""


@dataclass(frozen=True)
class Function:
    """A function definition: its prototype and body."""

    proto: Prototype
    """The prototype."""
    body: tuple[Expr, ...]
    """The statements in order."""

    @property
    def loc(self) -> Location:
        """Where the function starts (its ``def``)."""
        return self.proto.loc


@dataclass(frozen=True)
class Module:
    """A Toy file: its functions in order."""

    functions: tuple[Function, ...] = field(default=())
    """The functions."""


def dump(module: Module) -> str:
    """``module`` as ``toyc -emit=ast`` prints it (two spaces per level)."""
    lines: list[str] = []
    _Dumper(lines).module(module)
    return "".join(line + "\n" for line in lines)


def _number(value: float) -> str:
    """A double as ``raw_ostream`` prints it (``%e``)."""
    return f"{value:e}"


def _literal(expr: LiteralExpr | NumberExpr) -> str:
    if isinstance(expr, NumberExpr):
        return _number(expr.value)
    dims = ", ".join(str(dim) for dim in expr.dims)
    return f"<{dims}>[ " + ", ".join(_literal(value) for value in expr.values) + " ]"


@dataclass
class _Dumper:
    """The tutorial's ``ASTDumper``: each node one level deeper than its parent."""

    lines: list[str]
    """Where the lines go."""

    def emit(self, text: str, level: int) -> None:
        self.lines.append("  " * level + text)

    def module(self, module: Module) -> None:
        self.emit("Module:", 1)
        for function in module.functions:
            self.emit("Function ", 2)
            proto = function.proto
            self.emit(f"Proto '{proto.name}' @{proto.loc}", 3)
            self.emit("Params: [" + ", ".join(param.name for param in proto.params) + "]", 3)
            self.emit("Block {", 3)
            for expr in function.body:
                self.expr(expr, 4)
            self.emit("} // Block", 3)

    def expr(self, expr: Expr, level: int) -> None:
        match expr:
            case NumberExpr():
                self.emit(f"{_number(expr.value)} @{expr.loc}", level)
            case LiteralExpr():
                self.emit(f"Literal: {_literal(expr)} @{expr.loc}", level)
            case VariableExpr():
                self.emit(f"var: {expr.name} @{expr.loc}", level)
            case BinaryExpr():
                self.emit(f"BinOp: {expr.op} @{expr.loc}", level)
                self.expr(expr.lhs, level + 1)
                self.expr(expr.rhs, level + 1)
            case CallExpr():
                self.emit(f"Call '{expr.callee}' [ @{expr.loc}", level)
                for arg in expr.args:
                    self.expr(arg, level + 1)
                self.emit("]", level)
            case PrintExpr():
                self.emit(f"Print [ @{expr.loc}", level)
                self.expr(expr.arg, level + 1)
                self.emit("]", level)
            case VarDeclExpr():
                shape = ", ".join(str(dim) for dim in expr.shape)
                self.emit(f"VarDecl {expr.name}<{shape}> @{expr.loc}", level)
                self.expr(expr.init, level + 1)
            case ReturnExpr():
                self.emit("Return", level)
                if expr.expr is None:
                    self.emit("(void)", level + 1)
                else:
                    self.expr(expr.expr, level + 1)
