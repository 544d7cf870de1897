"""MLIR's ``scf`` folders and canonicalization patterns.

They follow ``mlir/lib/Dialect/SCF/IR/SCF.cpp`` as of the LLVM that Triton 3.6
builds against: ``scf.for``, ``scf.if``, ``scf.while`` and ``scf.execute_region``.
Every pattern has benefit 1, so each op's patterns are listed in the order MLIR
registers them.  Where MLIR changes uses behind the rewriter's back (``use.set``
without a notification) so do these, so that the driver revisits the same ops.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, cf, scf
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import BlockInsertPoint, InsertPoint
from xdsl.traits import CallableOpInterface
from xdsl.transforms.canonicalization_patterns.scf import replace_op_with_region

from passviz.compilers.mlir.canonicalization.arith import Folder, FoldResult
from passviz.compilers.mlir.canonicalization.builders import binary, i1_constant, select
from passviz.compilers.mlir.canonicalization.conditions import ConstantCondition, bool_constant
from passviz.compilers.mlir.version import llvm_snapshot
from passviz.rewrite.matchers import APInt, constant_attr, int_value, int_width, is_int

# ---------------------------------------------------------------------------
# Helpers


def _parent_region(value: SSAValue) -> Region | None:
    """``Value::getParentRegion``."""
    if isinstance(value, BlockArgument):
        return value.block.parent
    if isinstance(value, OpResult):
        return value.op.parent_region()
    return None


def _is_ancestor(region: Region, other: Region | None) -> bool:
    """``Region::isAncestor``: ``other`` is ``region`` or nested in it."""
    while other is not None:
        if other is region:
            return True
        parent = other.parent
        other = parent.parent_region() if parent is not None else None
    return False


def _yield(block: Block) -> scf.YieldOp:
    terminator = block.last_op
    assert isinstance(terminator, scf.YieldOp)
    return terminator


def _replace_uses_silently(rewriter: PatternRewriter, old: SSAValue, new: SSAValue) -> None:
    """``Value::replaceAllUsesWith``: MLIR does not tell the driver about the users."""
    if old.uses:
        old.replace_all_uses_with(new)
        rewriter.has_done_action = True


def _new_for(op: scf.ForOp, iter_args: Sequence[SSAValue]) -> scf.ForOp:
    """``ForOp::build`` without a body builder: a body block, and a yield if no iter_args."""
    block = Block(arg_types=[op.lb.type, *(value.type for value in iter_args)])
    if not iter_args:
        block.add_op(scf.YieldOp())
    new = scf.ForOp(op.lb, op.ub, op.step, iter_args, Region(block))
    new.attributes.update(op.attributes)
    return new


def _new_if(cond: SSAValue, types: Sequence[Attribute]) -> scf.IfOp:
    """``IfOp::build(resultTypes, cond)``: both regions empty."""
    return scf.IfOp.create(operands=[cond], result_types=list(types), regions=[Region(), Region()])


def _new_while(types: Sequence[Attribute], inits: Sequence[SSAValue], with_blocks: bool) -> scf.WhileOp:
    """``WhileOp`` with empty regions, or with blocks for its inits and results."""
    before, after = Region(), Region()
    if with_blocks:
        before.add_block(Block(arg_types=[value.type for value in inits]))
        after.add_block(Block(arg_types=list(types)))
    return scf.WhileOp.create(operands=list(inits), result_types=list(types), regions=[before, after])


def _merge_blocks(
    rewriter: PatternRewriter, source: Block, dest: Block, args: Sequence[SSAValue] = ()
) -> None:
    """``RewriterBase::mergeBlocks``: move ``source``'s ops to the end of ``dest``."""
    rewriter.inline_block(source, InsertPoint.at_end(dest), args)


# ---------------------------------------------------------------------------
# scf.execute_region


def _no_inline(op: Operation) -> bool:
    return "no_inline" in op.properties or "no_inline" in op.attributes


