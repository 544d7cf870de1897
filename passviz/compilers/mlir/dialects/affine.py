"""xDSL's ``affine`` dialect, with the memory effects and canonicalization MLIR gives its ops.

``affine.load`` reads its memref and ``affine.store`` writes it (so CSE may
merge two loads with no write between them, as MLIR's does); ``affine.for``
has no effects declared (xDSL's), so nothing moves across it.  Loads and stores canonicalize as MLIR's
``SimplifyAffineOp`` does: an operand that is a valid symbol (a constant, a
value of the function's top level) moves from a dimension to a symbol, a
constant symbol becomes a constant in the map, repeated operands are merged
and unused ones dropped.  ``affine.apply`` canonicalizes the same way (constant
operands become constants in its map) and folds as MLIR's: a lone dimension or
symbol to its operand, constant operands to the map's value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from typing import Self, TypeVar

from xdsl.dialects import affine, arith, func
from xdsl.dialects.builtin import AffineMapAttr, IndexType, IntegerAttr, MemRefType
from xdsl.interfaces import HasCanonicalizationPatternsInterface, HasFolderInterface
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap, AffineSymExpr
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure

from passviz.compilers.mlir.dialects import replacing


def constant_index(value: SSAValue) -> int | None:
    """The value of an ``arith.constant`` of index or integer type, else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _affine_scope(value: SSAValue) -> Operation | None:
    """The op whose region ``value`` is defined at the top level of."""
    block = value.block if isinstance(value, BlockArgument) else value.owner.parent_block()
    return block.parent_op() if block is not None else None


def is_valid_symbol(value: SSAValue) -> bool:
    """MLIR's ``isValidSymbol`` for what Toy's IR holds: a constant, or a value of a function's top level."""
    if not isinstance(value.type, IndexType):
        return False
    if constant_index(value) is not None:
        return True
    return isinstance(_affine_scope(value), func.FuncOp)


def _move_operands(
    values: Sequence[SSAValue],
    valid_stays: bool,
    kept_as: Callable[[int], AffineExpr],
    moved: list[SSAValue],
    moved_as: Callable[[int], AffineExpr],
) -> tuple[list[AffineExpr], list[SSAValue]]:
    """Keep the ``values`` whose ``is_valid_symbol`` is ``valid_stays`` (as ``kept_as`` of their new
    position) and move the others to the end of ``moved`` (as ``moved_as`` of theirs): each value's
    new expression, and the values kept."""
    remap: list[AffineExpr] = []
    kept: list[SSAValue] = []
    for value in values:
        if is_valid_symbol(value) == valid_stays:
            remap.append(kept_as(len(kept)))
            kept.append(value)
        else:
            remap.append(moved_as(len(moved)))
            moved.append(value)
    return remap, kept


def _merge_operands(
    values: Sequence[SSAValue],
    used: AbstractSet[int],
    as_expr: Callable[[int], AffineExpr],
    operands: list[SSAValue],
    fold_constants: bool,
) -> tuple[list[AffineExpr], int]:
    """The dimensions' or the symbols' new expressions: 0 for one the map does not use, its value
    for a constant where ``fold_constants``, the first's for a value given twice, else ``as_expr``
    of the next position, its value appended to ``operands``; and how many positions are left."""
    seen: dict[SSAValue, AffineExpr] = {}
    exprs: list[AffineExpr] = []
    for i, value in enumerate(values):
        constant = constant_index(value) if fold_constants and i in used else None
        if i not in used:
            exprs.append(AffineExpr.constant(0))
        elif constant is not None:
            exprs.append(AffineExpr.constant(constant))
        else:
            if value not in seen:
                seen[value] = as_expr(len(seen))
                operands.append(value)
            exprs.append(seen[value])
    return exprs, len(seen)


