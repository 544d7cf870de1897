"""``toy-lower-to-llvm``: the Toy tutorial's lowering to the LLVM dialect (chapter 6), rewrite by rewrite.

MLIR's ``ToyToLLVMLoweringPass`` is one full dialect conversion that applies,
together, the tutorial's ``PrintOpLowering``, affine → scf
(``populateAffineToStdConversionPatterns``), scf → cf, and arith, memref
(``finalize-memref-to-llvm``), cf and func → llvm.  Here the same patterns
run as five walks, so a student sees each level go in turn:

1. ``PrintOpLowering``: ``toy.print`` of a memref becomes an ``scf.for`` nest
   calling ``printf`` with the globals ``@frmt_spec`` (``"%f \\0"``) per
   element and ``@nl`` (``"\\n\\0"``) after each inner dimension;
2. ``lower-affine``'s patterns (loads and stores read their maps' symbols too):
   ``affine.for/load/store`` → ``scf``/``memref``;
3. xDSL's ``convert-scf-to-cf`` patterns: ``scf.for`` → blocks and branches;
4. arith, memref, cf and func ops → ``llvm`` ops, one rewrite each: ``index``
   becomes ``i64`` and a memref MLIR's descriptor
   ``!llvm.struct<(ptr, ptr, i64, array<N x i64>, array<N x i64>)>``
   (``malloc``/``free`` for ``memref.alloc``/``memref.dealloc``).  Where a
   value's type changes, ``builtin.unrealized_conversion_cast`` bridges old
   and new users, as MLIR's conversion driver does;
5. ``ReconcileUnrealizedCasts``: the bridges, now unused or round trips, go.

An op left outside the ``llvm`` dialect fails the pass with MLIR's
``failed to legalize operation`` message.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import ClassVar, TypeVar

from xdsl.context import Context
from xdsl.dialects import arith, cf, func, llvm, memref
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    UnrealizedConversionCastOp,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue, Use
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint
from xdsl.transforms.convert_scf_to_cf import ForLowering, IfLowering, SwitchLowering
from xdsl.utils.hints import isa

from passviz.compilers.mlir.passes.lower_affine import affine_patterns
from passviz.recording.interface import NamedPattern, StepRecorder, TracedPass

OpT = TypeVar("OpT", bound=Operation)

PTR = llvm.LLVMPointerType()
"""MLIR's opaque ``!llvm.ptr``."""

PRINTF_TYPE = llvm.LLVMFunctionType([PTR], i32, is_variadic=True)
"""``printf``'s type, as the tutorial declares it: ``(!llvm.ptr, ...) -> i32``."""

FORMAT_STRINGS: tuple[tuple[str, str], ...] = (("frmt_spec", "%f \0"), ("nl", "\n\0"))
"""The tutorial's global strings: one element's format, and the newline."""


class LegalizationError(ValueError):
    """An op the lowering does not turn into the ``llvm`` dialect."""


def llvm_type(type_: Attribute) -> Attribute:
    """MLIR's ``LLVMTypeConverter`` for the types Toy's lowered IR holds."""
    if isinstance(type_, IndexType):
        return i64
    if isinstance(type_, MemRefType):
        rank = len(type_.get_shape())
        sizes: list[Attribute] = [_array(rank, i64)] * 2 if rank else []
        return llvm.LLVMStructType.from_type_list([PTR, PTR, i64, *sizes])
    return type_


def _array(size: int, element: Attribute) -> llvm.LLVMArrayType:
    return llvm.LLVMArrayType(IntAttr(size), element)


def _module_of(op: Operation) -> ModuleOp:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, ModuleOp):
        parent = parent.parent_op()
    if parent is None:
        raise LegalizationError(f"'{op.name}' is not inside a module")
    return parent


def _symbol(module: ModuleOp, name: str) -> Operation | None:
    for op in module.body.block.ops:
        sym_name = op.attributes.get("sym_name") or op.properties.get("sym_name")
        if isinstance(sym_name, StringAttr) and sym_name.data == name:
            return op
    return None


