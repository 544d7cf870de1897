"""``iree-dispatch-creation-form-dispatch-regions`` and
``iree-dispatch-creation-clone-producers-into-dispatch-regions``: IREE 3.13's
``FormDispatchRegionsPass`` (``DispatchCreation/FormDispatchRegions.cpp``, with
``wrapOpInDispatchRegion`` and ``movePrecedingOpsIntoDispatchRegion`` of
``Flow/Transforms/RegionOpUtils.cpp``) and ``CloneProducersIntoDispatchRegionsPass``,
without aggressive fusion and data tiling (``fuse-pad-with-consumers`` and
``fuse-pad-with-producers`` are built).

Form dispatch regions works in two phases, as IREE does:

1. **Decide.**  Walking each function's block from its end, every *root* (a
   named linalg op but ``linalg.fill``, a ``linalg.generic`` with a reduction
   loop, ``linalg.softmax``) opens a fusion group and pulls in producers of
   its inits; then each root, first first, tries its single consumer: an all-
   parallel linalg op whose loops line up with the root's becomes the group's
   new root (a convolution only where its result could reuse the consumer's
   init buffer).  Linalg ops left over get groups of their own.  Each decision
   is a step of its own, changing nothing: ``Root``, ``FuseWithProducer``,
   ``FuseWithConsumer`` and, for a fusion refused, ``NoFusion: <reason>``.
2. **Form.**  Per group, the root is wrapped in a ``flow.dispatch.region``
   (``WrapInDispatchRegion``) and its producers move in before it, last first
   (``MoveIntoDispatchRegion``); each step's ``dispatch`` field lists every
   region's ops.  Where consumers joined, the wrap first sizes the results of
   the group's first root that only they use, as IREE does when it wraps that
   root with its consumers still outside (the ops it makes stay dead).

Then, like IREE 3.13's pass, the function is folded and cleaned (dead ops and
regions erased, constants hoisted to its top), each change a step.

Clone producers copies into each region the cheap ops it uses from outside
(``tensor.empty``, ``linalg.fill``, small constants, ...): one
``CloneProducersIntoDispatchRegion`` step per region.  Then, as IREE 3.13 does,
the ops left dead go (one ``erase-dead-op`` step each), each ``linalg.generic``
still outside a dispatch is wrapped in one of its own, and the cloning runs
again for those.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    DenseIntOrFPElementsAttr,
    FixedBitwidthType,
    IndexType,
    IntegerAttr,
    ModuleOp,
    TensorType,
)
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import FillOp, IndexOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free
from xdsl.transforms.dead_code_elimination import is_trivially_dead
from xdsl.utils.exceptions import PassFailedException

from passviz.compilers.iree.dialects import flow
from passviz.compilers.iree.passes.dispatch_common import (
    dispatch_regions,
    dps_inits,
    is_inside,
    nested_in,
    record_decision,
    record_no_fusion,
    replace_uses_within,
    result_dims_of,
    tied_operand,
    used_values_defined_above,
)
from passviz.compilers.iree.passes.dispatch_workgroups import EraseDeadLinalgOp
from passviz.compilers.iree.passes.elementwise_op_fusion import outside_dispatch
from passviz.compilers.iree.structured import (
    is_convolution,
    is_leftover_candidate,
    loop_iterators,
    operand_maps,
    root_reason,
)
from passviz.compilers.mlir.canonicalization.builders import dim_ops
from passviz.compilers.mlir.dialects import affine
from passviz.compilers.mlir.dialects.linalg import GenericOp, SoftmaxOp, is_structured
from passviz.compilers.mlir.passes.canonicalize import apply_patterns_greedily
from passviz.compilers.mlir.version import behaves_as_iree
from passviz.ir.hints import isa
from passviz.ir.locations import located
from passviz.recording.interface import StepRecorder, TracedPass
from passviz.rewrite.greedy import DEFAULT
from passviz.rewrite.matchers import int_or_float_width


def static_loop_ranges(op: Operation) -> list[int] | None:
    """``getStaticLoopRanges``: each loop's size where an operand dimension indexed by it alone
    is static (``DYNAMIC_INDEX`` otherwise)."""
    maps = indexing_maps(op)
    loops = iterator_types(op)
    if maps is None or loops is None:
        return None
    ranges = [DYNAMIC_INDEX] * len(loops)
    for operand, map_ in zip(op.operands, maps, strict=False):
        shape = operand.type.get_shape() if isa(operand.type, TensorType[Attribute]) else ()
        for expr, size in zip(map_.results, shape, strict=False):
            if isinstance(expr, AffineDimExpr) and ranges[expr.position] == DYNAMIC_INDEX:
                ranges[expr.position] = size
    return ranges


class FoldUnitLinalgIndex(RewritePattern):
    """MLIR's ``linalg.index`` folder: the index of a loop of size 1 is always 0."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        parent = op.parent_op()
        if not isinstance(op, IndexOp) or parent is None:
            return
        ranges = static_loop_ranges(parent)
        if ranges is None or op.dim.value.data >= len(ranges) or ranges[op.dim.value.data] != 1:
            return
        rewriter.replace(op, arith.ConstantOp(IntegerAttr(0, IndexType())))