class SingleBlockExecuteInliner(RewritePattern):
    """Inline an ``scf.execute_region`` whose region has a single block."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ExecuteRegionOp, rewriter: PatternRewriter) -> None:
        if op.region.first_block is None or op.region.first_block is not op.region.last_block:
            return
        if _no_inline(op):
            return
        replace_op_with_region(rewriter, op, op.region)


class MultiBlockExecuteInliner(RewritePattern):
    """Inline an ``scf.execute_region`` into a function (or region op) body as a CFG."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ExecuteRegionOp, rewriter: PatternRewriter) -> None:
        if _no_inline(op):
            return
        parent = op.parent_op()
        if parent is None or not (
            parent.has_trait(CallableOpInterface) or isinstance(parent, scf.ExecuteRegionOp)
        ):
            return
        prev_block = op.parent_block()
        entry = op.region.first_block
        assert prev_block is not None and entry is not None
        post_block = prev_block.split_before(op)
        rewriter.has_done_action = True
        rewriter.insert(cf.BranchOp(entry), InsertPoint.at_end(prev_block))
        for block in op.region.blocks:
            terminator = block.last_op
            if isinstance(terminator, scf.YieldOp):
                rewriter.insert(cf.BranchOp(post_block, *terminator.operands), InsertPoint.before(terminator))
                rewriter.erase(terminator)
        rewriter.inline_region(op.region, BlockInsertPoint.before(post_block))
        args = [post_block.insert_arg(result.type, len(post_block.args)) for result in op.results]
        rewriter.replace(op, [], args)


# ---------------------------------------------------------------------------
# scf.for


class ForOpIterArgsFolder(RewritePattern):
    """Drop iter_args that are yielded unchanged, or unused and yielded from outside."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        block = op.body.block
        old_yield = _yield(block)
        keep: list[bool] = []
        new_iter_args: list[SSAValue] = []
        transfer: list[SSAValue | None] = [None]
        new_results: list[SSAValue | None] = []
        for init, arg, result, yielded in zip(
            op.iter_args, block.args[1:], op.res, old_yield.operands, strict=True
        ):
            forwarded = arg == yielded or (not arg.uses and (init == yielded or not result.uses))
            keep.append(not forwarded)
            if forwarded:
                transfer.append(init)
                new_results.append(init)
                continue
            new_iter_args.append(init)
            transfer.append(None)
            new_results.append(None)
        if all(keep):
            return

        new_op = _new_for(op, new_iter_args)
        rewriter.insert(new_op, InsertPoint.before(op))
        new_block = new_op.body.block
        transfer[0] = new_block.args[0]
        kept = 0
        for index, value in enumerate(new_results):
            if value is None:
                transfer[index + 1] = new_block.args[1 + kept]
                new_results[index] = new_op.res[kept]
                kept += 1
        args = [value for value in transfer if value is not None]
        values = [value for value in new_results if value is not None]

        if not new_iter_args:
            # The new loop has a yield already: put the body before it, drop the old one.
            new_yield = _yield(new_block)
            rewriter.inline_block(block, InsertPoint.before(new_yield), args)
            merged_yield = new_yield.prev_op
            assert merged_yield is not None
            rewriter.erase(merged_yield)
            rewriter.replace(op, [], values)
            return

        _merge_blocks(rewriter, block, new_block, args)
        merged_yield = _yield(new_block)
        filtered = [operand for operand, k in zip(merged_yield.operands, keep, strict=True) if k]
        rewriter.insert(scf.YieldOp(*filtered), InsertPoint.before(merged_yield))
        rewriter.erase(merged_yield)
        rewriter.replace(op, [], values)


def _ub_minus_lb(lower: SSAValue, upper: SSAValue) -> int | None:
    """``computeUbMinusLb``: ``c`` when ``upper = addi(lower, c) overflow<nsw>``."""
    add = upper.owner
    if not isinstance(add, arith.AddiOp) or "nsw" not in add.overflow_flags.data or add.lhs != lower:
        return None
    diff = int_value(constant_attr(add.rhs))
    return None if diff is None else diff.signed


def static_trip_count(op: scf.ForOp) -> int | None:
    """``ForOp::getStaticTripCount`` (``constantTripCount``, signed comparison)."""
    width = int_width(op.lb.type) or 64
    if op.lb == op.ub:
        return 0
    step = int_value(constant_attr(op.step))
    if llvm_snapshot() >= (3, 9):
        return _static_trip_count_3_9(op, width, step)
    if step is not None and step.signed <= 0:
        return 0
    lb, ub = int_value(constant_attr(op.lb)), int_value(constant_attr(op.ub))
    if lb is not None:
        if ub is None:
            return None
        if ub.signed <= lb.signed:
            return 0
        diff = APInt.of(ub.signed - lb.signed, width).signed
    elif ub is not None or (diff := _ub_minus_lb(op.lb, op.ub)) is None:
        return None
    if diff < 0:
        return 0
    if step is None:
        return None
    return -(-diff // step.signed)


def _static_trip_count_3_9(op: scf.ForOp, width: int, step: APInt | None) -> int | None:
    lb, ub = int_value(constant_attr(op.lb)), int_value(constant_attr(op.ub))
    return trip_count_3_9(
        None if lb is None else lb.signed,
        None if ub is None else ub.signed,
        None if step is None else step.signed,
        width,
        _ub_minus_lb(op.lb, op.ub) if lb is None and ub is None else None,
    )


def trip_count_3_9(
    lb: int | None, ub: int | None, step: int | None, width: int, ub_minus_lb: int | None = None
) -> int | None:
    """``constantTripCount`` of Triton 3.9's LLVM, from the bounds' signed constant
    values (None where not constant): bounds that do not increase mean no trip
    whatever the step; otherwise the count needs a positive constant step, and
    ``ub - lb`` is read unsigned, so it cannot overflow.  ``ub_minus_lb`` is the
    difference known without constant bounds (``ub = lb + c``), if any."""
    if lb is not None and ub is not None:
        if ub <= lb:
            return 0
        diff = (ub - lb) % (1 << width)
    elif ub_minus_lb is not None:
        if ub_minus_lb <= 0:
            return 0
        diff = ub_minus_lb
    else:
        return None
    if step is None or step <= 0:
        return None
    return -(-diff // step)


class SimplifyTrivialLoops(RewritePattern):
    """Erase loops that never run, inline ones that run once, drop empty ones."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        trip_count = static_trip_count(op)
        if trip_count is None:
            return
        if trip_count == 0:
            rewriter.replace(op, [], list(op.iter_args))
            return
        if trip_count == 1:
            replace_op_with_region(rewriter, op, op.body, [op.lb, *op.iter_args])
            return
        block = op.body.block
        if block.first_op is not block.last_op:
            return
        yielded = list(_yield(block).operands)
        if any(_is_ancestor(op.body, _parent_region(value)) for value in yielded):
            return
        rewriter.replace(op, [], yielded)