def canonicalize_map_and_operands(
    map_: AffineMap, operands: Sequence[SSAValue]
) -> tuple[AffineMap, list[SSAValue]]:
    """MLIR's ``canonicalizeMapAndOperands``: promote symbols, fold constants, merge and drop operands."""
    num_dims, num_symbols = map_.num_dims, map_.num_symbols
    dims, symbols = list(operands[:num_dims]), list(operands[num_dims:])
    # legalizeDemotedDims: a symbol that is not a valid symbol (a loop's index) becomes a dimension
    if any(not is_valid_symbol(value) for value in symbols):
        symbol_remap, kept_symbols = _move_operands(
            symbols, True, AffineExpr.symbol, dims, AffineExpr.dimension
        )
        map_ = map_.replace_dims_and_symbols(
            [AffineExpr.dimension(i) for i in range(num_dims)], symbol_remap, len(dims), len(kept_symbols)
        )
        num_dims, num_symbols, symbols = len(dims), len(kept_symbols), kept_symbols
    # canonicalizePromotedSymbols: a valid symbol in a dimension's place becomes a symbol
    dim_remap, kept_dims = _move_operands(dims, False, AffineExpr.dimension, symbols, AffineExpr.symbol)
    map_ = map_.replace_dims_and_symbols(
        dim_remap, [AffineExpr.symbol(i) for i in range(num_symbols)], len(kept_dims), len(symbols)
    )
    used_dims = set[int]()
    used_symbols = set[int]()
    for result in map_.results:
        for expr in result.dfs():
            position = getattr(expr, "position", None)
            if position is None:
                continue
            kind = type(expr).__name__
            (used_dims if kind == "AffineDimExpr" else used_symbols).add(position)
    result_operands: list[SSAValue] = []
    new_dims, num_dims = _merge_operands(kept_dims, used_dims, AffineExpr.dimension, result_operands, False)
    new_symbols, num_symbols = _merge_operands(
        symbols, used_symbols, AffineExpr.symbol, result_operands, True
    )
    map_ = map_.replace_dims_and_symbols(new_dims, new_symbols, num_dims, num_symbols)
    simplified = tuple(expr.simplify(map_.num_dims, map_.num_symbols) for expr in map_.results)
    return AffineMap(map_.num_dims, map_.num_symbols, simplified), result_operands


OpT = TypeVar("OpT", bound=Operation)


class SimplifyAffineOp(RewritePattern):
    """MLIR's ``SimplifyAffineOp`` for ``affine.load`` and ``affine.store``: a canonical map and operands."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, LoadOp | StoreOp):
            return
        old_map, old_operands = op.map.data, list(op.indices)
        new_map, new_operands = canonicalize_map_and_operands(old_map, old_operands)
        if new_map == old_map and new_operands == old_operands:
            return
        if isinstance(op, LoadOp):
            rewriter.replace(op, LoadOp(op.memref, new_operands, AffineMapAttr(new_map), op.result.type))
        else:
            rewriter.replace(op, StoreOp(op.value, op.memref, new_operands, AffineMapAttr(new_map)))


def _as_dims(map_: AffineMap) -> AffineMap:
    """MLIR reads each ``%value`` of ``[...]`` as a dimension; xDSL's parser makes it a symbol."""
    if map_.num_dims:
        return map_
    dims = [AffineExpr.dimension(i) for i in range(map_.num_symbols)]
    return map_.replace_dims_and_symbols([], dims, map_.num_symbols, 0)


def _rebuilt(cls: type[OpT], parsed: Operation) -> OpT:
    """``parsed`` (xDSL's class, which xDSL's parsers build) as passviz's ``cls``."""
    properties = dict(parsed.properties)
    access_map = properties.get("map")
    if isinstance(access_map, AffineMapAttr):
        properties["map"] = AffineMapAttr(_as_dims(access_map.data))
    op = cls.create(
        operands=list(parsed.operands),
        result_types=[result.type for result in parsed.results],
        properties=properties,
        attributes=dict(parsed.attributes),
        regions=[parsed.detach_region(region) for region in list(parsed.regions)],
    )
    parsed.drop_all_references()
    return op


