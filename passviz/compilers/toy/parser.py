"""The Toy parser: the tutorial's recursive descent grammar, to an AST.

::

    module      ::= definition+
    definition  ::= 'def' id '(' (id (',' id)*)? ')' block
    block       ::= '{' (statement ';'+)* '}'
    statement   ::= 'var' id ('<' number (',' number)* '>')? '=' expr
                  | 'return' expr? | expr
    expr        ::= primary (binop primary)*      (* binds tighter than + and -)
    primary     ::= id | id '(' (expr (',' expr)*)? ')' | number | '(' expr ')' | literal
    literal     ::= '[' (literal | number) (',' (literal | number))* ']'

An error stops the parse: ``file:line:col: Parse error: expected ...``.
"""

from __future__ import annotations

from dataclasses import dataclass

from passviz.compilers.toy import ast
from passviz.compilers.toy.lexer import Kind, Token, ToyError, tokenize

_PRECEDENCE = {"+": 20, "-": 20, "*": 40}
"""The binary operators the tutorial's parser knows, and how tightly they bind."""

_MAX_NESTING = 200
"""Deeper expressions are refused rather than overflowing Python's stack."""


def parse_toy(text: str, filename: str) -> ast.Module:
    """The AST of a Toy file; raises ``ToyError`` at the first problem."""
    return _Parser(tokenize(text, filename)).module()