# ---------------------------------------------------------------------------
# scf.if


def _else_block(op: scf.IfOp) -> Block | None:
    return op.false_region.last_block


def _then_block(op: scf.IfOp) -> Block:
    block = op.true_region.last_block
    assert block is not None
    return block


def _fold_if(op: Operation) -> FoldResult | None:
    """``if (!c) then A else B -> if c then B else A``."""
    assert isinstance(op, scf.IfOp)
    if not op.false_region.blocks:
        return None
    xor = op.cond.owner
    if not isinstance(xor, arith.XOrIOp) or not is_int(constant_attr(xor.rhs), 1):
        return None
    op.operands = [xor.lhs]
    then_blocks = [op.true_region.detach_block(b) for b in list(op.true_region.blocks)]
    else_blocks = [op.false_region.detach_block(b) for b in list(op.false_region.blocks)]
    op.true_region.add_block(else_blocks)
    op.false_region.add_block(then_blocks)
    return []


class RemoveUnusedResults(RewritePattern):
    """Drop the results of an ``scf.if`` that have no uses."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.IfOp, rewriter: PatternRewriter) -> None:
        used = [result for result in op.output if result.uses]
        if len(used) == len(op.output):
            return
        new_op = _new_if(op.cond, [result.type for result in used])
        rewriter.insert(new_op, InsertPoint.before(op))
        for source, dest in ((op.true_region, new_op.true_region), (op.false_region, new_op.false_region)):
            block = rewriter.create_block(BlockInsertPoint.at_end(dest))
            source_block = source.blocks.first
            assert source_block is not None
            _merge_blocks(rewriter, source_block, block)
            terminator = _yield(block)
            terminator.operands = [terminator.operands[result.index] for result in used]
            rewriter.notify_op_modified(terminator)
        replacements: list[SSAValue | None] = [None] * len(op.output)
        for new_result, result in zip(new_op.output, used, strict=True):
            replacements[result.index] = new_result
        rewriter.replace(op, [], replacements)


def _yields_of_results(op: scf.IfOp) -> tuple[scf.YieldOp, scf.YieldOp] | None:
    """The then and else blocks' yields of an ``scf.if`` with results (which has both
    blocks); None for one without results."""
    if not op.output:
        return None
    else_block = _else_block(op)
    assert else_block is not None
    return _yield(_then_block(op)), _yield(else_block)


class RemoveStaticCondition(ConstantCondition):
    """Replace an ``scf.if`` on a constant by the region it takes."""

    kind = scf.IfOp

    def take(self, op: Operation, condition: bool, rewriter: PatternRewriter) -> None:
        assert isinstance(op, scf.IfOp)
        if condition:
            replace_op_with_region(rewriter, op, op.true_region)
        elif op.false_region.blocks:
            replace_op_with_region(rewriter, op, op.false_region)
        else:
            rewriter.erase(op)


class ConvertTrivialIfToSelect(RewritePattern):
    """Hoist yielded values defined outside the ``scf.if`` into ``arith.select``s."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.IfOp, rewriter: PatternRewriter) -> None:
        if (yields := _yields_of_results(op)) is None:
            return
        then_args, else_args = (list(yielded.operands) for yielded in yields)
        non_hoistable = [
            t.type
            for t, f in zip(then_args, else_args, strict=True)
            if _parent_region(t) is op.true_region or _parent_region(f) is op.false_region
        ]
        if len(non_hoistable) == len(op.output):
            return

        # IfOp::build(types, cond, withElseRegion=false) makes a then block that the
        # pattern erases at once: take the regions over directly.
        replacement = _new_if(op.cond, non_hoistable)
        rewriter.insert(replacement, InsertPoint.before(op))
        op.true_region.move_blocks(replacement.true_region)
        op.false_region.move_blocks(replacement.false_region)

        results: list[SSAValue] = []
        true_yields: list[SSAValue] = []
        false_yields: list[SSAValue] = []
        for t, f in zip(then_args, else_args, strict=True):
            if _parent_region(t) is replacement.true_region or _parent_region(f) is replacement.false_region:
                results.append(replacement.output[len(true_yields)])
                true_yields.append(t)
                false_yields.append(f)
            elif t == f:
                results.append(t)
            else:
                new_select = select(op.cond, t, f)
                rewriter.insert(new_select, InsertPoint.before(replacement))
                results.append(new_select.result)
        for region, values in (
            (replacement.true_region, true_yields),
            (replacement.false_region, false_yields),
        ):
            block = region.last_block
            assert block is not None
            rewriter.replace(_yield(block), scf.YieldOp(*values))
        rewriter.replace(op, [], results)