def _declare(rewriter: PatternRewriter, module: ModuleOp, name: str, type_: llvm.LLVMFunctionType) -> None:
    """``llvm.func @name`` at the top of ``module``, unless it is there (``getOrInsertPrintf``)."""
    if _symbol(module, name) is None:
        declaration = llvm.FuncOp(name, type_, linkage=llvm.LinkageAttr("external"))
        rewriter.insert(declaration, InsertPoint.at_start(module.body.block))


def _index_constant(value: int) -> llvm.ConstantOp:
    return llvm.ConstantOp(IntegerAttr(value, IndexType()), i64)


def _global_string(rewriter: PatternRewriter, module: ModuleOp, name: str, value: str) -> list[Operation]:
    """``getOrCreateGlobalString``: the global made if missing, and the ops taking its first character."""
    if _symbol(module, name) is None:
        array = _array(len(value.encode()), IntegerType(8))
        global_ = llvm.GlobalOp(array, name, "internal", constant=True, value=StringAttr(value))
        rewriter.insert(global_, InsertPoint.at_start(module.body.block))
    address = llvm.AddressOfOp(name, PTR)
    zero = _index_constant(0)
    array = _array(len(value.encode()), IntegerType(8))
    first = llvm.GEPOp(
        address,
        [llvm.GEP_USE_SSA_VAL, llvm.GEP_USE_SSA_VAL],
        array,
        ssa_indices=[zero, zero],
    )
    return [address, zero, first]


def _printf(*args: SSAValue) -> llvm.CallOp:
    return llvm.CallOp(
        "printf", *args, return_type=i32, variadic_args=len(args) - 1, var_callee_type=PRINTF_TYPE
    )


class PrintOpLowering(RewritePattern):
    """The tutorial's ``PrintOpLowering``: ``toy.print`` of a memref → loops calling ``printf``."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "toy.print" or len(op.operands) != 1:
            return
        source = op.operands[0]
        if not isa(source.type, MemRefType[Attribute]):
            return
        module = _module_of(op)
        _declare(rewriter, module, "printf", PRINTF_TYPE)
        format_ops = _global_string(rewriter, module, *FORMAT_STRINGS[0])
        newline_ops = _global_string(rewriter, module, *FORMAT_STRINGS[1])
        shape = source.type.get_shape()
        ivs: list[SSAValue] = []

        def nest(dim: int) -> list[Operation]:
            if dim == len(shape):
                element = memref.LoadOp.get(source, ivs)
                return [element, _printf(format_ops[-1].results[0], element.res)]
            lower, upper, step = (
                arith.ConstantOp.from_int_and_width(v, IndexType()) for v in (0, shape[dim], 1)
            )
            body = Block(arg_types=[IndexType()])
            ivs.append(body.args[0])
            inner = nest(dim + 1)
            ivs.pop()
            if dim != len(shape) - 1:
                inner.append(_printf(newline_ops[-1].results[0]))
            body.add_ops([*inner, _scf_yield()])
            return [lower, upper, step, _scf_for(lower, upper, step, body)]

        rewriter.replace(op, [*format_ops, *newline_ops, *nest(0)], [])


def _scf_yield() -> Operation:
    from xdsl.dialects.scf import YieldOp

    return YieldOp()


def _scf_for(lower: Operation, upper: Operation, step: Operation, body: Block) -> Operation:
    from xdsl.dialects.scf import ForOp

    return ForOp(lower.results[0], upper.results[0], step.results[0], [], Region(body))


def _converted(value: SSAValue, rewriter: PatternRewriter) -> SSAValue:
    """``value`` in its LLVM type: itself, what a bridge cast came from, or a new bridge."""
    target = llvm_type(value.type)
    if target == value.type:
        return value
    owner = value.owner
    if (
        isinstance(owner, UnrealizedConversionCastOp)
        and len(owner.inputs) == 1
        and owner.inputs[0].type == target
    ):
        return owner.inputs[0]
    bridge = UnrealizedConversionCastOp.get([value], [target])
    rewriter.insert(bridge)
    return bridge.results[0]


def _replace(
    rewriter: PatternRewriter, op: Operation, new_ops: Sequence[Operation], values: Sequence[SSAValue]
) -> None:
    """Replace ``op`` by ``new_ops``; a result whose type changed reaches old users through a bridge."""
    ops = list(new_ops)
    results: list[SSAValue] = []
    for old, new in zip(op.results, values, strict=True):
        if old.type != new.type:
            bridge = UnrealizedConversionCastOp.get([new], [old.type])
            ops.append(bridge)
            new = bridge.results[0]
        results.append(new)
    rewriter.replace(op, ops, results)


class ConstantOpLowering(RewritePattern):
    """``arith.constant`` → ``llvm.mlir.constant``."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.ConstantOp) or not isinstance(op.value, IntegerAttr | FloatAttr):
            return
        constant = llvm.ConstantOp(op.value, llvm_type(op.result.type))
        _replace(rewriter, op, [constant], [constant.result])


_BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}
"""``arith`` ops with one ``llvm`` counterpart of the same operands."""


class BinaryOpLowering(RewritePattern):
    """``arith.addi/subi/muli/addf/subf/mulf/divf`` → their ``llvm`` op."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        target = next((llvm_op for arith_op, llvm_op in _BINARY.items() if isinstance(op, arith_op)), None)
        if target is None:
            return
        lhs, rhs = (_converted(operand, rewriter) for operand in op.operands)
        new = target(lhs, rhs)  # pyright: ignore[reportCallIssue]
        _replace(rewriter, op, [new], [new.results[0]])


class CmpIOpLowering(RewritePattern):
    """``arith.cmpi`` → ``llvm.icmp`` (the two number their predicates alike)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.CmpiOp):
            return
        lhs, rhs = _converted(op.lhs, rewriter), _converted(op.rhs, rewriter)
        new = llvm.ICmpOp(lhs, rhs, IntegerAttr(op.predicate.value.data, i64))
        _replace(rewriter, op, [new], [new.res])


class CmpFOpLowering(RewritePattern):
    """``arith.cmpf`` → ``llvm.fcmp`` (the two number their predicates alike)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.CmpfOp):
            return
        new = llvm.FCmpOp(op.lhs, op.rhs, IntegerAttr(op.predicate.value.data, i64))
        _replace(rewriter, op, [new], [new.res])


def _row_major_strides(shape: Sequence[int]) -> list[int]:
    return [math.prod(shape[i + 1 :]) for i in range(len(shape))]


def _static_memref(op: Operation, type_: Attribute) -> MemRefType[Attribute]:
    if not isa(type_, MemRefType[Attribute]) or any(size < 0 for size in type_.get_shape()):
        raise LegalizationError(f"'{op.name}' on {type_}: only memrefs of static shape are lowered")
    if not isinstance(type_.layout, NoneAttr):
        raise LegalizationError(f"'{op.name}' on {type_}: only the identity layout is lowered")
    return type_


class AllocOpLowering(RewritePattern):
    """``memref.alloc`` → ``malloc`` of the byte size, and the memref descriptor around it."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, memref.AllocOp) or op.dynamic_sizes or op.symbol_operands:
            return
        type_ = _static_memref(op, op.memref.type)
        shape = type_.get_shape()
        _declare(rewriter, _module_of(op), "malloc", llvm.LLVMFunctionType([i64], PTR))
        sizes = [_index_constant(size) for size in shape]
        one = _index_constant(1)
        total = _index_constant(math.prod(shape))
        null = llvm.ZeroOp(result_types=[PTR])
        end = llvm.GEPOp(null, [llvm.GEP_USE_SSA_VAL], type_.element_type, ssa_indices=[total])
        size_bytes = llvm.PtrToIntOp(end, i64)
        allocated = llvm.CallOp("malloc", size_bytes, return_type=PTR)
        ops: list[Operation] = [*sizes, one, total, null, end, size_bytes, allocated]
        descriptor: SSAValue = _append(ops, llvm.UndefOp(llvm_type(type_))).results[0]
        assert allocated.returned is not None
        offset = _index_constant(0)
        ops.append(offset)
        fields: list[tuple[tuple[int, ...], SSAValue]] = [
            ((0,), allocated.returned),
            ((1,), allocated.returned),
        ]
        fields.append(((2,), offset.result))
        fields += [((3, dim), sizes[dim].result) for dim in range(len(shape))]
        strides = _row_major_strides(shape)
        for dim, stride in enumerate(strides):
            value = one.result if stride == 1 else _append(ops, _index_constant(stride)).result
            fields.append(((4, dim), value))
        for position, value in fields:
            descriptor = _append(
                ops, llvm.InsertValueOp(DenseArrayBase.from_list(i64, position), descriptor, value)
            ).res
        _replace(rewriter, op, ops, [descriptor])


