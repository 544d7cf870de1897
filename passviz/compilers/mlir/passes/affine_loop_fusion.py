"""``affine-loop-fusion``: MLIR's greedy affine loop fusion, one step per fusion.

As MLIR's ``LoopFusion`` in its default (greedy) mode, on every block holding
two ``affine.for`` nests or more: a memref dependence graph of the block's
top-level ops (loop nests, top-level loads and stores, ops with memory
effects or used results; a ``memref.dealloc`` frees its memref, an op of
unknown effects such as ``toy.print`` reads its memrefs) and, over it,
producer-consumer fusion of producers with a single user, sibling
(input-reuse) fusion, and producer-consumer fusion of the remaining
producers.  Nodes are visited in the order MLIR's ``DenseMap`` of nodes holds
them, which decides which nest absorbs which.  The slice of the source nest
goes at the start of the destination's innermost common loop (at its end
for a sibling that comes after the destination) and its loops, one
iteration each, are promoted: the source's indices become the
destination's, or an ``arith.constant`` at the function's start where the
slice pins a loop of one iteration.

What passviz computes of MLIR's slices is the case Toy's lowering produces:
the source nest writes (or, for siblings, reads) the memref through a map
whose results are its indices (or constants), and so does the destination,
so that at the destination's full depth every source loop runs one
iteration (a unit slice: MLIR's cost model always picks that depth, as it
adds no computation).  Pairs whose slice is not a unit slice over equal loop
bounds, or that MLIR would give a private memref, are left unfused.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import affine as xaffine
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineSymExpr
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.traits import MemoryEffectKind, RecursiveMemoryEffect, get_effects, is_side_effect_free

from passviz.compilers.mlir.dialects.affine import LoadOp, StoreOp, constant_index
from passviz.recording.interface import StepRecorder, TracedPass

Access = LoadOp | StoreOp


def is_for(op: Operation | None) -> bool:
    """Whether ``op`` is an ``affine.for``."""
    return isinstance(op, xaffine.ForOp)


@dataclass
class Node:
    """A top-level op of the block and the accesses inside it (MLIR's ``MemRefDependenceGraph::Node``)."""

    id: int
    """Its id: program order when the graph was built."""
    op: Operation
    """The op."""
    loads: list[LoadOp] = field(default_factory=list[LoadOp])
    """The affine loads in it."""
    stores: list[StoreOp] = field(default_factory=list[StoreOp])
    """The affine stores in it."""
    memref_loads: list[SSAValue] = field(default_factory=list[SSAValue])
    """Memrefs other ops in it read."""
    memref_stores: list[SSAValue] = field(default_factory=list[SSAValue])
    """Memrefs other ops in it write."""
    memref_frees: list[SSAValue] = field(default_factory=list[SSAValue])
    """Memrefs ops in it free."""

    def collect(self) -> None:
        """MLIR's ``LoopNestStateCollector``: the accesses of ``op`` and of the ops it nests."""
        self.loads, self.stores = [], []
        self.memref_loads, self.memref_stores, self.memref_frees = [], [], []
        for op in _post_order(self.op):
            if is_for(op):
                continue
            if isinstance(op, LoadOp):
                self.loads.append(op)
                continue
            if isinstance(op, StoreOp):
                self.stores.append(op)
                continue
            effects = get_effects(op)
            memrefs = [v for v in op.operands if isinstance(v.type, MemRefType)]
            if effects is None:
                if op.has_trait(RecursiveMemoryEffect):
                    continue
                # Unknown effects: MLIR's graph gives the op a node that reads its memrefs
                # (iree-opt moves a fused nest above a toy.print of what it writes).
                self.memref_loads += memrefs
                continue
            kinds = {effect.kind for effect in effects}
            if MemoryEffectKind.READ in kinds:
                self.memref_loads += memrefs
            if MemoryEffectKind.WRITE in kinds:
                self.memref_stores += memrefs
            if MemoryEffectKind.FREE in kinds:
                self.memref_frees += memrefs

    def load_count(self, value: SSAValue) -> int:
        return sum(1 for load in self.loads if load.memref == value)

    def store_count(self, value: SSAValue) -> int:
        return sum(1 for store in self.stores if store.memref == value)

    def has_store(self, value: SSAValue) -> bool:
        return self.store_count(value) > 0 or value in self.memref_stores

    def has_free(self, value: SSAValue) -> bool:
        return value in self.memref_frees

    def accessed(self) -> list[SSAValue]:
        """Every memref it accesses, in MLIR's order (affine loads, stores, then the others)."""
        values = [a.memref for a in self.loads] + [a.memref for a in self.stores]
        return list(dict.fromkeys(values + self.memref_loads + self.memref_stores + self.memref_frees))


def _post_order(op: Operation) -> Iterable[Operation]:
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                yield from _post_order(child)
    yield op


@dataclass(frozen=True)
class Edge:
    """A dependence to or from node ``id`` through ``value``."""

    id: int
    value: SSAValue


@dataclass
class DependenceGraph:
    """MLIR's ``MemRefDependenceGraph`` of one block."""

    block: Block
    nodes: dict[int, Node] = field(default_factory=dict[int, Node])
    in_edges: dict[int, list[Edge]] = field(default_factory=dict[int, list[Edge]])
    out_edges: dict[int, list[Edge]] = field(default_factory=dict[int, list[Edge]])
    memref_edge_count: dict[SSAValue, int] = field(default_factory=dict[SSAValue, int])
    buckets: int = 64
    """The bucket count of MLIR's ``DenseMap`` of nodes, which orders its worklists."""

    def build(self) -> bool:
        """MLIR's ``init``: False where the block holds an op the graph cannot describe."""
        accesses: dict[SSAValue, list[int]] = {}
        for_nodes: dict[Operation, int] = {}

        def add(op: Operation) -> Node:
            node = Node(len(self.nodes), op)
            node.collect()
            self.nodes[node.id] = node
            for value in node.accessed():
                ids = accesses.setdefault(value, [])
                if node.id not in ids:
                    ids.append(node.id)
            return node

        for op in self.block.ops:
            if is_for(op):
                for_nodes[op] = add(op).id
            elif isinstance(op, LoadOp | StoreOp):
                add(op)
            elif op.results and any(result.uses for result in op.results):
                add(op)
            elif not is_side_effect_free(op) and not op.regions and not isinstance(op, func.ReturnOp):
                # (func.return is Pure in MLIR)
                add(op)
            elif op.regions:
                return False
        self.buckets = _dense_map_buckets(len(self.nodes))
        for node in [self.nodes[id] for id in self.ordered_ids()]:
            if node.stores:
                continue
            for value in node.op.results:
                for use in value.uses:
                    loop = _top_level_loop(use.operation, self.block)
                    if loop is not None and loop in for_nodes:
                        self.add_edge(node.id, for_nodes[loop], value)
        for value, ids in accesses.items():
            for i, src in enumerate(ids):
                src_writes = self.nodes[src].has_store(value) or self.nodes[src].has_free(value)
                for dst in ids[i + 1 :]:
                    dst_writes = self.nodes[dst].has_store(value) or self.nodes[dst].has_free(value)
                    if src_writes or dst_writes:
                        self.add_edge(src, dst, value)
        return True

    def ordered_ids(self) -> list[int]:
        """The node ids in the order MLIR's graph iterates them: its ``DenseMap``'s buckets
        (``id * 37`` modulo their count)."""
        return sorted(self.nodes, key=lambda id: (id * 37) % self.buckets)

    def has_edge(self, src: int, dst: int, value: SSAValue) -> bool:
        return Edge(dst, value) in self.out_edges.get(src, [])

    def add_edge(self, src: int, dst: int, value: SSAValue) -> None:
        if self.has_edge(src, dst, value):
            return
        self.out_edges.setdefault(src, []).append(Edge(dst, value))
        self.in_edges.setdefault(dst, []).append(Edge(src, value))
        if isinstance(value.type, MemRefType):
            self.memref_edge_count[value] = self.memref_edge_count.get(value, 0) + 1

    def remove_edge(self, src: int, dst: int, value: SSAValue) -> None:
        self.out_edges[src].remove(Edge(dst, value))
        self.in_edges[dst].remove(Edge(src, value))
        if isinstance(value.type, MemRefType):
            self.memref_edge_count[value] -= 1

    def remove_node(self, id: int) -> None:
        for edge in list(self.in_edges.get(id, [])):
            self.remove_edge(edge.id, id, edge.value)
        for edge in list(self.out_edges.get(id, [])):
            self.remove_edge(id, edge.id, edge.value)
        self.in_edges.pop(id, None)
        self.out_edges.pop(id, None)
        del self.nodes[id]

    def out_edge_count(self, id: int, value: SSAValue | None = None) -> int:
        return sum(1 for e in self.out_edges.get(id, []) if value is None or e.value == value)

    def incoming_memref_accesses(self, id: int, value: SSAValue) -> int:
        return sum(
            1
            for e in self.in_edges.get(id, [])
            if e.value == value and self.nodes[e.id].store_count(value) > 0
        )

    def has_dependence_path(self, src: int, dst: int) -> bool:
        seen = {src}
        stack = [src]
        while stack:
            for edge in self.out_edges.get(stack.pop(), []):
                if edge.id == dst:
                    return True
                if edge.id not in seen:
                    seen.add(edge.id)
                    stack.append(edge.id)
        return False

    def insertion_point(self, src: int, dst: int) -> Operation | None:
        """MLIR's ``getFusedLoopNestInsertionPoint``: where the fused nest may go, or None."""
        src_deps = {self.nodes[e.id].op for e in self.out_edges.get(src, []) if e.id != dst}
        dst_deps = {self.nodes[e.id].op for e in self.in_edges.get(dst, []) if e.id != src}
        between: list[Operation] = []
        first_src: int | None = None
        last_dst: int | None = None
        op = self.nodes[src].op.next_op
        dst_op = self.nodes[dst].op
        while op is not None and op is not dst_op:
            if op in src_deps and first_src is None:
                first_src = len(between)
            if op in dst_deps:
                last_dst = len(between)
            between.append(op)
            op = op.next_op
        if first_src is not None:
            if last_dst is not None and first_src <= last_dst:
                return None
            return between[first_src]
        return dst_op

    def update_edges(self, src: int, dst: int, remove_src: bool) -> None:
        """MLIR's ``updateEdges`` after fusing ``src`` into ``dst`` (no private memrefs)."""
        for edge in list(self.in_edges.get(src, [])):
            self.add_edge(edge.id, dst, edge.value)
        for edge in list(self.out_edges.get(src, [])):
            if edge.id == dst:
                self.remove_edge(src, edge.id, edge.value)
            elif remove_src:
                self.add_edge(dst, edge.id, edge.value)
                self.remove_edge(src, edge.id, edge.value)

    def update_sibling_edges(self, sib: int, dst: int) -> None:
        """MLIR's ``updateEdges(sibId, dstId)`` after sibling fusion."""
        for edge in list(self.in_edges.get(sib, [])):
            self.add_edge(edge.id, dst, edge.value)
            self.remove_edge(edge.id, sib, edge.value)
        for edge in list(self.out_edges.get(sib, [])):
            self.add_edge(dst, edge.id, edge.value)
            self.remove_edge(sib, edge.id, edge.value)


def _dense_map_buckets(entries: int) -> int:
    """How many buckets an LLVM ``DenseMap`` has after ``entries`` insertions (64 at least,
    doubling when an insertion would fill three quarters)."""
    buckets = 64
    while entries * 4 >= buckets * 3:
        buckets *= 2
    return buckets


def _top_level_loop(op: Operation, block: Block) -> Operation | None:
    """The ``affine.for`` of ``block`` that ``op`` is nested in, if any."""
    found: Operation | None = None
    current: Operation | None = op
    while current is not None:
        if current.parent_block() is block:
            return current if is_for(current) else found
        if is_for(current):
            found = current
        current = current.parent_op()
    return None


def surrounding_loops(op: Operation, outermost: Operation) -> list[xaffine.ForOp]:
    """The ``affine.for`` ops around ``op``, from ``outermost`` (included) inwards."""
    loops: list[xaffine.ForOp] = []
    current = op.parent_op()
    while current is not None:
        if isinstance(current, xaffine.ForOp):
            loops.append(current)
        if current is outermost:
            break
        current = current.parent_op()
    return list(reversed(loops))


def _iv_loop(value: SSAValue) -> xaffine.ForOp | None:
    if isinstance(value, BlockArgument) and value.index == 0:
        owner = value.block.parent_op()
        if isinstance(owner, xaffine.ForOp):
            return owner
    return None


Subscript = xaffine.ForOp | int | None
"""What one subscript of an access is: a loop's index, a constant, or something else."""


def _result_loops(access: Access) -> list[Subscript]:
    """For each result of the access map: the loop whose index it is, or the constant it is."""
    loops: list[Subscript] = []
    map_ = access.map.data
    for expr in map_.results:
        if isinstance(expr, AffineConstantExpr):
            loops.append(expr.value)
            continue
        if isinstance(expr, AffineDimExpr | AffineSymExpr):
            position = expr.position if isinstance(expr, AffineDimExpr) else map_.num_dims + expr.position
            operand = access.indices[position]
            constant = constant_index(operand)
            loops.append(constant if constant is not None else _iv_loop(operand))
            continue
        loops.append(None)
    return loops


def _bounds(loop: xaffine.ForOp) -> tuple[object, ...] | None:
    if loop.lowerBoundOperands or loop.upperBoundOperands:
        return None
    return (loop.lowerBoundMap, loop.upperBoundMap, loop.step)


def unit_slice(
    src_for: Operation, src_accesses: list[Access], dst_for: Operation, dst_accesses: list[Access]
) -> dict[xaffine.ForOp, xaffine.ForOp | int] | None:
    """Each source loop's destination loop (or constant) when the slice at the destination's
    depth is one iteration.

    None unless, for every pair of a source and a destination access to one memref, every loop
    around the source access in ``src_for`` is, through the memref's subscripts, one loop around
    the destination access with the same bounds, the same for every pair (MLIR's slice union is
    then one point)."""
    mapping: dict[xaffine.ForOp, xaffine.ForOp | int] | None = None
    for src_access in src_accesses:
        src_loops = surrounding_loops(src_access, src_for)
        src_results = _result_loops(src_access)
        for dst_access in dst_accesses:
            if dst_access.memref != src_access.memref:
                continue
            dst_loops = surrounding_loops(dst_access, dst_for)
            dst_results = _result_loops(dst_access)
            found: dict[xaffine.ForOp, xaffine.ForOp | int] = {}
            for loop in src_loops:
                if loop not in src_results:
                    # the pair leaves the loop its whole range: one point only if it has one iteration
                    single = _single_iteration(loop)
                    if single is None:
                        return None
                    found[loop] = single
                    continue
                target = dst_results[src_results.index(loop)]
                if isinstance(target, xaffine.ForOp) and target in dst_loops:
                    # a loop of one iteration pins the index as a constant does
                    target = _single_iteration(target) if _single_iteration(target) is not None else target
                if isinstance(target, int):
                    # a constant subscript pins the loop: one iteration, all of it if it has one
                    if _single_iteration(loop) != target:
                        return None
                elif (
                    target is None
                    or target not in dst_loops
                    or _bounds(target) != _bounds(loop)
                    or _bounds(loop) is None
                ):
                    return None
                found[loop] = target
            if mapping is not None and mapping != found:
                return None
            mapping = found
    if mapping is not None and len(mapping) != len(_loops_in(src_for)):
        return None
    return mapping


def fuse_unit_slice(
    rewriter: PatternRewriter,
    src_for: Operation,
    dst_for: Operation,
    dst_accesses: list[Access],
    mapping: dict[xaffine.ForOp, xaffine.ForOp | int],
    at_end: bool = False,
) -> None:
    """MLIR's ``fuseLoops`` for a unit slice: clone the source nest at the start of the
    destination's innermost common loop (at its end, before the yield, for a source after the
    destination: MLIR's forward slice), then promote each of its loops (outermost first)."""
    depth_loops = surrounding_loops(dst_accesses[0], dst_for)
    common = [
        loop for loop in depth_loops if all(loop in surrounding_loops(a, dst_for) for a in dst_accesses)
    ]
    innermost = common[-1]
    clone_map: dict[SSAValue, SSAValue] = {}
    clone = src_for.clone(value_mapper=clone_map)
    anchor = innermost.body.block.last_op if at_end else innermost.body.block.first_op
    assert anchor is not None
    rewriter.insert(clone, InsertPoint.before(anchor))
    # The clone's loops, outermost first, paired with the source loops they copy.
    pairs = list(zip(_loops_in(src_for), _loops_in(clone), strict=True))
    for original, copied in pairs:
        if original not in mapping:
            continue
        target = mapping[original]
        single = target if isinstance(target, int) else _single_iteration(target)
        if single is None:
            assert not isinstance(target, int)
            _promote(rewriter, copied, target.body.block.args[0])
            continue
        # The slice bound is then the constant (MLIR's constraints pin the index), and
        # promotion makes it an arith.constant at the start of the function.
        iv = copied.body.block.args[0]
        if iv.uses:
            function = copied.parent_op()
            while function is not None and not isinstance(function, func.FuncOp):
                function = function.parent_op()
            constant = arith.ConstantOp(IntegerAttr(single, IndexType()))
            start = function.body.block.first_op if function is not None else copied
            assert start is not None
            rewriter.insert(constant, InsertPoint.before(start))
            iv = constant.result
        _promote(rewriter, copied, iv)


def _loops_in(op: Operation) -> list[xaffine.ForOp]:
    return [child for child in op.walk() if isinstance(child, xaffine.ForOp)]


def _single_iteration(loop: xaffine.ForOp) -> int | None:
    """The one value of ``loop``'s index when its constant bounds give one iteration."""
    if loop.lowerBoundOperands or loop.upperBoundOperands:
        return None
    lower, upper = loop.lowerBoundMap.data.results, loop.upperBoundMap.data.results
    if len(lower) != 1 or len(upper) != 1:
        return None
    low, high = lower[0], upper[0]
    if not isinstance(low, AffineConstantExpr) or not isinstance(high, AffineConstantExpr):
        return None
    return low.value if high.value - low.value == 1 else None


def _promote(rewriter: PatternRewriter, loop: xaffine.ForOp, iv: SSAValue) -> None:
    """MLIR's ``promoteIfSingleIteration``: the body in the loop's place, its induction variable ``iv``."""
    body = loop.body.block
    rewriter.replace_all_uses_with(body.args[0], iv)
    terminator = body.last_op
    if terminator is not None and isinstance(terminator, xaffine.YieldOp):
        rewriter.erase(terminator)
    rewriter.inline_block(body, InsertPoint.before(loop))
    rewriter.erase(loop)


def is_escaping(value: SSAValue, block: Block) -> bool:
    """MLIR's ``isEscapingMemref``: not an alloc's, or used by something other than an affine access."""
    owner = value.owner
    if not isinstance(owner, memref.AllocOp | memref.AllocaOp):
        return True
    for use in value.uses:
        user = use.operation
        ancestor = _ancestor_in(user, block)
        if ancestor is None:
            return True
        if not isinstance(user, LoadOp | StoreOp):
            return True
    return False


def _ancestor_in(op: Operation, block: Block) -> Operation | None:
    current: Operation | None = op
    while current is not None:
        if current.parent_block() is block:
            return current
        current = current.parent_op()
    return None


@dataclass
class GreedyFusion:
    """MLIR's ``GreedyFusion`` on one block, each fusion a step."""

    graph: DependenceGraph
    recorder: StepRecorder
    worklist: list[int] = field(default_factory=list[int])

    def run(self) -> None:
        self.fuse_producer_consumer(max_src_users=1)
        self.fuse_siblings()
        self.fuse_producer_consumer(max_src_users=None)

    def _init(self) -> None:
        self.worklist = self.graph.ordered_ids()

    def fuse_producer_consumer(self, max_src_users: int | None) -> None:
        self._init()
        while self.worklist:
            self._fuse_into(self.worklist.pop(), max_src_users)

    def _producer_candidates(self, dst: Node) -> list[int]:
        consumed = {load.memref for load in dst.loads}
        found: set[int] = set()
        for edge in self.graph.in_edges.get(dst.id, []):
            src = self.graph.nodes[edge.id]
            if is_for(src.op) and any(store.memref in consumed for store in src.stores):
                found.add(src.id)
        return sorted(found)

    def _fuse_into(self, dst_id: int, max_src_users: int | None) -> None:
        graph = self.graph
        dst = graph.nodes.get(dst_id)
        if dst is None or not is_for(dst.op) or dst.op.results:
            return
        changed = True
        while changed:
            changed = False
            for src_id in reversed(self._producer_candidates(dst)):
                src = graph.nodes.get(src_id)
                if src is None or src.op.results:
                    continue
                loaded = {load.memref for load in dst.loads}
                memrefs = list(dict.fromkeys(s.memref for s in src.stores if s.memref in loaded))
                if max_src_users is not None and any(
                    graph.out_edge_count(src.id, m) > max_src_users for m in memrefs
                ):
                    continue
                escaping = {s.memref for s in src.stores if is_escaping(s.memref, graph.block)}
                point = graph.insertion_point(src.id, dst.id)
                if point is None:
                    continue
                stores: list[Access] = [s for s in src.stores if s.memref in memrefs]
                dst_accesses: list[Access] = [a for a in [*dst.loads, *dst.stores] if a.memref in memrefs]
                if any(isinstance(a, StoreOp) for a in dst_accesses):
                    continue
                mapping = unit_slice(src.op, stores, dst.op, dst_accesses)
                if mapping is None:
                    continue
                remove_src = self._can_remove_src(src, dst, point)
                if any(self._would_privatize(m, escaping, src, dst, remove_src) for m in memrefs):
                    continue
                with self.recorder.step("producer-consumer fusion", root=dst.op, full=True):
                    rewriter = self.recorder.rewriter(InsertPoint.before(dst.op))
                    fuse_unit_slice(rewriter, src.op, dst.op, dst_accesses, mapping)
                    if point is not dst.op:
                        dst.op.detach()
                        rewriter.insert(dst.op, InsertPoint.before(point))
                    graph.update_edges(src.id, dst.id, remove_src)
                    dst.collect()
                    if remove_src:
                        graph.remove_node(src.id)
                        rewriter.erase(src.op)
                changed = True

    def _can_remove_src(self, src: Node, dst: Node, point: Operation) -> bool:
        """MLIR's ``canRemoveSrcNodeAfterFusion`` for a maximal slice."""
        for edge in self.graph.out_edges.get(src.id, []):
            dep = self.graph.nodes[edge.id].op
            if dep is dst.op:
                continue
            if dep.parent_block() is not dst.op.parent_block():
                return False
            if point is not dep and not point.is_before_in_block(dep):
                return False
        return True

    def _would_privatize(
        self, value: SSAValue, escaping: set[SSAValue], src: Node, dst: Node, remove: bool
    ) -> bool:
        """MLIR's ``canCreatePrivateMemRef`` (passviz does not privatize, so it does not fuse)."""
        if value in escaping and (remove or dst.store_count(value) > 0):
            return False
        graph = self.graph
        if graph.incoming_memref_accesses(src.id, value) > 0 or graph.out_edge_count(dst.id, value) > 0:
            return False
        return not (
            remove and any(e.value == value and e.id != dst.id for e in graph.out_edges.get(src.id, []))
        )

    def fuse_siblings(self) -> None:
        self._init()
        while self.worklist:
            dst = self.graph.nodes.get(self.worklist.pop())
            if dst is None or not is_for(dst.op):
                continue
            self._fuse_with_siblings(dst)

    def _fuse_with_siblings(self, dst: Node) -> None:
        graph = self.graph
        visited: set[int] = set()
        while (found := self._find_sibling(dst, visited)) is not None:
            sib_id, value = found
            sib = graph.nodes[sib_id]
            point = (
                graph.insertion_point(sib.id, dst.id)
                if sib.op.is_before_in_block(dst.op)
                else graph.insertion_point(dst.id, sib.id)
            )
            if point is None:
                continue
            sib_load = next(load for load in sib.loads if load.memref == value)
            dst_loads: list[Access] = [load for load in dst.loads if load.memref == value]
            mapping = unit_slice(sib.op, [sib_load], dst.op, dst_loads)
            if mapping is None:
                continue
            with self.recorder.step("sibling fusion", root=dst.op, full=True):
                rewriter = self.recorder.rewriter(InsertPoint.before(dst.op))
                at_end = dst.op.is_before_in_block(sib.op)
                fuse_unit_slice(rewriter, sib.op, dst.op, dst_loads, mapping, at_end)
                if point is not dst.op:
                    dst.op.detach()
                    rewriter.insert(dst.op, InsertPoint.before(point))
                graph.update_sibling_edges(sib.id, dst.id)
                dst.collect()
                graph.remove_node(sib.id)
                rewriter.erase(sib.op)

    def _find_sibling(self, dst: Node, visited: set[int]) -> tuple[int, SSAValue] | None:
        graph = self.graph

        def can_fuse(sib: Node, value: SSAValue) -> bool:
            if sib.load_count(value) != 1:
                return False
            if graph.has_dependence_path(sib.id, dst.id) or graph.has_dependence_path(dst.id, sib.id):
                return False
            both = {load.memref for load in sib.loads} & {store.memref for store in sib.stores}
            if any(graph.incoming_memref_accesses(sib.id, m) > 0 for m in both):
                return False
            return len({store.memref for store in sib.stores}) <= 1

        block = graph.block
        for arg in block.args:
            for use in arg.uses:
                user = use.operation
                if not isinstance(user, LoadOp):
                    continue
                loop = _top_level_loop(user, block)
                if loop is None:
                    continue
                sib = next(node for node in graph.nodes.values() if node.op is loop)
                if sib.id == dst.id or sib.id in visited or dst.load_count(user.memref) == 0:
                    continue
                if can_fuse(sib, user.memref):
                    visited.add(sib.id)
                    return sib.id, user.memref
        in_edges = [
            e
            for e in graph.in_edges.get(dst.id, [])
            if isinstance(e.value.type, MemRefType)
            and dst.load_count(e.value) > 0
            and (graph.nodes[e.id].store_count(e.value) > 0 or e.value.owner is graph.nodes[e.id].op)
        ]
        for in_edge in in_edges:
            candidates = [
                e
                for e in graph.out_edges.get(in_edge.id, [])
                if isinstance(e.value.type, MemRefType)
                and e.id not in visited
                and e.id != dst.id
                and e.value == in_edge.value
                and is_for(graph.nodes[e.id].op)
                and can_fuse(graph.nodes[e.id], e.value)
            ]
            if candidates:
                visited.add(candidates[0].id)
                return candidates[0].id, candidates[0].value
        return None


def blocks_to_fuse(root: Operation) -> list[Block]:
    """The blocks holding two ``affine.for`` ops or more, in MLIR's post order."""
    found: list[Block] = []
    for op in _post_order(root):
        for region in op.regions:
            for block in region.blocks:
                if sum(1 for child in block.ops if is_for(child)) >= 2:
                    found.append(block)
    return found


@dataclass(frozen=True)
class AffineLoopFusion(TracedPass):
    """Fuse affine loop nests that produce and consume, or both read, a memref."""

    name = "affine-loop-fusion"

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        for block in blocks_to_fuse(op):
            graph = DependenceGraph(block)
            if graph.build():
                GreedyFusion(graph, recorder).run()