def _effect_free(op: Operation) -> bool:
    """Whether ``op`` and everything in it only make values (linalg ops on tensors included)."""
    for inner in op.walk():
        if isinstance(inner, flow.ReturnOp | flow.DispatchRegionOp):
            continue
        inits = dps_inits(inner)
        if inits is not None and all(isa(i.type, TensorType[Attribute]) for i in inits):
            continue
        if not is_side_effect_free(inner):
            return False
    return True


class EraseDeadDispatchRegion(RewritePattern):
    """A ``flow.dispatch.region`` whose results no one uses goes, as MLIR erases an op with
    recursive memory effects whose body has none."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, flow.DispatchRegionOp) or any(r.uses for r in op.results):
            return
        if _effect_free(op):
            rewriter.erase(op)


_DEAD_LINALG = (EraseDeadLinalgOp(),)
_DEAD_REGION = (EraseDeadDispatchRegion(),)
_UNIT_INDEX = (FoldUnitLinalgIndex(),)


def _cleanup(op: Operation) -> Sequence[RewritePattern]:
    """The patterns of the pass's closing cleanup: folding only (``linalg.index`` included),
    and dead linalg ops and dispatch regions erased."""
    if isinstance(op, IndexOp):
        return _UNIT_INDEX
    if isinstance(op, flow.DispatchRegionOp):
        return _DEAD_REGION
    return _DEAD_LINALG if dps_inits(op) is not None else ()


INLINE_CONSTANT_BYTES = 256
"""IREE's ``--iree-flow-inline-constants-max-byte-length``: larger constants stay out of dispatches."""


# ===----------------------------------------------------------------------=== #
# What ops are: IREE's op characterizations
# ===----------------------------------------------------------------------=== #


def _functions(module: ModuleOp) -> list[Operation]:
    """The function-like ops (``util.func``, ``func.func``) at the module's top with a body."""
    return [
        op for op in module.body.block.ops if op.name in ("util.func", "func.func") and op.regions[0].blocks
    ]


iterator_types = loop_iterators
"""A linalg op's loops (structured or tileable), or None: ``structured.loop_iterators``."""

indexing_maps = operand_maps
"""A linalg op's indexing maps, one per operand: ``structured.operand_maps``."""


def _operand_map(op: Operation, index: int) -> AffineMap | None:
    maps = indexing_maps(op)
    return maps[index] if maps is not None and index < len(maps) else None


def _result_map(op: Operation, result: OpResult) -> AffineMap | None:
    """``getIndexingMapMatchingResult``: the map of the init the result comes from."""
    inits = dps_inits(op)
    if inits is None:
        return None
    return _operand_map(op, len(op.operands) - len(inits) + result.index)


def is_bit_extend(op: Operation) -> bool:
    """IREE's ``isBitExtendOp``: an all-parallel generic with one init whose element type is
    wider than that of its widest highest-rank input (and no ``math`` op in its body)."""
    if not isinstance(op, GenericOp) or len(op.outputs) != 1:
        return False
    if any(kind != IteratorType.PARALLEL for kind in iterator_types(op) or []):
        return False
    inputs = [v.type for v in op.inputs if isa(v.type, TensorType[Attribute])]
    ranked = [t for t in inputs if isa(t, TensorType[Attribute])]
    if not ranked:
        return False
    top = max(len(t.get_shape()) for t in ranked)
    if top == 0:
        return False
    widths = [int_or_float_width(t.get_element_type()) for t in ranked if len(t.get_shape()) == top]
    if any(w is None for w in widths):
        return False
    input_width = max(w for w in widths if w is not None)
    output = op.results[0].type
    if not isa(output, TensorType[Attribute]):
        return False
    output_width = int_or_float_width(output.get_element_type())
    if output_width is None or input_width >= output_width:
        return False
    return not any(inner.dialect_name() == "math" for inner in op.body.block.ops)


def is_convolution_like(op: Operation) -> bool:
    """MLIR's ``isaConvolutionOpInterface`` for a ``linalg.generic``, roughly: two inputs and
    one init, a multiply-accumulate body, and an input indexed by a sum of loops (``d1 + d4``)."""
    if not isinstance(op, GenericOp) or len(op.inputs) != 2 or len(op.outputs) != 1:
        return False
    body = [inner for inner in op.body.block.ops]
    if len(body) != 3 or not isinstance(body[0], arith.MulfOp | arith.MuliOp):
        return False
    if not isinstance(body[1], arith.AddfOp | arith.AddiOp):
        return False
    maps = indexing_maps(op) or []
    return any(isinstance(expr, AffineBinaryOpExpr) for expr in maps[0].results) if maps else False


def is_root(op: Operation) -> bool:
    """IREE's ``isRootLikeOp``: not a bit extension (cloned into its consumers instead), and a
    root as its loops say (``structured.root_reason``)."""
    return not is_bit_extend(op) and root_reason(op) is not None


