"""``inline``: MLIR's inliner, as Triton runs it (``passes.common.add_inliner``).

This follows ``mlir/lib/Transforms/Utils/Inliner.cpp`` and
``InliningUtils.cpp`` so that the output matches MLIR's:

- the call graph's SCCs are visited bottom-up (callees first); in each, up to
  ``max_iterations`` times, every function of the SCC is canonicalized (the
  inliner's default pipeline) and then its calls are inlined, until a round
  inlines nothing;
- a call is inlined unless it is a terminator, its callee is recursive (calls
  itself or its caller, or encloses the call), its callee has several blocks
  and the call sits in an op that may only hold one block (``scf.for``,
  ``scf.if``, ...), or the dialects involved do not allow it: each answers
  through its inliner interface (``passviz.rewrite.inliner``), found in the
  context, as MLIR's ``DialectInlinerInterface`` does (the call's dialect for
  the call, the dialect of the op around the call for its region, each op's
  of the callee for that op); an op of a dialect without one is never inlined;
- where a call passes a value whose type differs from the callee's argument
  (or expects a result of another type), the call's dialect must materialize
  the conversion (``materializeCallConversion``, one step each), or the call
  stays;
- the body of a private callee with one use left is moved instead of
  cloned, and the callee is erased at the end; so are private functions that
  nobody calls.

Each edit is its own trace step.  A single-block body is spliced in place of
the call in one step (MLIR splits the block and merges it back; the net edit
is that); a multi-block body goes in as MLIR does it, one step each: the
block is split at the call, the callee's blocks are inserted, the call's
results become arguments of the continuation block, returns become branches
to it, and the callee's entry block is merged into the call's block.  The
canonicalizer later merges what it can.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.traits import (
    CallableOpInterface,
    IsolatedFromAbove,
    IsTerminator,
    SingleBlockImplicitTerminator,
)

from passviz.compilers.mlir.passes.canonicalize import canonicalize_op
from passviz.recording.interface import StepRecorder, TracedPass
from passviz.rewrite.callgraph import CallGraph, CallGraphNode, UseList
from passviz.rewrite.calls import call_arguments, call_callee, is_call
from passviz.rewrite.inliner import DialectInlinerInterface, InlinerInterfaces


@dataclass(frozen=True)
class Inline(TracedPass):
    """Inline calls bottom-up over the call graph, simplifying each function."""

    name = "inline"
    announces_every_edit = True

    max_iterations: int = 4
    """MLIR's ``max-iterations``: simplify-then-inline rounds per SCC."""

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        _Inliner(ctx, op, recorder, self.max_iterations).run()


@dataclass(frozen=True)
class _ResolvedCall:
    """A call to inline (MLIR's ``ResolvedCall``)."""

    call: Operation
    """The call op."""
    source: CallGraphNode
    """The node whose body holds the call."""
    target: CallGraphNode
    """The callee's node."""


