"""``fold-unstructured-ptr`` (triton-shared PR #210): pointer chains become offset arithmetic.

A Triton pointer is a base pointer (a kernel argument) plus an offset.
``tt.addptr`` adds to the offset; ``tt.splat``, ``tt.broadcast`` and
``tt.expand_dims`` reshape it; the base never changes along a chain.  The pass
turns each chain into offset arithmetic feeding one
``tts.make_unstructured_tptr(base, offsets)`` right before the op that uses
the pointer (``tt.load``, ``tt.store``, ``tt.make_tensor_ptr``, or a
``tts.make_tptr`` whose base is not an argument):

- offsets start at an ``arith.constant 0 : i<offset-bit-width>`` per pointer
  argument, created at the top of the function;
- ``tt.addptr %p, %off`` becomes ``arith.addi %p_offset, %off`` right before
  it; if either side is narrower than the other it is first sign-extended
  (``arith.extsi``), so a chain stays ``i32`` until an ``i64`` offset joins it;
- ``tt.splat``/``tt.broadcast``/``tt.expand_dims`` of a pointer become the
  same op on its offsets, right before it;
- a pointer carried by an ``scf.for`` becomes an offset carried by it: the
  iter_arg and result take the offset type, the init and the yield give offsets;
- the pointer ops, dead then, are erased.  Block pointers (``tt.make_tensor_ptr``
  results) are left as they are: only the base they are made from is folded,
  and not at all when it is an argument (upstream says so in its overview, and
  does so for ``tts.make_tptr``).

Then, like the real pass, ``canonicalize`` and ``cse`` run over the module.

This follows ``FoldUnstructuredPtrPass.cpp`` of PR #210's branch (commit
999c080, before the pass became ``triton-to-unstructured``), with upstream's
later fix for loops (ae4dae2: an iter_arg's offset is the iter_arg itself, not
its init's).  Where upstream goes through invalid IR (it sets the loop's types
first and rewires the uses at the very end), each step here leaves valid IR:
until all its users are folded, a converted iter_arg or loop result reaches
them through a temporary ``tts.make_unstructured_tptr`` ("bridge"), erased in
the last step with the pointer ops.  Two upstream gaps are closed: an init
that is the pointer argument itself gets the zero offset (upstream leaves the
pointer there), and a pointer use the pass cannot fold is an error before
anything changes (upstream ignores it and leaves mistyped IR).

Trace steps: ``zero-offsets`` per function; ``fold-scf-for-iter-arg`` per
pointer iter_arg (a loop whose yield needs a nested loop's result folds that
loop's iter_arg in the same step); ``fold-load``, ``fold-store``,
``fold-make-tensor-ptr``, ``fold-make-tptr`` per access, each with its
``chain``, the op ids from the base argument to the access; then
``erase-pointer-ops``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, TensorType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.traits import CallableOpInterface
from xdsl.utils.exceptions import PassFailedException

from passviz.compilers.mlir.passes.canonicalize import Canonicalize
from passviz.compilers.mlir.passes.cse import CommonSubexpressionElimination
from passviz.compilers.triton.dialects import tt
from passviz.compilers.triton_shared import dialect as tts
from passviz.ir.hints import isa
from passviz.recording.interface import StepRecorder, TracedPass

STEP_NAMES: dict[str, str] = {
    tt.LoadOp.name: "fold-load",
    tt.StoreOp.name: "fold-store",
    tt.MakeTensorPtrOp.name: "fold-make-tensor-ptr",
    tts.MakeTensorPtrOp.name: "fold-make-tptr",
}
"""The step that folds the pointer of each kind of access, by op name."""

LOOP_STEP = "fold-scf-for-iter-arg"
"""The step that turns a pointer iter_arg of an ``scf.for`` into an offset."""

_SHAPE_OPS = (tt.SplatOp, tt.BroadcastOp, tt.ExpandDimsOp)
"""Ops that reshape a pointer, and then its offsets, without changing it."""


@dataclass(frozen=True)
class FoldUnstructuredPtr(TracedPass):
    """Turn ``tt.addptr`` chains into offsets fed to ``tts.make_unstructured_tptr``."""

    name = "fold-unstructured-ptr"
    announces_every_edit = True

    offset_bit_width: int = 32
    """Bit width of the offsets a chain starts with (``offset-bit-width``)."""

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        # Every function is checked before any is changed: bad input fails cleanly.
        plans = [_analyze(function, self.offset_bit_width) for function in _functions(op)]
        for plan in plans:
            _Folder(ctx, plan, recorder, self.offset_bit_width).run()
        Canonicalize().run(ctx, op, recorder)
        CommonSubexpressionElimination().run(ctx, op, recorder)


# ===----------------------------------------------------------------------=== #
# Analysis: the chains, from the pointer arguments to their uses
# ===----------------------------------------------------------------------=== #


@dataclass(eq=False)
class _Ptr:
    """A pointer of a chain, as it was before the pass (triton-shared's ``PtrOffset``)."""

    value: SSAValue
    """The pointer."""
    base: BlockArgument
    """The pointer argument the whole chain points into."""
    width: int
    """The bit width of its offset."""
    source: Operation | None = None
    """The op it comes from (a pointer op, or the ``scf.for`` of an iter_arg or result); None for the base."""
    parent: _Ptr | None = None
    """The pointer ``source`` made it from."""

    @property
    def ptr_type(self) -> Attribute:
        """The pointer's type, which its offset stands for."""
        return self.value.type

    def chain(self) -> list[Operation]:
        """The ops from the base to this pointer, base side first."""
        ops: list[Operation] = []
        node: _Ptr | None = self
        while node is not None:
            if node.source is not None:
                ops.append(node.source)
            node = node.parent
        return ops[::-1]


@dataclass(eq=False)
class _LoopArg:
    """A pointer carried by an ``scf.for``: its init, iter_arg, result and yield."""

    loop: scf.ForOp
    index: int
    """Which iter_arg."""
    init: _Ptr
    arg: _Ptr
    result: _Ptr
    yielded: _Ptr | None = None
    """The pointer the body yields for it (set once the walk has found it)."""


@dataclass(eq=False)
class _Plan:
    """What the pass will do to one function."""

    function: Operation
    args: list[_Ptr] = field(default_factory=list[_Ptr])
    """The pointer arguments, in order."""
    ptrs: dict[SSAValue, _Ptr] = field(default_factory=dict[SSAValue, _Ptr])
    """Every pointer of every chain, in the order the walk met them."""
    accesses: list[tuple[Operation, _Ptr]] = field(default_factory=list[tuple[Operation, _Ptr]])
    """The ops whose pointer operand gets a ``tts.make_unstructured_tptr``, in program order."""
    loops: list[_LoopArg] = field(default_factory=list[_LoopArg])
    """The pointer iter_args, in program order."""
    carriers: dict[SSAValue, _LoopArg] = field(default_factory=dict[SSAValue, _LoopArg])
    """The loop iter_arg that carries each pointer iter_arg and loop result."""


def _functions(module: ModuleOp) -> list[Operation]:
    """The functions with a body (``FunctionOpInterface`` ops), in program order."""
    return [
        op
        for op in module.walk()
        if op.has_trait(CallableOpInterface) and op.regions and op.regions[0].blocks
    ]


def _bit_width(type_: Attribute) -> int:
    if isa(type_, TensorType[Attribute]):
        type_ = type_.get_element_type()
    if not isinstance(type_, IntegerType):
        raise PassFailedException(f"fold-unstructured-ptr: expected an integer offset, got {type_}")
    return type_.bitwidth


def _fail(message: str, op: Operation) -> PassFailedException:
    text = str(op).strip().splitlines()[0]
    return PassFailedException(f"fold-unstructured-ptr: {message}: {text}")


def _analyze(function: Operation, width: int) -> _Plan:
    """Walk the uses of the pointer arguments, as triton-shared's worklist does.

    Nothing changes yet; a use the pass cannot fold raises, naming the op.
    """
    plan = _Plan(function)
    for arg in function.regions[0].blocks[0].args:
        if tt.is_ptr_like(arg.type):
            plan.args.append(_Ptr(arg, arg, width))
            plan.ptrs[arg] = plan.args[-1]
    yields: dict[tuple[Operation, int], _Ptr] = {}
    work = deque(plan.ptrs.values())
    while work:
        node = work.popleft()
        for use in list(node.value.uses):
            user, index = use.operation, use.index
            derived = _derive(node, user, index)
            if derived is not None:
                plan.ptrs[derived.value] = derived
                work.append(derived)
            elif isinstance(user, tt.LoadOp | tt.StoreOp | tt.MakeTensorPtrOp | tts.MakeTensorPtrOp):
                if index != 0:
                    raise _fail("a pointer used as a value cannot be folded", user)
                # A block pointer made straight from an argument stays as it is.
                if not (isinstance(user, tt.MakeTensorPtrOp | tts.MakeTensorPtrOp) and node.source is None):
                    plan.accesses.append((user, node))
            elif isinstance(user, scf.ForOp) and index >= 3:
                loop = _loop_arg(node, user, index - 3)
                plan.loops.append(loop)
                for carried in (loop.arg, loop.result):
                    plan.carriers[carried.value] = loop
                    plan.ptrs[carried.value] = carried
                    work.append(carried)
            elif isinstance(user, scf.YieldOp) and isinstance(user.parent_op(), scf.ForOp):
                yields[(user, index)] = node
            else:
                raise _fail("unexpected op in pointer sequence", user)
    order = {op: position for position, op in enumerate(function.walk())}
    plan.accesses.sort(key=lambda item: order[item[0]])
    plan.loops.sort(key=lambda loop: (order[loop.loop], loop.index))
    for loop in plan.loops:
        terminator = loop.loop.body.block.last_op
        assert terminator is not None
        loop.yielded = _checked_yield(loop, yields.pop((terminator, loop.index), None), terminator)
    for terminator, index in yields:
        raise _fail(f"yielded pointer #{index} is carried from no pointer argument", terminator)
    return plan


def _derive(node: _Ptr, user: Operation, index: int) -> _Ptr | None:
    """The pointer ``user`` makes from ``node`` by ``tt.addptr`` or a shape op, if it does."""
    if isinstance(user, tt.AddPtrOp) and index == 0:
        width = max(node.width, _bit_width(user.offset.type))
        return _Ptr(user.results[0], node.base, width, user, node)
    if isinstance(user, _SHAPE_OPS) and tt.is_ptr_like(user.results[0].type):
        return _Ptr(user.results[0], node.base, node.width, user, node)
    return None


def _loop_arg(init: _Ptr, loop: scf.ForOp, index: int) -> _LoopArg:
    arg = loop.body.block.args[index + 1]
    result = loop.results[index]
    return _LoopArg(
        loop,
        index,
        init,
        _Ptr(arg, init.base, init.width, loop, init),
        _Ptr(result, init.base, init.width, loop, init),
    )


def _checked_yield(loop: _LoopArg, yielded: _Ptr | None, terminator: Operation) -> _Ptr:
    """The pointer yielded for ``loop``'s iter_arg, which must continue its chain."""
    if yielded is None or yielded.base is not loop.init.base:
        raise _fail(
            f"the pointer yielded for iter_arg #{loop.index} does not derive from its init's base",
            terminator,
        )
    if yielded.width != loop.init.width:
        raise _fail(
            f"the offset of iter_arg #{loop.index} widens from i{loop.init.width} to "
            f"i{yielded.width} inside the loop (use offset-bit-width={yielded.width})",
            terminator,
        )
    return yielded


# ===----------------------------------------------------------------------=== #
# Rewriting, step by step
# ===----------------------------------------------------------------------=== #


class _Folder:
    """Rewrites one function's chains, following its plan."""

    def __init__(self, ctx: Context, plan: _Plan, recorder: StepRecorder, width: int) -> None:
        self.ctx = ctx
        self.plan = plan
        self.recorder = recorder
        self.width = width
        self.entry: Block = plan.function.regions[0].blocks[0]
        self.rewriter: PatternRewriter = recorder.rewriter(InsertPoint.at_start(self.entry))
        self.offsets: dict[SSAValue, SSAValue] = {}
        """The offset of each pointer folded so far, keyed by the pointer as it was."""
        self.converted: set[_LoopArg] = set()
        self.doomed: list[Operation] = []
        """Pointer ops and bridges, erased in the last step."""

    def run(self) -> None:
        if not self.plan.args:
            return
        with self.recorder.step("zero-offsets", root=self.plan.function):
            self._zero_offsets()
        for access, ptr in self.plan.accesses:
            for loop in self._loops_on(ptr):
                self._loop_step(loop)
            with self.recorder.step(STEP_NAMES[access.name], root=access, chain=[*ptr.chain(), access]):
                self._fold_access(access, ptr)
        for loop in self.plan.loops:
            self._loop_step(loop)
        self._erase_step()

    # -- steps ---------------------------------------------------------------

    def _zero_offsets(self) -> None:
        # Each constant goes to the top of the entry block, as upstream's
        # OpBuilder(region) puts it: the last argument's comes first.
        for node in self.plan.args:
            zero = arith.ConstantOp(IntegerAttr(0, IntegerType(self.width)))
            self.rewriter.insert(zero, InsertPoint.at_start(self.entry))
            self.offsets[node.value] = zero.result

    def _loops_on(self, ptr: _Ptr) -> list[_LoopArg]:
        """The loop iter_args ``ptr``'s chain goes through, outermost first."""
        found: list[_LoopArg] = []
        node: _Ptr | None = ptr
        while node is not None:
            if isinstance(node.source, scf.ForOp):
                found.append(self.plan.carriers[node.value])
            node = node.parent
        return found[::-1]

    def _loop_step(self, loop: _LoopArg) -> None:
        if loop in self.converted:
            return
        with self.recorder.step(LOOP_STEP, root=loop.loop, chain=loop.arg.chain()):
            self._convert_loop(loop)

    def _erase_step(self) -> None:
        leftover = [p for p in self.plan.ptrs.values() if p.value not in self.offsets]
        if not leftover and not self.doomed:
            return
        with self.recorder.step("erase-pointer-ops"):
            # Upstream gives every pointer of a chain an offset, used or not.
            for ptr in leftover:
                self._offset(ptr)
            order = {op: position for position, op in enumerate(self.plan.function.walk())}
            for op in sorted(self.doomed, key=order.__getitem__, reverse=True):
                self.rewriter.erase(op)

    # -- rewrites --------------------------------------------------------------

    def _fold_access(self, access: Operation, ptr: _Ptr) -> None:
        offset = self._offset(ptr)
        made = tts.MakeUnstructuredTensorPtrOp(ptr.base, offset, ptr.ptr_type)
        self.rewriter.insert(made, InsertPoint.before(access))
        self._set_operand(access, 0, made.ptr)

    def _convert_loop(self, loop: _LoopArg) -> None:
        """Make ``loop``'s pointer iter_arg an offset; its users keep a pointer through bridges."""
        self.converted.add(loop)
        offset_type = tts.ptr_offset_type(loop.init.ptr_type, loop.init.width)
        body = loop.loop.body.block
        arg = self.rewriter.replace_value_with_new_type(body.args[loop.index + 1], offset_type)
        self.offsets[loop.arg.value] = arg
        self._bridge(arg, loop.arg, InsertPoint.at_start(body))
        result = self.rewriter.replace_value_with_new_type(loop.loop.results[loop.index], offset_type)
        self.offsets[loop.result.value] = result
        self._bridge(result, loop.result, InsertPoint.after(loop.loop))
        self._set_operand(loop.loop, loop.index + 3, self._offset(loop.init))
        assert loop.yielded is not None
        terminator = body.last_op
        assert terminator is not None
        self._set_operand(terminator, loop.index, self._offset(loop.yielded))

    def _bridge(self, offset: SSAValue, ptr: _Ptr, where: InsertPoint) -> None:
        """Give the users of a converted iter_arg or result the pointer they expect."""
        if not offset.uses:
            return
        bridge = tts.MakeUnstructuredTensorPtrOp(ptr.base, offset, ptr.ptr_type)
        self.rewriter.insert(bridge, where)
        for use in list(offset.uses):
            if use.operation is not bridge:
                self._set_operand(use.operation, use.index, bridge.ptr)
        self.doomed.append(bridge)

    def _offset(self, ptr: _Ptr) -> SSAValue:
        """The offset of ``ptr``, made (with its chain's) on first use."""
        known = self.offsets.get(ptr.value)
        if known is not None:
            return known
        source, parent = ptr.source, ptr.parent
        assert source is not None and parent is not None
        if isinstance(source, scf.ForOp):
            self._convert_loop(self.plan.carriers[ptr.value])
            return self.offsets[ptr.value]
        previous = self._offset(parent)
        if isinstance(source, tt.AddPtrOp):
            ops = self._accumulate(source, parent, ptr, previous)
        else:
            ops = [self._reshape(source, ptr, previous)]
        for op in ops:
            self.rewriter.insert(op, InsertPoint.before(source))
        self.doomed.append(source)
        self.offsets[ptr.value] = ops[-1].results[0]
        return ops[-1].results[0]

    def _accumulate(
        self, addptr: tt.AddPtrOp, parent: _Ptr, ptr: _Ptr, previous: SSAValue
    ) -> list[Operation]:
        """``previous + offset``, the narrower side sign-extended first (upstream's order)."""
        ops: list[Operation] = []
        offset: SSAValue = addptr.offset
        wide = tts.ptr_offset_type(parent.ptr_type, ptr.width)
        if parent.width < ptr.width:
            ops.append(self._extsi(previous, wide))
            previous = ops[-1].results[0]
        if _bit_width(offset.type) < ptr.width:
            ops.append(self._extsi(offset, wide))
            offset = ops[-1].results[0]
        ops.append(arith.AddiOp(previous, offset, tts.ptr_offset_type(ptr.ptr_type, ptr.width)))
        return ops

    def _extsi(self, value: SSAValue, type_: Attribute) -> Operation:
        # The context's class, so that a tensor-aware arith.extsi is used when registered.
        return self.ctx.get_op("arith.extsi").create(operands=[value], result_types=[type_])

    @staticmethod
    def _reshape(source: Operation, ptr: _Ptr, previous: SSAValue) -> Operation:
        """The shape op ``source``, on the offsets (upstream clones it by name)."""
        offset_type = tts.ptr_offset_type(ptr.ptr_type, ptr.width)
        return type(source).create(
            operands=[previous], result_types=[offset_type], properties=dict(source.properties)
        )

    def _set_operand(self, op: Operation, index: int, value: SSAValue) -> None:
        # Set directly: the rewriter's replace_uses_with_if would pass the old
        # value's name hint on to ``value``.
        op.operands[index] = value
        self.rewriter.handle_operation_modification(op)