def _why_root(op: Operation) -> str:
    return root_reason(op) or "a root"


def is_clonable(op: Operation) -> bool:
    """IREE's ``isClonableIntoDispatchOp``: cheap ops every dispatch may recompute."""
    if isinstance(op, tensor.EmptyOp | FillOp | tensor.CastOp | tensor.ExtractOp | tensor.ExtractSliceOp):
        return True
    if op.name in ("affine.apply", "arith.index_cast", "complex.create"):
        return True
    if is_bit_extend(op):
        return True
    if isinstance(op, arith.ConstantOp):
        value = op.value
        if isinstance(value, DenseIntOrFPElementsAttr):
            type_ = value.get_type()
            assert isa(type_, TensorType[Attribute])
            count = 1
            for size in type_.get_shape():
                count *= size
            element = type_.get_element_type()
            width = element.bitwidth if isinstance(element, FixedBitwidthType) else 64
            splat = len(set(value.get_values())) <= 1
            return splat or count * width // 8 <= INLINE_CONSTANT_BYTES
        result = op.result.type
        if isa(result, TensorType[Attribute]):
            # A resource or other opaque elements attribute: judged by its size alone.
            element = result.get_element_type()
            width = element.bitwidth if isinstance(element, FixedBitwidthType) else 64
            count = 1
            for size in result.get_shape():
                count *= size
            return count * width // 8 <= INLINE_CONSTANT_BYTES
        return True
    scalars = [v.type for v in (*op.operands, *op.results)]
    return bool(op.results) and all(_int_or_float(t) for t in scalars)


def _int_or_float(type_: Attribute) -> bool:
    return type_.name in ("integer_type", "f16", "f32", "f64", "bf16") or type_.name.startswith("f")


# ===----------------------------------------------------------------------=== #
# Loop compatibility (hasCompatibleOuterParallelLoops and friends)
# ===----------------------------------------------------------------------=== #


PACK_LIKE = ("iree_encoding.set_encoding", "tensor.pack")
"""IREE's ``isPackLikeOp``: consumers that fuse with the linalg op producing their source."""


def outer_parallel(op: Operation) -> list[bool]:
    """``getOuterParallelLoops``: per loop, whether it is parallel and all before it are."""
    if op.name in ("iree_encoding.set_encoding", "iree_encoding.unset_encoding"):
        result = op.results[0].type
        assert isa(result, TensorType[Attribute])
        return [True] * len(result.get_shape())
    loops = iterator_types(op) or []
    bits = [False] * len(loops)
    for index, kind in enumerate(loops):
        if kind != IteratorType.PARALLEL:
            break
        bits[index] = True
    return bits


def _match_iterators(root: list[bool], candidate: list[bool]) -> bool:
    if not all(candidate):
        return root == candidate
    for position, parallel in enumerate(root):
        if not parallel:
            break
        if position >= len(candidate) or not candidate[position]:
            return False
    return True


def _identity_with_zeros(map_: AffineMap) -> bool:
    if map_.num_symbols or not map_.results:
        return False
    seen = 0
    for expr in map_.results:
        if isinstance(expr, AffineDimExpr):
            if expr.position != seen:
                return False
            seen += 1
        elif isinstance(expr, AffineConstantExpr):
            if expr.value != 0:
                return False
        else:
            return False
    return seen == map_.num_dims


def _project(map_: AffineMap, projected: list[bool]) -> AffineMap:
    """MLIR's ``getProjectedMap``: projected dims become 0, the others are renumbered."""
    replacements: list[AffineExpr] = []
    kept = 0
    for drop in projected:
        if drop:
            replacements.append(AffineConstantExpr(0))
        else:
            replacements.append(AffineDimExpr(kept))
            kept += 1
    return map_.replace_dims_and_symbols(replacements, [], kept, map_.num_symbols)


def _compatible(op: Operation, map_: AffineMap, root_loops: list[bool]) -> bool:
    if not map_.is_projected_permutation():
        return False
    if not map_.results:
        # A rank-0 value (a dot's result): ``getRootParallelLoopToOpMap`` composes an all-zero
        # map, which it accepts only where the root has no parallel loop to map.
        return not any(root_loops)
    if not _match_iterators(root_loops, outer_parallel(op)):
        return False
    loops = len(iterator_types(op) or [])
    projected = [not bit for bit in root_loops]
    projected = (projected + [True] * loops)[:loops]
    return _identity_with_zeros(_project(map_, projected))


def _ops_fusable(producer: Operation, consumer: Operation, root_loops: list[bool]) -> bool:
    """``areOpsFusable``: every use between them has compatible outer parallel loops."""
    for index, operand in enumerate(consumer.operands):
        if not isinstance(operand, OpResult) or operand.op is not producer:
            continue
        producer_map = _result_map(producer, operand)
        consumer_map = _operand_map(consumer, index)
        if producer_map is None or consumer_map is None:
            return False
        if not _compatible(producer, producer_map, root_loops) or not _compatible(
            consumer, consumer_map, root_loops
        ):
            return False
    return True