class ConditionPropagation(RewritePattern):
    """Inside the branches, the condition is known: use ``true`` / ``false`` there."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.IfOp, rewriter: PatternRewriter) -> None:
        if constant_attr(op.cond) is not None:
            return
        constants: dict[bool, arith.ConstantOp] = {}
        for use in list(op.cond.uses):
            region = use.operation.parent_region()
            if _is_ancestor(op.true_region, region):
                value = True
            elif _is_ancestor(op.false_region, region):
                value = False
            else:
                continue
            if value not in constants:
                constants[value] = i1_constant(value)
                rewriter.insert(constants[value], InsertPoint.before(op))
            use.operation.operands[use.index] = constants[value].result
            rewriter.notify_op_modified(use.operation)


class ReplaceIfYieldWithConditionOrValue(RewritePattern):
    """Results yielding the same value on both sides, or ``true``/``false``, or the reverse."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.IfOp, rewriter: PatternRewriter) -> None:
        if (yields := _yields_of_results(op)) is None:
            return
        true_yield, false_yield = yields
        for t, f, result in zip(true_yield.operands, false_yield.operands, op.output, strict=True):
            if t == f:
                _replace_uses_silently(rewriter, result, t)
                continue
            true_value, false_value = bool_constant(t), bool_constant(f)
            if true_value is None or false_value is None or not result.uses:
                continue
            if not true_value and false_value:
                # The materialized ``true`` comes from the yielded constant's dialect.
                const = i1_constant(True)
                xor = binary(arith.XOrIOp, op.cond, const.result)
                rewriter.insert([const, xor], InsertPoint.before(op))
                _replace_uses_silently(rewriter, result, xor.result)
            if true_value and not false_value:
                _replace_uses_silently(rewriter, result, op.cond)


def _is_not_of(value: SSAValue, of: SSAValue) -> bool:
    """``value`` is ``xori(of, 1)``."""
    xor = value.owner
    return isinstance(xor, arith.XOrIOp) and xor.lhs == of and is_int(constant_attr(xor.rhs), 1)


