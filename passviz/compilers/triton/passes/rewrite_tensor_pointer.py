"""``triton-rewrite-tensor-pointer`` (Triton 3.6's ``RewriteTensorPointer``).

Block pointers (``tt.make_tensor_ptr``, ``tt.advance``) become plain tensors
of pointers: each block pointer is remembered as its base, shape, strides and
``i64`` offsets, loop-carried and ``scf.if``-returned block pointers become
their offsets, and each ``tt.load``/``tt.store`` through one gets a tensor of
pointers, a bounds-check mask and a padding value built in front of it.

Like Triton's pass this is a hand-written walk, not a pattern driver: ops are
visited in order (ops created in front of the visited one are not visited),
a rewritten ``scf.for``/``scf.if`` is rebuilt with a cloned body that is then
visited in turn, and the replaced ops are erased at the end, last replaced
first.  Each rewrite and each erasure is one trace step.

Reference: ``lib/Dialect/Triton/Transforms/RewriteTensorPointer.cpp`` and
``getMakeTensorPtrOp`` in ``lib/Dialect/Triton/IR/Utility.cpp``
(triton-lang/triton, 3.6).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from xdsl.context import Context
from xdsl.dialects import arith, cf, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.traits import CallableOpInterface

from passviz.compilers.triton.dialects import tt
from passviz.ir.hints import isa
from passviz.recording.interface import StepRecorder
from passviz.rewrite.rewriter_pass import RewriterPass

_REGION_BRANCH_OPS = (
    scf.IfOp,
    scf.ForOp,
    scf.WhileOp,
    scf.ExecuteRegionOp,
    scf.IndexSwitchOp,
    scf.ParallelOp,
)
"""The ``RegionBranchOpInterface`` ops whose results ``getMakeTensorPtrOp`` follows into a yield."""

_CMPI_PREDICATES = {"sge": 5, "slt": 2}
"""``arith.cmpi`` predicates the bounds check uses, by keyword."""

_OpT = TypeVar("_OpT", bound=Operation)


def is_tensor_pointer(type_: Attribute) -> bool:
    """Whether ``type_`` is a block pointer, ``!tt.ptr<tensor<...>>`` (``isTensorPointerType``)."""
    return isinstance(type_, tt.PointerType) and isinstance(type_.pointee_type, TensorType)


@dataclass(frozen=True)
class BlockPointer:
    """What a block pointer value stands for (Triton's ``RewritedInfo``)."""

    base: SSAValue
    """The scalar ``!tt.ptr`` the block starts from."""
    shape: tuple[SSAValue, ...]
    """The ``i64`` extent of each dimension, for bounds checks."""
    strides: tuple[SSAValue, ...]
    """The ``i64`` stride of each dimension."""
    offsets: tuple[SSAValue, ...]
    """The ``i64`` offset of the block in each dimension."""
    tensor_shape: tuple[int, ...]
    """The shape of the block."""

    def with_offsets(self, offsets: Sequence[SSAValue]) -> BlockPointer:
        """The same block pointer at other offsets."""
        return replace(self, offsets=tuple(offsets))


@dataclass
class _AccessBuilder:
    """Builds the pointers, mask and padding of one load or store through a block pointer.

    The offset-plus-range tensor of a dimension is built once and shared by
    the pointers and the mask, as Triton's per-access cache does.
    """

    ctx: Context
    """Where the ``arith`` op classes come from."""
    info: BlockPointer
    """The block pointer accessed."""
    rewriter: PatternRewriter
    """Inserts in front of the access."""
    _ranges: dict[int, SSAValue] = field(default_factory=dict[int, SSAValue])
    """Expanded offset-plus-range tensor of each dimension built so far."""

    def _create(self, op: Operation) -> SSAValue:
        """Insert ``op`` in front of the access; its result."""
        return self.rewriter.insert(op).results[0]

    def offset_with_range(self, dim: int) -> SSAValue:
        """``offset + [0, size)`` of dimension ``dim``, expanded to the block's rank."""
        if dim in self._ranges:
            return self._ranges[dim]
        size = self.info.tensor_shape[dim]
        row = TensorType(i64, [size])
        splat = self._create(tt.SplatOp(self.info.offsets[dim], row))
        range_ = self._create(tt.MakeRangeOp(0, size))
        wide_range = self._create(_extsi(self.ctx, range_, row))
        expanded = self._create(arith.AddiOp(splat, wide_range))
        for axis in range(len(self.info.tensor_shape)):
            if axis != dim:
                expanded = self._create(tt.ExpandDimsOp(expanded, axis))
        self._ranges[dim] = expanded
        return expanded

    def pointers(self) -> SSAValue:
        """The tensor of pointers: base plus offset times stride, dimension by dimension."""
        shape = self.info.tensor_shape
        pointers = self._create(tt.SplatOp(self.info.base, TensorType(self.info.base.type, shape)))
        for dim, stride in enumerate(self.info.strides):
            offset = self.offset_with_range(dim)
            # Splatting the stride to the expanded shape, not a row, keeps its divisibility.
            scaled = self._create(arith.MuliOp(offset, self._create(tt.SplatOp(stride, offset.type))))
            broadcast = self._create(tt.BroadcastOp(scaled, TensorType(i64, shape)))
            pointers = self._create(tt.AddPtrOp(pointers, broadcast))
        return pointers

    def mask(self, boundary_check: Sequence[int]) -> SSAValue | None:
        """``0 <= offset < shape`` in each checked dimension, and-ed; None if none is checked."""
        mask: SSAValue | None = None
        for dim in boundary_check:
            offset = self.offset_with_range(dim)
            zero = self._create(arith.ConstantOp(IntegerAttr(0, i64)))
            lower = self._create(_cmpi(self.ctx, "sge", offset, self._create(tt.SplatOp(zero, offset.type))))
            bound = self._create(tt.SplatOp(self.info.shape[dim], offset.type))
            upper = self._create(_cmpi(self.ctx, "slt", offset, bound))
            in_bounds = self._create(arith.AndIOp(lower, upper))
            broadcast = self._create(tt.BroadcastOp(in_bounds, TensorType(i1, self.info.tensor_shape)))
            mask = broadcast if mask is None else self._create(arith.AndIOp(mask, broadcast))
        return mask

    def other(self, padding: tt.PaddingOption | None) -> SSAValue | None:
        """The splat padding value of a load, zero or NaN; None without padding."""
        if padding is None:
            return None
        base_type = self.info.base.type
        assert isinstance(base_type, tt.PointerType)
        element = base_type.pointee_type
        constant = arith.ConstantOp(_padding_value(element, padding))
        return self._create(tt.SplatOp(self._create(constant), TensorType(element, self.info.tensor_shape)))


def _padding_value(element: Attribute, padding: tt.PaddingOption) -> IntegerAttr | FloatAttr:
    """The scalar a padded element holds (``getZeroAttr``, or a quiet NaN)."""
    if isa(element, IntegerType) or isinstance(element, IndexType):
        if padding == tt.PaddingOption.PAD_NAN:
            raise ValueError(f"padding = nan needs a float element type, not {element}")
        return IntegerAttr(0, element)
    if not isinstance(element, AnyFloat):
        raise ValueError(f"no padding value for elements of type {element}")
    return FloatAttr(math.nan if padding == tt.PaddingOption.PAD_NAN else 0.0, element)


def _extsi(ctx: Context, value: SSAValue, type_: Attribute) -> Operation:
    """An ``arith.extsi`` of ``value`` to ``type_`` (an integer or a tensor of them).

    The op class is the context's, not xDSL's scalar-only one, so that a
    tensor-aware ``arith`` registered by passviz verifies it.
    """
    return ctx.get_op("arith.extsi").create(operands=[value], result_types=[type_])


def _cmpi(ctx: Context, predicate: str, lhs: SSAValue, rhs: SSAValue) -> Operation:
    """An ``arith.cmpi`` whose result is shaped like its operands (class as in ``_extsi``)."""
    return ctx.get_op("arith.cmpi").create(
        operands=[lhs, rhs],
        result_types=[tt.get_i1_same_shape(lhs.type)],
        properties={"predicate": IntegerAttr(_CMPI_PREDICATES[predicate], 64)},
    )


def make_tensor_ptr_of(value: SSAValue) -> tt.MakeTensorPtrOp:
    """The ``tt.make_tensor_ptr`` a block pointer comes from (``getMakeTensorPtrOp``).

    Follows ``tt.advance`` chains, ``scf`` results into their first yield
    (walked in post-order), ``scf.for`` arguments into their initial value,
    and function-block arguments into the first branch to their block.
    """
    if isinstance(value, OpResult):
        op = value.op
        if isinstance(op, tt.MakeTensorPtrOp):
            return op
        if isinstance(op, tt.AdvanceOp):
            return make_tensor_ptr_of(op.ptr)
        if isinstance(op, _REGION_BRANCH_OPS):
            yields = [y for y in op.walk(region_first=True) if isinstance(y, scf.YieldOp)]
            if yields:
                return make_tensor_ptr_of(yields[0].operands[value.index])
        raise ValueError(f"cannot find the tt.make_tensor_ptr of a result of {op.name}")
    assert isinstance(value, BlockArgument)
    owner = value.block.parent_op()
    if isinstance(owner, scf.ForOp):
        return make_tensor_ptr_of(owner.iter_args[value.index - 1])
    if owner is not None and owner.has_trait(CallableOpInterface):
        incoming = _branch_operand_into(value)
        if incoming is not None:
            return make_tensor_ptr_of(incoming)
    raise ValueError(f"cannot find the tt.make_tensor_ptr of block argument #{value.index}")


def _branch_operand_into(arg: BlockArgument) -> SSAValue | None:
    """The operand the first branch (in module order) to ``arg``'s block passes for it."""
    module = arg.block.parent_op()
    while module is not None and not isinstance(module, ModuleOp):
        module = module.parent_op()
    if module is None:
        return None
    for op in module.walk():
        if isinstance(op, cf.BranchOp) and op.successor is arg.block:
            return op.arguments[arg.index]
        if isinstance(op, cf.ConditionalBranchOp):
            if op.then_block is arg.block:
                return op.then_arguments[arg.index]
            if op.else_block is arg.block:
                return op.else_arguments[arg.index]
    return None


def _expand(values: Sequence[SSAValue], infos: dict[SSAValue, BlockPointer]) -> list[SSAValue]:
    """``values`` with each block pointer replaced by its offsets (``generateNewOperands``)."""
    expanded: list[SSAValue] = []
    for value in values:
        if is_tensor_pointer(value.type):
            expanded.extend(_info_of(value, infos).offsets)
        else:
            expanded.append(value)
    return expanded


def _info_of(value: SSAValue, infos: dict[SSAValue, BlockPointer]) -> BlockPointer:
    """The block pointer ``value`` stands for; an error if it was never rewritten."""
    info = infos.get(value)
    if info is None:
        owner = value.op.name if isinstance(value, OpResult) else "a block argument"
        raise ValueError(f"block pointer ({owner}) not built by a tt.make_tensor_ptr seen before")
    return info


@dataclass
class _TensorPointerRewrite:
    """One run of the pass over a module (the state of Triton's pass object)."""

    ctx: Context
    """Where the ``arith`` op classes come from."""
    recorder: StepRecorder
    """Makes each rewrite and each erasure one trace step."""
    rewriter: PatternRewriter
    """The recorder's rewriter: every edit goes through it."""
    infos: dict[SSAValue, BlockPointer] = field(default_factory=dict[SSAValue, BlockPointer])
    """The block pointer each rewritten pointer value stands for (``rewritedInfo``)."""
    replaced: list[Operation] = field(default_factory=list[Operation])
    """Ops to erase at the end, in the order they were replaced (``eraser``)."""

    def run(self, module: ModuleOp) -> None:
        """Rewrite every block pointer in ``module``, then erase what was replaced."""
        self.visit(module)
        # Replaced ops may still be used by later replaced ones: erase last-replaced first.
        self.infos.clear()
        for op in reversed(self.replaced):
            with self.recorder.step(f"erase {op.name}", root=op):
                self.rewriter.erase(op)

    def visit(self, op: Operation) -> None:
        """Rewrite the ops nested in ``op``, in order (``visitOperation``)."""
        for region in op.regions:
            for block in region.blocks:
                nested = block.first_op
                while nested is not None:
                    following = nested.next_op
                    visit_next = self.rewrite(nested)
                    if visit_next is not None:
                        self.visit(visit_next)
                    nested = following

    def rewrite(self, op: Operation) -> Operation | None:
        """Rewrite ``op`` if it handles block pointers; the op whose regions to visit next, if any."""
        if isinstance(op, tt.MakeTensorPtrOp):
            return self._step(op, self.rewrite_make_tensor_ptr)
        if isinstance(op, tt.AdvanceOp):
            return self._step(op, self.rewrite_advance)
        if isinstance(op, tt.LoadOp | tt.StoreOp):
            if is_tensor_pointer(op.ptr.type):
                self._step(op, self.rewrite_load_store)
            return None
        if op.dialect_name() not in ("scf", "cf"):
            return op
        if isinstance(op, scf.IfOp):
            if not any(is_tensor_pointer(v.type) for v in _then_yield(op).operands):
                return op
            return self._step(op, self.rewrite_if)
        if not any(is_tensor_pointer(v.type) for v in op.operands):
            return op
        if isinstance(op, scf.ForOp):
            return self._step(op, self.rewrite_for)
        if isinstance(op, scf.YieldOp):
            return self._step(op, self.rewrite_yield)
        raise ValueError(
            f"{op.name} uses a block pointer: only scf.for and scf.if may carry block pointers "
            "(scf.while, cf.br and cf.cond_br are not supported)"
        )

    def _step(self, op: _OpT, rewrite: Callable[[_OpT], Operation | None]) -> Operation | None:
        """Run ``rewrite`` on ``op`` as one trace step, inserting in front of ``op``."""
        with self.recorder.step(f"rewrite {op.name}", root=op):
            self.rewriter.insertion_point = InsertPoint.before(op)
            return rewrite(op)

    def _create(self, op: Operation) -> SSAValue:
        """Insert ``op`` at the insertion point; its result."""
        return self.rewriter.insert(op).results[0]

    def rewrite_make_tensor_ptr(self, op: tt.MakeTensorPtrOp) -> None:
        """Record the block pointer, its ``i32`` offsets sign-extended to ``i64``."""
        pointer_type = op.result.type
        assert isinstance(pointer_type, tt.PointerType)
        block_type = pointer_type.pointee_type
        assert isa(block_type, TensorType[Attribute])
        offsets = [self._create(_extsi(self.ctx, offset, i64)) for offset in op.offsets]
        self.infos[op.result] = BlockPointer(
            op.base, tuple(op.shape), tuple(op.strides), tuple(offsets), block_type.get_shape()
        )
        self.replaced.append(op)

    def rewrite_advance(self, op: tt.AdvanceOp) -> None:
        """Add the advance's offsets, sign-extended, to the block pointer's."""
        info = _info_of(op.ptr, self.infos)
        if len(op.offsets) != len(info.offsets):
            raise ValueError(f"tt.advance has {len(op.offsets)} offsets for a rank-{len(info.offsets)} block")
        offsets: list[SSAValue] = []
        for old, delta in zip(info.offsets, op.offsets, strict=True):
            offsets.append(self._create(arith.AddiOp(old, self._create(_extsi(self.ctx, delta, i64)))))
        self.infos[op.result] = info.with_offsets(offsets)
        self.replaced.append(op)

    def rewrite_load_store(self, op: tt.LoadOp | tt.StoreOp) -> None:
        """Load or store through a tensor of pointers, masked and padded as the block pointer implied."""
        if op.mask is not None or (isinstance(op, tt.LoadOp) and op.other is not None):
            raise ValueError(f"{op.name} through a block pointer cannot have a mask or other value")
        access = _AccessBuilder(self.ctx, _info_of(op.ptr, self.infos), self.rewriter)
        pointers = access.pointers()
        boundary_check = op.boundary_check.get_values() if op.boundary_check is not None else ()
        mask = access.mask(boundary_check)
        cache = tt.CacheModifier.from_attr(op.cache)
        evict = tt.EvictionPolicy.from_attr(op.evict)
        if isinstance(op, tt.StoreOp):
            self.rewriter.insert(tt.StoreOp(pointers, op.value, mask, cache=cache, evict=evict))
        else:
            other = access.other(tt.PaddingOption.from_attr(op.padding))
            volatile = None if op.is_volatile is None else op.is_volatile_flag
            load = tt.LoadOp(pointers, mask, other, cache=cache, evict=evict, is_volatile=volatile)
            self.rewriter.replace_all_uses_with(op.result, self._create(load))
        self.replaced.append(op)

    def rewrite_if(self, op: scf.IfOp) -> Operation:
        """Rebuild the ``scf.if`` returning offsets in place of block pointers, with cloned bodies."""
        yielded = _then_yield(op).operands
        infos = [
            self.infos.get(make_tensor_ptr_of(v).result) if is_tensor_pointer(v.type) else None
            for v in yielded
        ]
        result_types: list[Attribute] = []
        for value, info in zip(yielded, infos, strict=True):
            if is_tensor_pointer(value.type):
                if info is None:
                    raise ValueError(
                        "scf.if yields a block pointer made inside it, which cannot be rewritten"
                    )
                result_types.extend([i64] * len(info.offsets))
            else:
                result_types.append(value.type)
        has_else = bool(op.false_region.blocks)
        new_if = scf.IfOp(op.cond, result_types, Region(Block()), Region(Block()) if has_else else Region())
        self.rewriter.insert(new_if)
        mapping: dict[SSAValue, SSAValue] = {op.cond: new_if.cond}
        self._clone_ops(op.true_region.block, new_if.true_region.block, mapping)
        if has_else:
            self._clone_ops(op.false_region.block, new_if.false_region.block, mapping)
        results = iter(new_if.results)
        for old, info in zip(op.results, infos, strict=True):
            if info is None:
                self.rewriter.replace_all_uses_with(old, next(results))
            else:
                self.infos[old] = info.with_offsets([next(results) for _ in info.offsets])
        self.replaced.append(op)
        return new_if

    def rewrite_for(self, op: scf.ForOp) -> Operation:
        """Rebuild the ``scf.for`` carrying offsets in place of block pointers, with a cloned body."""
        inits = tuple(op.iter_args)
        new_inits = _expand(inits, self.infos)
        old_body = op.body.block
        body = Block(arg_types=[old_body.args[0].type, *(v.type for v in new_inits)])
        new_for = scf.ForOp(op.lb, op.ub, op.step, new_inits, body)
        new_for.attributes = dict(op.attributes)
        new_for.properties = dict(op.properties)
        self.rewriter.insert(new_for)
        # A block pointer argument maps to itself: its uses are rewritten from its offsets.
        mapping: dict[SSAValue, SSAValue] = {old_body.args[0]: body.args[0]}
        new_args = iter(body.args[1:])
        for old_arg, init in zip(old_body.args[1:], inits, strict=True):
            if is_tensor_pointer(old_arg.type):
                info = _info_of(init, self.infos)
                self.infos[old_arg] = info.with_offsets([next(new_args) for _ in info.offsets])
            else:
                new_arg = next(new_args)
                new_arg.name_hint = old_arg.name_hint
                mapping[old_arg] = new_arg
        body.args[0].name_hint = old_body.args[0].name_hint
        self._clone_ops(old_body, body, mapping)
        new_results = iter(new_for.results)
        for old, init in zip(op.results, inits, strict=True):
            if is_tensor_pointer(old.type):
                info = _info_of(init, self.infos)
                self.infos[old] = info.with_offsets([next(new_results) for _ in info.offsets])
            else:
                self.rewriter.replace_all_uses_with(old, next(new_results))
        self.replaced.append(op)
        return new_for

    def rewrite_yield(self, op: scf.YieldOp) -> None:
        """Yield the offsets of each block pointer in its place."""
        op.operands = _expand(op.operands, self.infos)
        self.rewriter.notify_op_modified(op)

    def _clone_ops(self, source: Block, target: Block, mapping: dict[SSAValue, SSAValue]) -> None:
        """Clone ``source``'s ops to the end of ``target``, extending ``mapping`` (``builder.clone``)."""
        for op in source.ops:
            self.rewriter.insert(op.clone(value_mapper=mapping), InsertPoint.at_end(target))


def _then_yield(op: scf.IfOp) -> scf.YieldOp:
    """The ``scf.yield`` ending the then-region of ``op`` (``thenYield``)."""
    terminator = op.true_region.block.last_op
    assert isinstance(terminator, scf.YieldOp)
    return terminator


@dataclass(frozen=True)
class RewriteTensorPointer(RewriterPass):
    """Rewrite block pointers into tensors of pointers, masks and padding values."""

    name = "triton-rewrite-tensor-pointer"

    def rewrite(self, ctx: Context, op: ModuleOp, recorder: StepRecorder, rewriter: PatternRewriter) -> None:
        _TensorPointerRewrite(ctx, recorder, rewriter).run(op)