def _can_reuse_init(consumer: Operation, input_index: int, init_index: int) -> bool:
    """``canUseInOperandAsInitOperand``: the consumer's init buffer can hold the fused input."""
    if not isinstance(consumer, GenericOp):
        return False
    if any(kind != IteratorType.PARALLEL for kind in iterator_types(consumer) or []):
        return False
    init_arg = consumer.body.block.args[init_index]
    if init_arg.uses:
        return False
    maps = indexing_maps(consumer) or []
    if maps[input_index] != maps[init_index]:
        return False
    return consumer.operands[input_index].type == consumer.operands[init_index].type


def fusable_use(op: Operation) -> tuple[Operation, int] | None:
    """``getFusableUse`` without aggressive fusion: the one use not by a ``tensor.dim``."""
    uses = [
        use for result in op.results for use in result.uses if not isinstance(use.operation, tensor.DimOp)
    ]
    if len(uses) != 1:
        return None
    return uses[0].operation, uses[0].index


def consumer_refusal(
    producer: Operation, consumer: Operation, root_loops: list[bool], pad_with_producers: bool = False
) -> str | None:
    """Why ``isFusableWithConsumer`` keeps ``consumer`` out of ``producer``'s dispatch (None: it fuses)."""
    if consumer.name == "tensor.pad":
        if not pad_with_producers:
            return "a tensor.pad fuses with its producer only under fuse-pad-with-producers"
        return None if iterator_types(producer) is not None else "a tensor.pad fuses only with a linalg op"
    if is_bit_extend(consumer):
        return "a bit-extending consumer is cloned into its own consumers instead"
    if consumer.name in PACK_LIKE:
        if producer.name == "tensor.pad":
            return None
        result = next((r for r in producer.results if any(u.operation is consumer for u in r.uses)), None)
        producer_map = _result_map(producer, result) if result is not None else None
        if producer_map is None or not _compatible(producer, producer_map, root_loops):
            return "the producer's result is not laid out as the encoding expects (a transposed result map)"
        return None
    if consumer.name == "tensor.insert_slice":
        return "tensor.insert_slice consumers are not modelled by passviz"
    if producer.name in ("linalg.mmt4d", "linalg.batch_mmt4d"):
        # IREE's TODO(#16025): the backends cannot give a fused mmt4d's ops their lowering configs.
        return "an mmt4d fuses with no consumer (IREE #16025)"
    consumer_loops = iterator_types(consumer)
    if iterator_types(producer) is None or consumer_loops is None:
        return "the consumer is not a linalg op"
    if IteratorType.REDUCTION in consumer_loops:
        return "the consumer has a reduction loop"
    if not _ops_fusable(producer, consumer, root_loops):
        return "their outer parallel loops do not line up"
    if len(iterator_types(producer) or []) < len(consumer_loops):
        return "the consumer has more loops than the producer"
    inits = dps_inits(consumer) or []
    inputs = len(consumer.operands) - len(inits)
    for index, operand in enumerate(consumer.operands[:inputs]):
        if not isinstance(operand, OpResult) or operand.op is not producer:
            continue
        if is_convolution(producer) and not any(
            _can_reuse_init(consumer, index, inputs + init) for init in range(len(inits))
        ):
            return "the convolution's result could not reuse the consumer's init buffer (a stack allocation)"
    return None


def producer_refusal(
    operand_index: int,
    producer: Operation,
    consumer: Operation,
    root_loops: list[bool],
    pad_with_consumers: bool = False,
) -> str | None:
    """Why ``isFusableWithProducer`` refuses (None: it fuses)."""
    if consumer.name == "tensor.pad":
        return "a tensor.pad joins its producer's dispatch as a consumer, not as a root"
    if producer.name == "tensor.pad":
        if not pad_with_consumers:
            return "a tensor.pad fuses with its consumer only under fuse-pad-with-consumers"
        if is_convolution(consumer) or is_convolution_like(consumer):
            return None
        return "a tensor.pad fuses only into a convolution"
    if iterator_types(producer) is None or iterator_types(consumer) is None:
        return "not a pair of linalg ops"
    inits = dps_inits(consumer)
    if inits is not None and operand_index < len(consumer.operands) - len(inits):
        return "it feeds an input, not the init (only init producers fuse without aggressive fusion)"
    if not _ops_fusable(producer, consumer, root_loops):
        return "their outer parallel loops do not line up"
    return None


# ===----------------------------------------------------------------------=== #
# Phase 1: deciding the fusion groups
# ===----------------------------------------------------------------------=== #


@dataclass
class _Groups:
    """The fusion groups decided so far (IREE's ``__root_op__`` / ``__fused_op__`` attributes)."""

    roots: list[Operation] = field(default_factory=list[Operation])
    """Each group's root, by group number."""
    members: dict[Operation, int] = field(default_factory=dict[Operation, int])
    """The group each fused (non-root) op belongs to."""
    root_of: dict[Operation, int] = field(default_factory=dict[Operation, int])
    """The group each current root leads."""
    first_roots: list[Operation] = field(default_factory=list[Operation])
    """Each group's first root, by group number: the op IREE wraps in the group's region
    before moving its producers and consumers in."""

    def grouped(self, op: Operation) -> bool:
        return op in self.members or op in self.root_of