@dataclass
class _Parser:
    tokens: list[Token]
    """The tokens, ending with ``EOF``."""
    pos: int = 0
    """The current token's index."""
    depth: int = 0
    """How deeply expressions are nested here."""

    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def at(self, kind: Kind) -> bool:
        return self.tok.kind is kind

    def is_char(self, char: str) -> bool:
        return self.at(Kind.CHAR) and self.tok.text == char

    def advance(self) -> Token:
        token = self.tok
        if token.kind is not Kind.EOF:
            self.pos += 1
        return token

    def error(self, expected: str, context: str) -> ToyError:
        where = f" {context}" if context else ""
        return ToyError(
            self.tok.location, f"Parse error: expected {expected}{where} but has {self.tok.describe()}"
        )

    def expect_char(self, char: str, context: str) -> Token:
        if not self.is_char(char):
            raise self.error(f"'{char}'", context)
        return self.advance()

    def module(self) -> ast.Module:
        functions = [self.definition()]
        while not self.at(Kind.EOF):
            functions.append(self.definition())
        return ast.Module(tuple(functions))

    def definition(self) -> ast.Function:
        proto = self.prototype()
        return ast.Function(proto, self.block())

    def prototype(self) -> ast.Prototype:
        loc = self.tok.location
        if not self.at(Kind.DEF):
            raise self.error("'def'", "in prototype")
        self.advance()
        if not self.at(Kind.IDENTIFIER):
            raise self.error("function name", "in prototype")
        name = self.advance().text
        self.expect_char("(", "in prototype")
        params: list[ast.VariableExpr] = []
        if not self.is_char(")"):
            while True:
                if not self.at(Kind.IDENTIFIER):
                    raise self.error("identifier", "in function parameter list")
                param = self.advance()
                params.append(ast.VariableExpr(param.location, param.text))
                if not self.is_char(","):
                    break
                self.advance()
        self.expect_char(")", "to end function prototype")
        return ast.Prototype(loc, name, tuple(params))

    def block(self) -> tuple[ast.Expr, ...]:
        self.expect_char("{", "to begin block")
        body: list[ast.Expr] = []
        while self.is_char(";"):
            self.advance()
        while not self.is_char("}") and not self.at(Kind.EOF):
            if self.at(Kind.VAR):
                body.append(self.declaration())
            elif self.at(Kind.RETURN):
                body.append(self.return_())
            else:
                body.append(self.expression())
            if not self.is_char(";"):
                raise self.error("';'", "after expression")
            while self.is_char(";"):
                self.advance()
        self.expect_char("}", "to close block")
        return tuple(body)

    def declaration(self) -> ast.VarDeclExpr:
        loc = self.advance().location  # var
        if not self.at(Kind.IDENTIFIER):
            raise self.error("identifier", "after 'var' declaration")
        name = self.advance().text
        shape: tuple[int, ...] = ()
        if self.is_char("<"):
            shape = self.shape()
        self.expect_char("=", "in variable declaration")
        return ast.VarDeclExpr(loc, name, shape, self.expression())

    def shape(self) -> tuple[int, ...]:
        self.advance()  # <
        dims: list[int] = []
        while self.at(Kind.NUMBER):
            value = float(self.tok.text)
            if not value.is_integer():
                raise self.error("an integer dimension", "in type")
            dims.append(int(value))
            self.advance()
            if self.is_char(","):
                self.advance()
        if not self.is_char(">"):
            raise self.error("'>'", "to end type")
        self.advance()
        return tuple(dims)

    def return_(self) -> ast.ReturnExpr:
        loc = self.advance().location  # return
        if self.is_char(";"):
            return ast.ReturnExpr(loc, None)
        return ast.ReturnExpr(loc, self.expression())

    def expression(self) -> ast.Expr:
        self.depth += 1
        if self.depth > _MAX_NESTING:
            raise ToyError(self.tok.location, "Parse error: expression nested too deeply")
        try:
            return self.binop_rhs(0, self.primary())
        finally:
            self.depth -= 1

    def binop_rhs(self, min_precedence: int, lhs: ast.Expr) -> ast.Expr:
        while True:
            precedence = self.precedence()
            if precedence < min_precedence:
                return lhs
            op = self.advance().text
            loc = self.tok.location
            if self.is_char(";") or self.is_char("}"):
                raise self.error("expression", "to complete binary operator")
            rhs = self.primary()
            if precedence < self.precedence():
                rhs = self.binop_rhs(precedence + 1, rhs)
            lhs = ast.BinaryExpr(loc, op, lhs, rhs)

    def precedence(self) -> int:
        if not self.at(Kind.CHAR):
            return -1
        return _PRECEDENCE.get(self.tok.text, -1)

    def primary(self) -> ast.Expr:
        token = self.tok
        if token.kind is Kind.IDENTIFIER:
            return self.identifier_expr()
        if token.kind is Kind.NUMBER:
            return self.number()
        if self.is_char("("):
            self.advance()
            inner = self.expression()
            self.expect_char(")", "to close expression with parentheses")
            return inner
        if self.is_char("["):
            return self.literal()
        raise self.error("expression", "")

    def number(self) -> ast.NumberExpr:
        token = self.advance()
        return ast.NumberExpr(token.location, float(token.text))

    def identifier_expr(self) -> ast.Expr:
        token = self.advance()
        if not self.is_char("("):
            return ast.VariableExpr(token.location, token.text)
        self.advance()
        args: list[ast.Expr] = []
        if not self.is_char(")"):
            while True:
                args.append(self.expression())
                if self.is_char(")"):
                    break
                if not self.is_char(","):
                    raise self.error("',' or ')'", "in argument list")
                self.advance()
        self.advance()  # )
        if token.text == "print":
            if len(args) != 1:
                raise ToyError(token.location, "Parse error: expected <single arg> as argument to print()")
            return ast.PrintExpr(token.location, args[0])
        return ast.CallExpr(token.location, token.text, tuple(args))

    def literal(self) -> ast.LiteralExpr:
        loc = self.advance().location  # [
        self.depth += 1
        if self.depth > _MAX_NESTING:
            raise ToyError(loc, "Parse error: literal nested too deeply")
        values: list[ast.LiteralExpr | ast.NumberExpr] = []
        while True:
            if self.is_char("["):
                values.append(self.literal())
            elif self.at(Kind.NUMBER):
                values.append(self.number())
            else:
                raise self.error("<num> or [", "in literal expression")
            if self.is_char("]"):
                break
            if not self.is_char(","):
                raise self.error("] or ,", "in literal expression")
            self.advance()
        self.advance()  # ]
        self.depth -= 1
        nested = [value for value in values if isinstance(value, ast.LiteralExpr)]
        if not nested:
            return ast.LiteralExpr(loc, tuple(values), (len(values),))
        first = values[0]
        if (
            len(nested) != len(values)
            or not isinstance(first, ast.LiteralExpr)
            or any(value.dims != first.dims for value in nested)
        ):
            raise ToyError(
                loc, "Parse error: expected uniform well-nested dimensions inside literal expression"
            )
        return ast.LiteralExpr(loc, tuple(values), (len(values), *first.dims))