def _append(ops: list[Operation], op: OpT) -> OpT:
    ops.append(op)
    return op


def _element_pointer(
    rewriter: PatternRewriter, op: Operation, source: SSAValue, indices: Sequence[SSAValue]
) -> tuple[list[Operation], SSAValue]:
    """``getStridedElementPtr``: the aligned pointer of ``source``'s descriptor moved to ``indices``."""
    type_ = _static_memref(op, source.type)
    descriptor = _converted(source, rewriter)
    converted = [_converted(index, rewriter) for index in indices]
    aligned = llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [1]), descriptor, PTR)
    ops: list[Operation] = [aligned]
    linear: SSAValue | None = None
    for index, stride in zip(converted, _row_major_strides(type_.get_shape()), strict=True):
        term = index
        if stride != 1:
            factor = _append(ops, _index_constant(stride))
            term = _append(ops, llvm.MulOp(index, factor.result)).res
        linear = term if linear is None else _append(ops, llvm.AddOp(linear, term)).res
    if linear is None:
        return ops, aligned.res
    pointer = _append(
        ops, llvm.GEPOp(aligned, [llvm.GEP_USE_SSA_VAL], type_.element_type, ssa_indices=[linear])
    )
    return ops, pointer.result


class LoadOpLowering(RewritePattern):
    """``memref.load`` → ``llvm.load`` at the element's address."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, memref.LoadOp):
            return
        ops, pointer = _element_pointer(rewriter, op, op.memref, op.indices)
        load = llvm.LoadOp(pointer, op.res.type)
        _replace(rewriter, op, [*ops, load], [load.dereferenced_value])


class StoreOpLowering(RewritePattern):
    """``memref.store`` → ``llvm.store`` at the element's address."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, memref.StoreOp):
            return
        ops, pointer = _element_pointer(rewriter, op, op.memref, op.indices)
        rewriter.replace(op, [*ops, llvm.StoreOp(op.value, pointer)], [])


class DeallocOpLowering(RewritePattern):
    """``memref.dealloc`` → ``free`` of the allocated pointer."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, memref.DeallocOp):
            return
        _declare(rewriter, _module_of(op), "free", llvm.LLVMFunctionType([PTR]))
        descriptor = _converted(op.memref, rewriter)
        allocated = llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [0]), descriptor, PTR)
        rewriter.replace(op, [allocated, llvm.CallOp("free", allocated.res)], [])


class BranchOpLowering(RewritePattern):
    """``cf.br`` → ``llvm.br``."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, cf.BranchOp):
            return
        arguments = [_converted(argument, rewriter) for argument in op.arguments]
        rewriter.replace(op, llvm.BrOp(op.successor, *arguments), [])