class _Decider:
    """``decideFusableLinalgOps`` on one function, each decision a step."""

    def __init__(
        self, recorder: StepRecorder, pad_with_consumers: bool = False, pad_with_producers: bool = False
    ) -> None:
        self.recorder = recorder
        self.groups = _Groups()
        self.pad_with_consumers = pad_with_consumers
        """Whether a ``tensor.pad`` fuses with the convolution it feeds."""
        self.pad_with_producers = pad_with_producers
        """Whether a ``tensor.pad`` fuses with the linalg op that produces its source."""

    def _new_root(self, op: Operation, why: str) -> None:
        number = len(self.groups.roots)
        self.groups.roots.append(op)
        self.groups.first_roots.append(op)
        self.groups.root_of[op] = number
        record_decision(self.recorder, f"Root: {op.name} opens dispatch {number} ({why})", op)

    def decide(self, block: Block) -> None:
        roots: list[Operation] = []
        for op in reversed(list(block.ops)):
            if op.dialect_name() == "scf":
                # IREE decides inside scf regions first, numbering their dispatches on.
                for region in op.regions:
                    for inner in region.blocks:
                        self.decide(inner)
                continue
            if self.groups.grouped(op) or not is_root(op):
                continue
            self._new_root(op, _why_root(op))
            self._fuse_producers(op)
            roots.append(op)
        self._fuse_consumers(roots[::-1])
        roots = []
        for op in reversed(list(block.ops)):
            # IREE's second walk: linalg ops and pads no dispatch took (not a fill nor a bit
            # extension, which are better cloned into their consumers).
            if self.groups.grouped(op) or not is_leftover_candidate(op):
                continue
            if isinstance(op, FillOp) or is_bit_extend(op):
                continue
            self._new_root(op, f"a {'linalg op' if is_structured(op) else op.name} no dispatch took")
            self._fuse_producers(op)
            roots.append(op)
        self._fuse_consumers(roots[::-1])

    def _fuse_producers(self, root: Operation) -> None:
        number = self.groups.root_of[root]
        root_loops = outer_parallel(root)
        worklist = [root]
        while worklist:
            candidate = worklist.pop()
            for index, operand in enumerate(candidate.operands):
                if not isinstance(operand, OpResult):
                    continue
                producer = operand.op
                if self.groups.grouped(producer):
                    continue
                if is_clonable(producer):
                    if iterator_types(producer) is not None:
                        record_no_fusion(
                            self.recorder,
                            producer,
                            f"dispatch {number}",
                            "clonable: clone-producers copies it in later",
                        )
                    continue
                use = fusable_use(producer)
                if use is None or use[0] is not candidate:
                    if iterator_types(producer) is not None:
                        record_no_fusion(self.recorder, producer, f"dispatch {number}", "it has other users")
                    continue
                why = producer_refusal(index, producer, candidate, root_loops, self.pad_with_consumers)
                if why is not None:
                    if iterator_types(producer) is not None:
                        record_no_fusion(self.recorder, producer, f"dispatch {number}", why)
                    continue
                self.groups.members[producer] = number
                record_decision(
                    self.recorder,
                    f"FuseWithProducer: {producer.name} joins dispatch {number} of {candidate.name}",
                    producer,
                )
                worklist.append(producer)

    def _fuse_consumers(self, roots: Sequence[Operation]) -> None:
        for root in roots:
            root_loops = outer_parallel(root)
            worklist = [root]
            while worklist:
                current = worklist.pop()
                use = fusable_use(current)
                if use is None:
                    continue
                consumer = use[0]
                if self.groups.grouped(consumer):
                    continue
                number = self.groups.root_of[current]
                why = consumer_refusal(current, consumer, root_loops, self.pad_with_producers)
                if why is not None:
                    if iterator_types(consumer) is None and consumer.name not in PACK_LIKE:
                        continue  # not a candidate at all (a return, a reshape): nothing to tell
                    record_no_fusion(self.recorder, consumer, f"dispatch {number}", why)
                    continue
                # The consumer becomes the group's root; the old root is one of its members.
                del self.groups.root_of[current]
                self.groups.members[current] = number
                self.groups.roots[number] = consumer
                self.groups.root_of[consumer] = number
                record_decision(
                    self.recorder,
                    f"FuseWithConsumer: {consumer.name} joins dispatch {number} of {current.name}, "
                    "and roots it",
                    consumer,
                )
                worklist.append(consumer)


# ===----------------------------------------------------------------------=== #
# Phase 2: forming the regions
# ===----------------------------------------------------------------------=== #


def _dynamic_sizes(type_: Attribute) -> list[int]:
    if not isa(type_, TensorType[Attribute]):
        return []
    return [index for index, size in enumerate(type_.get_shape()) if size == DYNAMIC_INDEX]