class CombineIfs(RewritePattern):
    """Merge an ``scf.if`` into the one before it on the same (or negated) condition."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, next_if: scf.IfOp, rewriter: PatternRewriter) -> None:
        prev_if = next_if.prev_op
        if not isinstance(prev_if, scf.IfOp):
            return
        next_then: Block | None = None
        next_else: Block | None = None
        if next_if.cond == prev_if.cond:
            next_then = _then_block(next_if)
            next_else = _else_block(next_if)
        if _is_not_of(next_if.cond, prev_if.cond) or _is_not_of(prev_if.cond, next_if.cond):
            next_else = _then_block(next_if)
            next_then = _else_block(next_if)
        if next_then is None and next_else is None:
            return

        prev_else_block = _else_block(prev_if)
        prev_else = list(_yield(prev_else_block).operands) if prev_else_block is not None else []
        then_values = list(_yield(_then_block(prev_if)).operands)
        # Like llvm::zip, stop at the shortest: no else region, nothing to replace.
        for result, then_value, else_value in zip(prev_if.output, then_values, prev_else, strict=False):
            for use in list(result.uses):
                region = use.operation.parent_region()
                if next_then is not None and _is_ancestor(_region_of(next_then), region):
                    use.operation.operands[use.index] = then_value
                    rewriter.notify_op_modified(use.operation)
                elif next_else is not None and _is_ancestor(_region_of(next_else), region):
                    use.operation.operands[use.index] = else_value
                    rewriter.notify_op_modified(use.operation)

        combined = _new_if(prev_if.cond, [*prev_if.output.types, *next_if.output.types])
        rewriter.insert(combined, InsertPoint.before(next_if))
        prev_if.true_region.move_blocks(combined.true_region)
        if next_then is not None:
            self._append(rewriter, next_then, _then_block(combined))
        prev_if.false_region.move_blocks(combined.false_region)
        if next_else is not None:
            if not combined.false_region.blocks:
                _region_of(next_else).move_blocks(combined.false_region)
            else:
                combined_else = _else_block(combined)
                assert combined_else is not None
                self._append(rewriter, next_else, combined_else)

        count = len(prev_if.output)
        rewriter.replace(prev_if, [], list(combined.output[:count]))
        rewriter.replace(next_if, [], list(combined.output[count:]))

    @staticmethod
    def _append(rewriter: PatternRewriter, source: Block, dest: Block) -> None:
        """Move ``source`` to the end of ``dest``, yielding both blocks' values."""
        first_yield = _yield(dest)
        second_yield = _yield(source)
        _merge_blocks(rewriter, source, dest)
        rewriter.insert(scf.YieldOp(*first_yield.operands, *second_yield.operands), InsertPoint.at_end(dest))
        rewriter.erase(first_yield)
        rewriter.erase(second_yield)


def _region_of(block: Block) -> Region:
    region = block.parent
    assert region is not None
    return region


class RemoveEmptyElseBranch(RewritePattern):
    """Drop an else region that only yields."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.IfOp, rewriter: PatternRewriter) -> None:
        if op.output:
            return
        else_block = _else_block(op)
        if else_block is None or else_block.first_op is not else_block.last_op:
            return
        new_op = op.clone_without_regions()
        rewriter.insert(new_op, InsertPoint.before(op))
        op.true_region.move_blocks(new_op.true_region)
        rewriter.erase(op)


class CombineNestedIfs(RewritePattern):
    """``if a { if b { ... } }`` -> ``if (a and b) { ... }``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.IfOp, rewriter: PatternRewriter) -> None:
        then_block = _then_block(op)
        nested = then_block.first_op
        if nested is None or nested.next_op is not then_block.last_op:
            return
        else_block = _else_block(op)
        if else_block is not None and else_block.first_op is not else_block.last_op:
            return
        if not isinstance(nested, scf.IfOp):
            return
        nested_else = _else_block(nested)
        if nested_else is not None and nested_else.first_op is not nested_else.last_op:
            return

        then_yield = list(_yield(then_block).operands)
        else_yield = list(_yield(else_block).operands) if else_block is not None else []
        to_select: list[int] = []
        for index, value in enumerate(then_yield):
            if isinstance(value, OpResult) and value.op is nested:
                assert nested_else is not None
                if _yield(nested_else).operands[value.index] != else_yield[index]:
                    return
                then_yield[index] = _yield(_then_block(nested)).operands[value.index]
                continue
            if _parent_region(value) is op.true_region:
                return
            to_select.append(index)

        condition = binary(arith.AndIOp, op.cond, nested.cond)
        new_if = _new_if(condition.result, list(op.output.types))
        rewriter.insert([condition, new_if], InsertPoint.before(op))
        new_block = rewriter.create_block(BlockInsertPoint.at_end(new_if.true_region))
        results: list[SSAValue] = list(new_if.output)
        for index in to_select:
            new_select = select(op.cond, then_yield[index], else_yield[index])
            rewriter.insert(new_select, InsertPoint.before(new_if))
            results[index] = new_select.result
        _merge_blocks(rewriter, _then_block(nested), new_block)
        rewriter.replace(_yield(new_block), scf.YieldOp(*then_yield))
        if else_yield:
            block = rewriter.create_block(BlockInsertPoint.at_end(new_if.false_region))
            rewriter.insert(scf.YieldOp(*else_yield), InsertPoint.at_end(block))
        rewriter.replace(op, [], results)