class _Inliner:
    """One run of the inliner over a module (MLIR's ``Inliner::doInlining``)."""

    def __init__(self, ctx: Context, module: ModuleOp, recorder: StepRecorder, max_iterations: int) -> None:
        self.ctx = ctx
        self.interfaces = InlinerInterfaces(ctx)
        """Each dialect's inliner interface."""
        self.recorder = recorder
        self.max_iterations = max(1, max_iterations)
        self.graph = CallGraph(module)
        self.uses = UseList(module, self.graph)
        self.calls: list[_ResolvedCall] = []
        """Calls to try in the current round; inlining appends the calls it brings in."""
        self.dead: list[CallGraphNode] = []
        """Callables to erase once every SCC is done."""

    def run(self) -> None:
        for scc in self.graph.sccs():
            self._inline_scc(scc)
        for node in self.dead:
            function = node.callable
            with self.recorder.step(f"erase dead function {_symbol(function)}", root=function, full=True):
                self.recorder.rewriter(InsertPoint.before(function)).erase(function)

    def _inline_scc(self, scc: list[CallGraphNode]) -> None:
        for _ in range(self.max_iterations):
            self._optimize_scc(scc)
            if not self._inline_calls_in_scc(scc):
                return

    def _optimize_scc(self, scc: list[CallGraphNode]) -> None:
        """Run the default pipeline (canonicalize) on each function of the SCC."""
        nodes = [
            node
            for node in scc
            if not node.is_external and not node.has_children() and node.callable.has_trait(IsolatedFromAbove)
        ]
        for node in nodes:
            canonicalize_op(self.ctx, node.callable, self.recorder)
        for node in nodes:
            self.uses.recompute(node)

    def _inline_calls_in_scc(self, scc: list[CallGraphNode]) -> bool:
        """Try every call in the SCC once; True if any was inlined."""
        dead: list[CallGraphNode] = []
        for node in scc:
            if node.is_external:
                continue
            if self.uses.is_dead(node):
                _add(dead, node)
            else:
                assert node.region is not None
                self._collect_calls(list(node.region.blocks), node, traverse_nested=False)

        # Calls brought in by inlining remember which callees they came
        # through, so that a chain of recursive calls ends.
        history: list[tuple[CallGraphNode, int | None]] = []
        call_history: list[int | None] = [None] * len(self.calls)
        inlined_any = False
        index = 0
        while index < len(self.calls):
            resolved, history_id = self.calls[index], call_history[index]
            index += 1
            if resolved.source in dead:
                continue
            if _history_includes(resolved.target, history_id, history) or not self._should_inline(resolved):
                continue
            known = len(self.calls)
            in_place = self.uses.has_one_use_and_discardable(resolved.target)
            if not self._inline_call(resolved, clone=not in_place):
                continue
            inlined_any = True
            history.append((resolved.target, history_id))
            call_history.extend([len(history) - 1] * (len(self.calls) - known))
            self.uses.drop_call_uses(resolved.source, resolved.call)
            self.uses.merge_uses_after_inlining(resolved.target, resolved.source)
            call = resolved.call
            with self.recorder.step(f"erase call to {_callee_name(call)}", root=call):
                self.recorder.rewriter(InsertPoint.before(call)).erase(call)
            if in_place:
                self.uses.erase_node(resolved.target)
                _add(dead, resolved.target)

        for node in dead:
            if node in scc:
                scc.remove(node)
            _add(self.dead, node)
        self.calls.clear()
        return inlined_any

    def _collect_calls(self, blocks: list[Block], source: CallGraphNode, *, traverse_nested: bool) -> None:
        """Append the calls in ``blocks`` (MLIR's ``collectCallOps``, LIFO order included)."""
        worklist = [(block, source) for block in blocks]
        while worklist:
            block, owner = worklist.pop()
            for op in block.ops:
                if is_call(op):
                    callee = call_callee(op)
                    if callee is not None and callee.nested_references.data:
                        continue
                    target = self.graph.resolve(op)
                    if not target.is_external:
                        self.calls.append(_ResolvedCall(op, owner, target))
                    continue
                for region in op.regions:
                    nested = self.graph.lookup(region)
                    if traverse_nested or nested is None:
                        worklist.extend((b, nested or owner) for b in region.blocks)

    def _should_inline(self, resolved: _ResolvedCall) -> bool:
        """MLIR's ``Inliner::Impl::shouldInline``, every call being profitable."""
        call, target = resolved.call, resolved.target
        if call.has_trait(IsTerminator):
            return False
        if any(edge.target is target or edge.target is resolved.source for edge in target.edges):
            return False
        region = target.region
        assert region is not None
        if region.is_ancestor(call):
            return False
        if len(region.blocks) < 2:
            return True
        host = call.parent_op()
        assert host is not None
        return host.name == target.callable.name or not self._may_be_single_block(host)

    def _may_be_single_block(self, op: Operation) -> bool:
        """``mightHaveTrait<OpTrait::SingleBlock>``."""
        if op.has_trait(SingleBlockImplicitTerminator):
            return True
        interface = self.interfaces.get(op)
        return interface is not None and interface.has_single_block(op)

    def _inline_call(self, resolved: _ResolvedCall, *, clone: bool) -> bool:
        """MLIR's ``inlineCall``: False, with nothing changed, if it cannot inline."""
        call, callee = resolved.call, resolved.target.callable
        src = resolved.target.region
        if src is None or not src.blocks:
            return False
        arguments = call_arguments(call)
        entry_types = src.blocks[0].arg_types
        callable_interface = callee.get_trait(CallableOpInterface)
        assert callable_interface is not None
        result_types = tuple(callable_interface.get_result_types(callee))
        if len(arguments) != len(entry_types) or len(call.results) != len(result_types):
            return False
        interface = self.interfaces.get(call)
        if interface is None or not self._legal_to_inline(interface, call, callee, src, clone):
            return False
        # Each argument is cast to the callee's type; each result to its own, from the inlined
        # value of the callee's type that replaces it.
        casts = _casts(
            interface,
            [
                *((a, t) if a.type != t else None for a, t in zip(arguments, entry_types, strict=True)),
                *(
                    (r, r.type) if r.type != t else None
                    for r, t in zip(call.results, result_types, strict=True)
                ),
            ],
        )
        if casts is None:
            return False
        arguments = self._convert_arguments(call, callee, arguments, casts[: len(arguments)])
        self._convert_results(call, callee, casts[len(arguments) :])
        if len(src.blocks) == 1:
            self._splice_single_block(call, callee, _Body(src, arguments, clone))
        else:
            self._inline_blocks(call, callee, _Body(src, arguments, clone))
        return True

    def _legal_to_inline(
        self, interface: DialectInlinerInterface, call: Operation, callee: Operation, src: Region, clone: bool
    ) -> bool:
        """MLIR's legality checks: the call's dialect allows the call, the dialect of the op
        around the call its region, and each op's of the callee that op."""
        if not interface.is_legal_to_inline_call(call, callee, clone):
            return False
        host, dest = call.parent_op(), call.parent_region()
        host_interface = self.interfaces.get(host) if host is not None else None
        if (
            host_interface is None
            or dest is None
            or not host_interface.is_legal_to_inline_region(dest, src, clone)
        ):
            return False
        for op in src.walk():
            op_interface = self.interfaces.get(op)
            if op_interface is None or not op_interface.is_legal_to_inline_op(op, dest, clone):
                return False
        return True

    def _convert_arguments(
        self,
        call: Operation,
        callee: Operation,
        arguments: tuple[SSAValue, ...],
        casts: Sequence[Operation | None],
    ) -> tuple[SSAValue, ...]:
        """Insert, before the call, the cast of each argument whose type is not the callee's
        (MLIR's ``materializeCallConversion``, in argument order); the values to pass instead."""
        converted: list[SSAValue] = []
        for index, (argument, cast) in enumerate(zip(arguments, casts, strict=True)):
            if cast is None:
                converted.append(argument)
                continue
            with self.recorder.step(
                f"cast argument #{index} of call to {_symbol(callee)} to {cast.results[0].type}",
                root=call,
                full=True,
            ):
                self.recorder.rewriter(InsertPoint.before(call)).insert(cast)
            converted.append(cast.results[0])
        return tuple(converted)

    def _convert_results(self, call: Operation, callee: Operation, casts: Sequence[Operation | None]) -> None:
        """Give each result whose type is not the callee's its cast after the call, to the
        type its users expect; the cast then reads the inlined value of the callee's type."""
        point = InsertPoint.after(call)
        for index, (result, cast) in enumerate(zip(call.results, casts, strict=True)):
            if cast is None:
                continue
            with self.recorder.step(
                f"cast result #{index} of call to {_symbol(callee)} to {result.type}", root=call, full=True
            ):
                self.recorder.rewriter(point).insert(cast)
                output = cast.results[0]
                result.replace_uses_with_if(output, lambda use, cast=cast: use.operation is not cast)
            point = InsertPoint.after(cast)

    def _enclosing_node(self, region: Region) -> CallGraphNode:
        """The call graph node of the closest callable around ``region``."""
        current: Region | None = region
        while current is not None:
            node = self.graph.lookup(current)
            if node is not None:
                return node
            current = current.parent_region()
        raise ValueError("inlined blocks are not inside a callable")

    def _splice_single_block(self, call: Operation, callee: Operation, body: _Body) -> None:
        """Put a one-block body after the call; its return's operands replace the call's results."""
        region = call.parent_region()
        assert region is not None
        with self.recorder.step(f"inline body of {_symbol(callee)}", root=call, full=True):
            (block,) = body.take()
            self._collect_calls([block], self._enclosing_node(region), traverse_nested=True)
            terminator = block.last_op
            assert terminator is not None
            for result, value in zip(call.results, terminator.operands, strict=True):
                result.replace_all_uses_with(value)
            block.erase_op(terminator)
            ops = list(block.ops)
            for op in ops:
                op.detach()
            call_block = call.parent_block()
            assert call_block is not None
            call_block.insert_ops_after(ops, call)

    def _inline_blocks(self, call: Operation, callee: Operation, body: _Body) -> None:
        """Inline a multi-block body between the call's block and its continuation."""
        name = _symbol(callee)
        call_block, region = call.parent_block(), call.parent_region()
        assert call_block is not None and region is not None and call.next_op is not None
        with self.recorder.step(f"split block at call to {name}", root=call, full=True):
            continuation = call_block.split_before(call.next_op)
        with self.recorder.step(f"inline blocks of {name}", root=call, full=True):
            blocks = body.take()
            region.insert_block_before(blocks, continuation)
        self._collect_calls(blocks, self._enclosing_node(region), traverse_nested=True)
        if call.results:
            with self.recorder.step(f"results of {name} become block arguments", root=call, full=True):
                for result in call.results:
                    argument = continuation.insert_arg(result.type, len(continuation.args))
                    result.replace_all_uses_with(argument)
        with self.recorder.step(f"returns of {name} become branches", root=call, full=True):
            for block in blocks:
                terminator = block.last_op
                interface = self.interfaces.get(terminator) if terminator is not None else None
                if terminator is not None and interface is not None:
                    interface.handle_terminator(terminator, continuation)
        with self.recorder.step(f"merge entry block of {name}", root=call, full=True):
            entry = blocks[0]
            ops = list(entry.ops)
            for op in ops:
                op.detach()
            call_block.add_ops(ops)
            region.detach_block(entry).erase()