def reify_dynamic_dims(value: SSAValue, at: Operation | None = None) -> list[SSAValue]:
    """``reifyDynamicResultDims``: ``value``'s dynamic dimensions, made where needed.

    ``at`` is where an op's ``reifyResultShapes`` asked for them: MLIR makes a ``tensor.dim`` of
    the op's operand there, which resolves in place to what reifies the operand, so a block
    argument reached that way has its ``tensor.dim`` there (reached directly, at its block's top)."""
    sizes = _dynamic_sizes(value.type)
    if not sizes:
        return []
    if isinstance(value, BlockArgument):
        ops, found = dim_ops(value)
        if at is not None:
            Rewriter.insert_op(ops, InsertPoint.before(at))
            return found
        block = value.block
        first = block.first_op
        Rewriter.insert_op(ops, InsertPoint.before(first) if first is not None else InsertPoint.at_end(block))
        return found
    assert isinstance(value, OpResult)
    op = value.op
    tied = tied_operand(value)
    if tied is not None and tied.type == value.type:
        return reify_dynamic_dims(tied, at)
    if isinstance(op, SoftmaxOp):
        # Not tied (not a structured op): MLIR's reifyResultShapes gives its input's shape,
        # a tensor.dim per dynamic dimension where the op is, which folds to what reifies that input's.
        return reify_dynamic_dims(op.input, at or op)
    dims = result_dims_of(op, value)
    if dims is not None:
        return dims
    if isinstance(op, tensor.EmptyOp):
        return list(op.dynamic_sizes)
    if isinstance(op, tensor.PadOp):
        return _padded_dims(op, at)
    sliced = _sliced_or_expanded_dims(op, at)
    if sliced is not None:
        return sliced
    raise PassFailedException(located(op, f"cannot reify the dynamic dimensions of a result of {op.name}"))


def _sliced_or_expanded_dims(op: Operation, at: Operation | None) -> list[SSAValue] | None:
    """``reifyResultShapes`` of a slice or an expansion: the dynamic sizes it was given (a
    rank-reducing slice's too, as MLIR drops only unit sizes, which are static)."""
    if isinstance(op, tensor.ExtractSliceOp):
        return list(op.sizes)
    if isinstance(op, tensor.ExpandShapeOp):
        return list(op.dynamic_output_shape)
    if isinstance(op, tensor.CollapseShapeOp):
        return _collapsed_dims(op, at)
    return None


def _collapsed_dims(op: tensor.CollapseShapeOp, at: Operation | None) -> list[SSAValue] | None:
    """``reifyResultShapes`` of a collapse whose dynamic dimensions each come from one source
    dimension alone (a group of one): the source's; None for a dynamic product of several."""
    source = op.src.type
    assert isa(source, TensorType[Attribute])
    shape = source.get_shape()
    groups = [[int(i.value.data) for i in group.data] for group in op.reassociation.data]
    wanted = [group for group in groups if any(shape[i] == DYNAMIC_INDEX for i in group)]
    if any(len(group) != 1 for group in wanted):
        return None
    dims = reify_dynamic_dims(op.src, at or op)
    dynamic = [i for i, size in enumerate(shape) if size == DYNAMIC_INDEX]
    return [dims[dynamic.index(group[0])] for group in wanted]


def _padded_dims(pad: tensor.PadOp, at: Operation | None) -> list[SSAValue]:
    """``PadOp::reifyResultShapes``: each dynamic result dimension is the source's plus both
    paddings, one ``affine.apply`` each (constants folded into its map), made before ``pad``."""
    source_type = pad.source.type
    assert isa(source_type, TensorType[Attribute])
    source_shape = source_type.get_shape()
    # MLIR makes a tensor.dim of the source where the pad is (one of an op's result folds
    # to what reifies it, which the recursion stands for).
    source_dims = iter(reify_dynamic_dims(pad.source, at or pad))
    sizes = {i: next(source_dims) for i, size in enumerate(source_shape) if size == DYNAMIC_INDEX}
    low, high = iter(pad.low), iter(pad.high)
    lows = [next(low) if v == DYNAMIC_INDEX else v for v in pad.static_low.get_values()]
    highs = [next(high) if v == DYNAMIC_INDEX else v for v in pad.static_high.get_values()]
    found: list[SSAValue] = []
    ops: list[Operation] = []
    for index in _dynamic_sizes(pad.result.type):
        terms: list[SSAValue | int] = [sizes.get(index, source_shape[index]), lows[index], highs[index]]
        symbols = [term for term in terms if isinstance(term, SSAValue)]
        constant = sum(term for term in terms if isinstance(term, int))
        if not symbols:
            made: Operation = arith.ConstantOp(IntegerAttr(constant, IndexType()))
        else:
            expr: AffineExpr = AffineExpr.symbol(0)
            for position in range(1, len(symbols)):
                expr = expr + AffineExpr.symbol(position)
            if constant:
                expr = expr + constant
            made = affine.ApplyOp(symbols, AffineMapAttr(AffineMap(0, len(symbols), (expr,))))
        ops.append(made)
        found.append(made.results[0])
    Rewriter.insert_op(ops, InsertPoint.before(pad))
    return found