# ---------------------------------------------------------------------------
# scf.while


def _condition(op: scf.WhileOp) -> scf.ConditionOp:
    terminator = op.before_region.block.last_op
    assert isinstance(terminator, scf.ConditionOp)
    return terminator


class WhileConditionTruth(RewritePattern):
    """In the after region, a forwarded condition is ``true``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.WhileOp, rewriter: PatternRewriter) -> None:
        term = _condition(op)
        constant: arith.ConstantOp | None = None
        for forwarded, arg in zip(term.args, op.after_region.block.args, strict=True):
            if forwarded != term.condition or not arg.uses:
                continue
            if constant is None:
                constant = i1_constant(True)
                rewriter.insert(constant, InsertPoint.before(op))
            rewriter.replace_all_uses_with(arg, constant.result)


class RemoveLoopInvariantArgsFromBeforeBlock(RewritePattern):
    """Drop before-region arguments whose value never changes across iterations."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.WhileOp, rewriter: PatternRewriter) -> None:
        after_block = op.after_region.block
        before_args = op.before_region.block.args
        cond_args = _condition(op).args
        yield_op = _yield(after_block)
        invariant: dict[int, SSAValue] = {}
        for index, (init, yielded) in enumerate(zip(op.arguments, yield_op.operands, strict=True)):
            if yielded == init:
                invariant[index] = init
                continue
            if isinstance(yielded, BlockArgument) and yielded.block is after_block:
                cond_arg = cond_args[yielded.index]
                if cond_arg == before_args[index] or cond_arg == init:
                    invariant[index] = init
        if not invariant:
            return

        kept = [index for index in range(len(op.arguments)) if index not in invariant]
        new_inits = [op.arguments[index] for index in kept]
        new_yields = [yield_op.operands[index] for index in kept]
        rewriter.replace(yield_op, scf.YieldOp(*new_yields))
        new_while = _new_while(list(op.res.types), new_inits, with_blocks=False)
        rewriter.insert(new_while, InsertPoint.before(op))
        new_before = rewriter.create_block(
            BlockInsertPoint.at_start(new_while.before_region), [value.type for value in new_yields]
        )
        args = iter(new_before.args)
        replacements = [
            invariant[index] if index in invariant else next(args) for index in range(len(before_args))
        ]
        _merge_blocks(rewriter, op.before_region.block, new_before, replacements)
        rewriter.inline_region(op.after_region, BlockInsertPoint.at_start(new_while.after_region))
        rewriter.replace(op, [], list(new_while.res))