class CondBranchOpLowering(RewritePattern):
    """``cf.cond_br`` → ``llvm.cond_br``."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, cf.ConditionalBranchOp):
            return
        then_arguments = [_converted(argument, rewriter) for argument in op.then_arguments]
        else_arguments = [_converted(argument, rewriter) for argument in op.else_arguments]
        new = llvm.CondBrOp(op.cond, op.then_block, then_arguments, op.else_block, else_arguments)
        rewriter.replace(op, new, [])


class FuncOpLowering(RewritePattern):
    """``func.func`` → ``llvm.func``; block arguments take their LLVM types behind bridges."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, func.FuncOp):
            return
        inputs = [llvm_type(type_) for type_ in op.function_type.inputs]
        outputs = op.function_type.outputs.data
        if len(outputs) > 1:
            raise LegalizationError(f"'{op.sym_name.data}' returns {len(outputs)} values; LLVM returns one")
        output = llvm_type(outputs[0]) if outputs else llvm.LLVMVoidType()
        body = rewriter.move_region_contents_to_new_regions(op.body)
        for block in body.blocks:
            for argument in list(block.args):
                target = llvm_type(argument.type)
                if target == argument.type:
                    continue
                old_type = argument.type
                new_argument = rewriter.replace_value_with_new_type(argument, target)
                bridge = UnrealizedConversionCastOp.get([new_argument], [old_type])
                rewriter.insert(bridge, InsertPoint.at_start(block))
                rewriter.replace_uses_with_if(new_argument, bridge.results[0], _not_used_by(bridge))
        visibility = op.sym_visibility.data if op.sym_visibility is not None else None
        new = llvm.FuncOp(
            op.sym_name,
            llvm.LLVMFunctionType(inputs, output),
            linkage=llvm.LinkageAttr("external"),
            sym_visibility=visibility if visibility != "public" else None,
            body=body,
        )
        rewriter.replace(op, new, [])


def _not_used_by(op: Operation) -> Callable[[Use], bool]:
    return lambda use: use.operation is not op


class ReturnOpLowering(RewritePattern):
    """``func.return`` → ``llvm.return``."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, func.ReturnOp):
            return
        values = [_converted(argument, rewriter) for argument in op.arguments]
        rewriter.replace(op, llvm.ReturnOp(*values), [])


class ReconcileUnrealizedCasts(RewritePattern):
    """MLIR's ``reconcile-unrealized-casts``: an unused bridge goes, a round trip is its source."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, UnrealizedConversionCastOp):
            return
        if all(not result.uses for result in op.results):
            rewriter.erase(op)
            return
        source = op.inputs[0].owner if len(op.inputs) == 1 else None
        if (
            isinstance(source, UnrealizedConversionCastOp)
            and len(source.inputs) == 1
            and source.inputs[0].type == op.results[0].type
        ):
            rewriter.replace(op, [], [source.inputs[0]])


TO_LLVM: tuple[type[RewritePattern], ...] = (
    FuncOpLowering,
    ReturnOpLowering,
    ConstantOpLowering,
    BinaryOpLowering,
    CmpIOpLowering,
    CmpFOpLowering,
    AllocOpLowering,
    DeallocOpLowering,
    LoadOpLowering,
    StoreOpLowering,
    BranchOpLowering,
    CondBranchOpLowering,
)
"""Stage 4's patterns: arith, memref, cf and func to llvm."""


class ToyLowerToLLVM(TracedPass):
    """Lower affine-level Toy IR to the LLVM dialect, as the tutorial's chapter 6, op by op.

    ``toy.print`` becomes ``printf`` loops, affine becomes scf then cf, and
    arith, memref, cf and func become ``llvm``; each pattern application is a
    step."""

    name = "toy-lower-to-llvm"

    announces_every_edit: ClassVar[bool] = False

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        stages: list[list[RewritePattern]] = [
            [PrintOpLowering()],
            affine_patterns(),
            [IfLowering(), ForLowering(), SwitchLowering()],
            [pattern() for pattern in TO_LLVM],
            [ReconcileUnrealizedCasts()],
        ]
        for patterns in stages:
            named: list[RewritePattern] = [NamedPattern(pattern, recorder) for pattern in patterns]
            # MLIR's conversion erases no dead op: the last stage reconciles the bridges
            recorder.walker(GreedyRewritePatternApplier(named, dce_enabled=False)).rewrite_module(op)
        illegal = next((inner for inner in op.walk() if inner is not op and not _legal(inner)), None)
        if illegal is not None:
            raise LegalizationError(f"failed to legalize operation '{illegal.name}'")


def _legal(op: Operation) -> bool:
    return op.name.startswith("llvm.")