def _clone_to_top(target: Operation, region: flow.DispatchRegionOp) -> Operation:
    """Clone ``target`` to the top of ``region``'s body; the region's uses of it read the clone."""
    block = region.body.blocks.first
    assert block is not None
    first = block.first_op
    assert first is not None
    clone = target.clone()
    block.insert_op_before(clone, first)
    for old, new in zip(target.results, clone.results, strict=True):
        replace_uses_within(old, new, region)
    return clone


def move_into_region(target: Operation, region: flow.DispatchRegionOp | None) -> flow.DispatchRegionOp:
    """``movePrecedingOpsIntoDispatchRegion`` (``wrapOpInDispatchRegion`` when ``region`` is None):
    clone ``target`` to the top of the region's body, return its results still used outside
    (the region grows results for them), erase ``target``."""
    if region is None:
        body = Block([flow.ReturnOp()])
        region = flow.DispatchRegionOp([], [], [], Region(body))
        Rewriter.insert_op(region, InsertPoint.after(target))
    block = region.body.block
    clone = _clone_to_top(target, region)
    escaping = [
        (old, new)
        for old, new in zip(target.results, clone.results, strict=True)
        if any(not nested_in(use.operation, region) for use in old.uses)
    ]
    if escaping:
        dims = [d for old, _ in escaping for d in reify_dynamic_dims(old)]
        terminator = block.last_op
        assert isinstance(terminator, flow.ReturnOp)
        grown = flow.DispatchRegionOp(
            [*region.result.types, *(old.type for old, _ in escaping)],
            [*region.result_dims, *dims],
            list(region.workload),
            Region(),
            None,
        )
        grown.attributes |= region.attributes
        Rewriter.insert_op(grown, InsertPoint.before(region))
        region.body.move_blocks(grown.body)
        count = region.workgroup_count
        count.move_blocks(grown.workgroup_count)
        for old_result, new_result in zip(region.results, grown.results, strict=False):
            old_result.replace_all_uses_with(new_result)
        Rewriter.replace_op(terminator, flow.ReturnOp(*terminator.operands, *(new for _, new in escaping)))
        region.detach()
        region.erase()
        region = grown
        offset = len(grown.results) - len(escaping)
        for position, (old, _) in enumerate(escaping):
            result = grown.results[offset + position]
            for use in list(old.uses):
                if not nested_in(use.operation, grown):
                    use.operation.operands[use.index] = result
    target.detach()
    target.erase()
    return region


def _reify_for_consumers(first_root: Operation, number: int, groups: _Groups) -> None:
    """The dimensions IREE reifies when it wraps ``first_root`` while the consumers fused with it
    are still outside the region: those of each result only they use.  passviz moves those
    results in with their consumers, so nothing else asks for them; the ops made stay dead
    (IREE's cleanup drops the region results they size), but a block argument's ``tensor.dim``s
    and their constants go to the function's top, between each other: the cleanup's folder keeps
    those constants, the first seen, and moves each in front of the one before, so the
    function's index constants end last first."""
    for result in first_root.results:
        users = [use.operation for use in result.uses]
        if users and all(groups.members.get(u, groups.root_of.get(u)) == number for u in users):
            reify_dynamic_dims(result)


def _topological(ops: list[Operation]) -> list[Operation]:
    """MLIR's ``computeTopologicalSorting`` (ops in one block; ready ones keep their order)."""
    ops = list(ops)
    unscheduled = set(ops)
    scheduled = 0
    while unscheduled:
        progressed = False
        for position in range(scheduled, len(ops)):
            op = ops[position]
            if any(
                isinstance(v, OpResult) and v.op in unscheduled and v.op is not op for v in _operands_deep(op)
            ):
                continue
            unscheduled.discard(op)
            ops[position], ops[scheduled] = ops[scheduled], ops[position]
            scheduled += 1
            progressed = True
        if not progressed:
            unscheduled.discard(ops[scheduled])
            scheduled += 1
    return ops


def _operands_deep(op: Operation) -> list[SSAValue]:
    """The operands of ``op`` and of the ops nested in it."""
    return [v for inner in op.walk() for v in inner.operands]