class RemoveLoopInvariantValueYielded(RewritePattern):
    """Forward condition operands defined outside the before block directly."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.WhileOp, rewriter: PatternRewriter) -> None:
        before_block = op.before_region.block
        cond = _condition(op)
        invariant = {
            index: value for index, value in enumerate(cond.args) if _parent_block(value) is not before_block
        }
        if not invariant:
            return
        new_args = [value for index, value in enumerate(cond.args) if index not in invariant]
        rewriter.replace(cond, scf.ConditionOp(cond.condition, *new_args))
        types = [value.type for value in new_args]
        new_while = _new_while(types, list(op.arguments), with_blocks=False)
        rewriter.insert(new_while, InsertPoint.before(op))
        new_after = rewriter.create_block(BlockInsertPoint.at_start(new_while.after_region), types)
        after_args: list[SSAValue] = []
        results: list[SSAValue] = []
        kept = 0
        for index in range(len(op.after_region.block.args)):
            if index in invariant:
                after_args.append(invariant[index])
                results.append(invariant[index])
                continue
            after_args.append(new_after.args[kept])
            results.append(new_while.res[kept])
            kept += 1
        _merge_blocks(rewriter, op.after_region.block, new_after, after_args)
        rewriter.inline_region(op.before_region, BlockInsertPoint.at_start(new_while.before_region))
        rewriter.replace(op, [], results)


def _parent_block(value: SSAValue) -> Block | None:
    if isinstance(value, BlockArgument):
        return value.block
    if isinstance(value, OpResult):
        return value.op.parent_block()
    return None


class WhileUnusedResult(RewritePattern):
    """Drop results unused both after the loop and in the after region."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.WhileOp, rewriter: PatternRewriter) -> None:
        term = _condition(op)
        after_args = op.after_region.block.args
        kept = [
            index
            for index, (result, arg) in enumerate(zip(op.res, after_args, strict=True))
            if result.uses or arg.uses
        ]
        if len(kept) == len(op.res):
            return
        rewriter.replace(term, scf.ConditionOp(term.condition, *(term.args[index] for index in kept)))
        types = [op.res[index].type for index in kept]
        new_while = _new_while(types, list(op.arguments), with_blocks=False)
        rewriter.insert(new_while, InsertPoint.before(op))
        new_after = rewriter.create_block(BlockInsertPoint.at_start(new_while.after_region), types)
        results: list[SSAValue | None] = [None] * len(op.res)
        block_args: list[SSAValue | None] = [None] * len(op.res)
        for new_index, index in enumerate(kept):
            results[index] = new_while.res[new_index]
            block_args[index] = new_after.args[new_index]
        rewriter.inline_region(op.before_region, BlockInsertPoint.at_start(new_while.before_region))
        after_block = op.after_region.block
        for arg, replacement in zip(after_block.args, block_args, strict=True):
            if replacement is not None:
                arg.replace_all_uses_with(replacement)
        _merge_blocks(rewriter, after_block, new_after)
        rewriter.replace(op, [], results)


class WhileCmpCond(RewritePattern):
    """In the after region, the loop's comparison (or its inverse) is known."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.WhileOp, rewriter: PatternRewriter) -> None:
        cond = _condition(op)
        cmp = cond.condition.owner
        if not isinstance(cmp, arith.CmpiOp):
            return
        predicate = cmp.predicate.value.data
        for forwarded, arg in zip(cond.args, op.after_region.block.args, strict=True):
            for index in (0, 1):
                if forwarded != cmp.operands[index]:
                    continue
                for use in list(arg.uses):
                    cmp2 = use.operation
                    if (
                        not isinstance(cmp2, arith.CmpiOp)
                        or cmp2.operands[1 - index] != cmp.operands[1 - index]
                    ):
                        continue
                    predicate2 = cmp2.predicate.value.data
                    if predicate2 == predicate:
                        same = True
                    elif predicate2 == _INVERSE[predicate]:
                        same = False
                    else:
                        continue
                    # replaceOpWithNewOp builds at the insertion point: before the loop.
                    constant = i1_constant(same)
                    rewriter.insert(constant, InsertPoint.before(op))
                    rewriter.replace(cmp2, [], [constant.result])


_INVERSE = {0: 1, 1: 0, 2: 5, 3: 4, 4: 3, 5: 2, 6: 9, 7: 8, 8: 7, 9: 6}
"""``arith::invertPredicate`` on ``cmpi`` predicate numbers."""


class WhileRemoveUnusedArgs(RewritePattern):
    """Drop before-region arguments without uses (with their inits and yields)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.WhileOp, rewriter: PatternRewriter) -> None:
        before_block = op.before_region.block
        if all(arg.uses for arg in before_block.args):
            return
        yield_op = _yield(op.after_region.block)
        kept = [index for index, arg in enumerate(before_block.args) if arg.uses]
        for arg in reversed(before_block.args):
            if not arg.uses:
                before_block.erase_arg(arg)
        new_inits = [op.arguments[index] for index in kept]
        new_yields = [yield_op.operands[index] for index in kept]
        new_while = _new_while(list(op.res.types), new_inits, with_blocks=True)
        rewriter.insert(new_while, InsertPoint.before(op))
        rewriter.replace(yield_op, scf.YieldOp(*new_yields))
        _merge_blocks(
            rewriter, before_block, new_while.before_region.block, new_while.before_region.block.args
        )
        _merge_blocks(
            rewriter, op.after_region.block, new_while.after_region.block, new_while.after_region.block.args
        )
        rewriter.replace(op, [], list(new_while.res))