_ELEMENT: VarConstraint[Attribute] = VarConstraint("T", AnyAttr())
"""The element type an ``affine.load`` or ``affine.store`` reads or writes."""


class _AccessOp(IRDLOperation, HasCanonicalizationPatternsInterface):
    """What ``affine.load`` and ``affine.store`` share, ahead of xDSL's op in their bases (an op
    class xDSL has defined no longer holds its field definitions): the memref, the indices and
    their map, the canonicalization, and xDSL's parser, its op rebuilt as passviz's."""

    memref = operand_def(MemRefType.constr(_ELEMENT))
    """The memref accessed."""
    indices = var_operand_def(IndexType)
    """The values of the map's dimensions and symbols."""
    map = prop_def(AffineMapAttr)
    """The map from the indices to the memref's subscripts."""

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (SimplifyAffineOp(),)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        # xDSL's parser builds xDSL's op (hence the ignores on the ops: its ``parse`` says so).
        return _rebuilt(cls, super().parse(parser))


@irdl_op_definition
class LoadOp(_AccessOp, affine.LoadOp):  # pyright: ignore[reportIncompatibleMethodOverride]
    """``affine.load``: reads its memref."""

    result = result_def(_ELEMENT)
    traits = traits_def(MemoryReadEffect())


@irdl_op_definition
class StoreOp(_AccessOp, affine.StoreOp):  # pyright: ignore[reportIncompatibleMethodOverride]
    """``affine.store``: writes its memref."""

    value = operand_def(_ELEMENT)
    traits = traits_def(MemoryWriteEffect())


class SimplifyAffineApply(RewritePattern):
    """MLIR's ``SimplifyAffineOp`` for ``affine.apply``: a canonical map and operands (constant
    operands folded into the map).  An operand made by another ``affine.apply``, which MLIR
    would compose in first, leaves the op alone (not modelled)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, ApplyOp):
            return
        old_map, old_operands = op.map.data, list(op.mapOperands)
        if any(isinstance(value.owner, affine.ApplyOp) for value in old_operands):
            return
        new_map, new_operands = canonicalize_map_and_operands(old_map, old_operands)
        if new_map == old_map and new_operands == old_operands:
            return
        rewriter.replace(op, ApplyOp(new_operands, AffineMapAttr(new_map)))


@irdl_op_definition
class ApplyOp(affine.ApplyOp, HasFolderInterface, HasCanonicalizationPatternsInterface):
    """``affine.apply``, folding and canonicalizing as MLIR's does."""

    mapOperands = var_operand_def(IndexType)
    map = prop_def(AffineMapAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        """MLIR's ``AffineApplyOp::fold``: a lone dimension or symbol is its operand; with
        every operand constant, the map's value."""
        map_ = self.map.data
        expr = map_.results[0]
        if isinstance(expr, AffineDimExpr):
            return [self.mapOperands[expr.position]]
        if isinstance(expr, AffineSymExpr):
            return [self.mapOperands[map_.num_dims + expr.position]]
        values = [constant_index(value) for value in self.mapOperands]
        known = [value for value in values if value is not None]
        if len(known) != len(values):
            return None
        (result,) = map_.eval(known[: map_.num_dims], known[map_.num_dims :])
        return [IntegerAttr(result, IndexType())]

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (SimplifyAffineApply(),)

    @classmethod
    def parse(cls, parser: Parser) -> ApplyOp:
        # xDSL's parser reads dimensions and symbols apart here: the map stays as written.
        parsed = affine.ApplyOp.parse(parser)
        op = cls(list(parsed.mapOperands), parsed.map)
        op.attributes |= parsed.attributes
        parsed.drop_all_references()
        return op


_OURS: dict[type, type] = {affine.LoadOp: LoadOp, affine.StoreOp: StoreOp, affine.ApplyOp: ApplyOp}
"""xDSL's ops that passviz replaces, and their replacements."""

Affine = replacing(affine.Affine, _OURS)
"""The affine dialect as passviz registers it."""