@dataclass(frozen=True)
class FormDispatchRegions(TracedPass):
    """Group linalg ops into ``flow.dispatch.region``s: a root with its producers and consumers fused in."""

    name = "iree-dispatch-creation-form-dispatch-regions"

    fuse_pad_with_consumers: bool = False
    """IREE's ``fuse-pad-with-consumers``: a ``tensor.pad`` joins the convolution it feeds."""

    fuse_pad_with_producers: bool = False
    """IREE's ``fuse-pad-with-producers``: a ``tensor.pad`` joins the linalg op that makes its source."""

    @behaves_as_iree
    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        for function in _functions(op):
            decider = _Decider(recorder, self.fuse_pad_with_consumers, self.fuse_pad_with_producers)
            for block in function.regions[0].blocks:
                decider.decide(block)
            groups = decider.groups
            producers: dict[int, list[Operation]] = {}
            for member, number in groups.members.items():
                producers.setdefault(number, []).append(member)

            def regions() -> list[list[Operation]]:
                return dispatch_regions(op)

            for number, root in enumerate(groups.roots):
                with recorder.step(
                    f"WrapInDispatchRegion: dispatch {number}", root, full=True, dispatch=regions
                ):
                    _reify_for_consumers(groups.first_roots[number], number, groups)
                    region = move_into_region(root, None)
                members = _topological(sorted(producers.get(number, []), key=_position))
                for producer in reversed(members):
                    with recorder.step(
                        f"MoveIntoDispatchRegion: dispatch {number}", producer, full=True, dispatch=regions
                    ):
                        region = move_into_region(producer, region)
            # IREE 3.13's pass ends with the function folded: dead ops (and regions) erased,
            # constants hoisted to its top, those of the regions' bodies too.
            apply_patterns_greedily(ctx, function, recorder, _cleanup, DEFAULT)


def _position(op: Operation) -> tuple[int, ...]:
    """Where ``op`` is in the function, for IREE's walk order."""
    path: list[int] = []
    current: Operation | None = op
    while current is not None and current.parent_block() is not None:
        block = current.parent_block()
        assert block is not None
        path.append(block.get_operation_index(current))
        current = current.parent_op()
    return tuple(reversed(path))


# ===----------------------------------------------------------------------=== #
# Clone producers into dispatch regions
# ===----------------------------------------------------------------------=== #


def cloneable_producers(region: flow.DispatchRegionOp) -> list[Operation]:
    """``getCloneableOps``: the clonable ops the region uses from outside, and theirs, transitively."""
    found: list[Operation] = []
    visited: set[SSAValue] = set()
    worklist = used_values_defined_above(region.body, region)
    while worklist:
        value = worklist.pop()
        if value in visited:
            continue
        visited.add(value)
        if not isinstance(value, OpResult) or not is_clonable(value.op):
            continue
        if value.op in found:
            continue
        found.append(value.op)
        worklist.extend(v for v in value.op.operands if not is_inside(v, region))
    return found


def _is_dead(op: Operation) -> bool:
    """MLIR's ``isOpTriviallyDead``: no result used, and no effect but making them (a linalg
    op on tensors and a dispatch region of such ops included)."""
    if any(result.uses for result in op.results):
        return False
    if isinstance(op, flow.DispatchRegionOp):
        return _effect_free(op)
    inits = dps_inits(op)
    if inits is not None and op.results and all(isa(i.type, TensorType[Attribute]) for i in inits):
        return True
    return is_trivially_dead(op)


def _post_order_reversed(op: Operation) -> list[Operation]:
    """``walk<PostOrder, ReverseIterator>``: nested ops first, each block last to first."""
    found: list[Operation] = []
    for region in reversed(op.regions):
        for block in reversed(list(region.blocks)):
            for child in reversed(list(block.ops)):
                found += _post_order_reversed(child)
    found.append(op)
    return found


@dataclass(frozen=True)
class CloneProducersIntoDispatchRegions(TracedPass):
    """Copy the cheap ops a dispatch region uses (empty tensors, fills, small constants) into it,
    erase what that leaves dead, and give each generic still outside a dispatch one of its own."""

    name = "iree-dispatch-creation-clone-producers-into-dispatch-regions"

    @behaves_as_iree
    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        for function in _functions(op):
            self._clone_all(function, op, recorder)
            # IREE 3.13 erases the ops the cloning left dead (and any dead before) here, once:
            # what the second cloning below leaves dead stays.
            for candidate in _post_order_reversed(function)[:-1]:
                if candidate.parent is not None and _is_dead(candidate):
                    with recorder.step("erase-dead-op", candidate):
                        Rewriter.erase_op(candidate)
            outside = [
                inner for inner in function.walk() if isinstance(inner, GenericOp) and outside_dispatch(inner)
            ]
            for generic in outside:
                with recorder.step(
                    "WrapInDispatchRegion: a generic no dispatch took",
                    generic,
                    full=True,
                    dispatch=lambda: dispatch_regions(op),
                ):
                    move_into_region(generic, None)
            self._clone_all(function, op, recorder)

    @staticmethod
    def _clone_all(function: Operation, module: ModuleOp, recorder: StepRecorder) -> None:
        """Clone into each region of ``function`` the clonable ops it uses from outside."""
        for region in [inner for inner in function.walk() if isinstance(inner, flow.DispatchRegionOp)]:
            producers = _topological(cloneable_producers(region))
            if not producers:
                continue
            with recorder.step(
                "CloneProducersIntoDispatchRegion",
                region,
                full=True,
                dispatch=lambda: dispatch_regions(module),
            ):
                for producer in reversed(producers):
                    _clone_to_top(producer, region)