@dataclass(frozen=True)
class _Body:
    """A callee's body about to be inlined at a call."""

    region: Region
    """The callee's region."""
    arguments: tuple[SSAValue, ...]
    """The call's arguments, which replace the entry block's."""
    clone: bool
    """Clone the blocks (the callee stays) rather than move them out."""

    def take(self) -> list[Block]:
        """The blocks, detached, with the call's arguments for the entry block's."""
        region = self.region.clone() if self.clone else self.region
        entry = region.blocks[0]
        for argument, value in zip(entry.args, self.arguments, strict=True):
            # MLIR has no names to carry over: the callee's argument names stay out of the caller
            hint = value.name_hint
            argument.replace_all_uses_with(value)
            value.name_hint = hint
        for argument in reversed(entry.args):
            entry.erase_arg(argument)
        return [region.detach_block(block) for block in list(region.blocks)]


def _casts(
    interface: DialectInlinerInterface, conversions: Sequence[tuple[SSAValue, Attribute] | None]
) -> list[Operation | None] | None:
    """The call dialect's cast (not inserted) of each value to convert to a type (None where
    there is none to convert); None, with nothing left behind, if one cannot be converted."""
    casts: list[Operation | None] = []
    for conversion in conversions:
        cast = interface.materialize_call_conversion(*conversion) if conversion is not None else None
        if conversion is not None and cast is None:
            for made in casts:
                if made is not None:
                    made.erase()
            return None
        casts.append(cast)
    return casts


def _history_includes(
    node: CallGraphNode, history_id: int | None, history: list[tuple[CallGraphNode, int | None]]
) -> bool:
    while history_id is not None:
        callee, history_id = history[history_id]
        if callee is node:
            return True
    return False


def _add(nodes: list[CallGraphNode], node: CallGraphNode) -> None:
    if node not in nodes:
        nodes.append(node)


def _symbol(function: Operation) -> str:
    name = function.properties.get("sym_name") or function.attributes.get("sym_name")
    return f"@{name.data}" if isinstance(name, StringAttr) else function.name


def _callee_name(call: Operation) -> str:
    callee = call_callee(call)
    return f"@{callee.string_value()}" if callee is not None else call.name