class WhileRemoveDuplicatedResults(RewritePattern):
    """Forward each value only once from ``scf.condition``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.WhileOp, rewriter: PatternRewriter) -> None:
        cond = _condition(op)
        positions: dict[SSAValue, int] = {}
        unique: list[SSAValue] = []
        for arg in cond.args:
            if arg not in positions:
                positions[arg] = len(unique)
                unique.append(arg)
        if len(unique) == len(cond.args):
            return
        new_while = _new_while([value.type for value in unique], list(op.arguments), with_blocks=True)
        rewriter.insert(new_while, InsertPoint.before(op))
        new_after = new_while.after_region.block
        after_args = [new_after.args[positions[arg]] for arg in cond.args]
        results = [new_while.res[positions[arg]] for arg in cond.args]
        rewriter.replace(cond, scf.ConditionOp(cond.condition, *unique))
        new_before = new_while.before_region.block
        _merge_blocks(rewriter, op.before_region.block, new_before, new_before.args)
        _merge_blocks(rewriter, op.after_region.block, new_after, after_args)
        rewriter.replace(op, [], results)


class WhileOpAlignBeforeArgs(RewritePattern):
    """Forward the before-region arguments to ``scf.condition`` in their own order."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.WhileOp, rewriter: PatternRewriter) -> None:
        old_before = op.before_region.block
        cond = _condition(op)
        before_args: list[SSAValue] = list(old_before.args)
        term_args = list(cond.args)
        if before_args == term_args or len(set(term_args)) != len(term_args):
            return
        if len(before_args) != len(term_args) or any(arg not in term_args for arg in before_args):
            return
        # mapping[j] = i: the j-th condition operand is the i-th before argument.
        mapping = [before_args.index(arg) for arg in term_args]
        rewriter.replace(cond, scf.ConditionOp(cond.condition, *before_args))
        types: list[Attribute] = [before_args[0].type] * len(before_args)
        for result, position in zip(op.res, mapping, strict=True):
            types[position] = result.type
        new_while = _new_while(types, list(op.arguments), with_blocks=True)
        rewriter.insert(new_while, InsertPoint.before(op))
        new_before = new_while.before_region.block
        new_after = new_while.after_region.block
        results = [new_while.res[position] for position in mapping]
        after_args = [new_after.args[position] for position in mapping]
        rewriter.inline_block(old_before, InsertPoint.at_start(new_before), new_before.args)
        rewriter.inline_block(op.after_region.block, InsertPoint.at_start(new_after), after_args)
        rewriter.replace(op, [], results)


# ---------------------------------------------------------------------------
# Tables

PATTERNS: dict[str, tuple[RewritePattern, ...]] = {
    scf.ExecuteRegionOp.name: (SingleBlockExecuteInliner(), MultiBlockExecuteInliner()),
    # ForOpTensorCastFolder, third in MLIR, needs tensor.cast, which TTIR lacks.
    scf.ForOp.name: (ForOpIterArgsFolder(), SimplifyTrivialLoops()),
    scf.IfOp.name: (
        CombineIfs(),
        CombineNestedIfs(),
        ConditionPropagation(),
        ConvertTrivialIfToSelect(),
        RemoveEmptyElseBranch(),
        RemoveStaticCondition(),
        RemoveUnusedResults(),
        ReplaceIfYieldWithConditionOrValue(),
    ),
    scf.WhileOp.name: (
        RemoveLoopInvariantArgsFromBeforeBlock(),
        RemoveLoopInvariantValueYielded(),
        WhileConditionTruth(),
        WhileCmpCond(),
        WhileUnusedResult(),
        WhileRemoveDuplicatedResults(),
        WhileRemoveUnusedArgs(),
        WhileOpAlignBeforeArgs(),
    ),
}
"""MLIR's canonicalization patterns of each scf op, in registration order."""

FOLDERS: dict[str, Folder] = {scf.IfOp.name: _fold_if}
"""MLIR's scf folders."""

OP_NAMES: frozenset[str] = frozenset(
    {
        scf.ExecuteRegionOp.name,
        scf.ForOp.name,
        scf.IfOp.name,
        scf.WhileOp.name,
        scf.YieldOp.name,
        scf.ConditionOp.name,
    }
)
"""The scf ops whose tables these are (``scf.yield`` and ``scf.condition`` have none)."""
