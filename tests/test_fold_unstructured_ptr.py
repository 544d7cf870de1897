"""Tests of ``fold-unstructured-ptr`` (passviz.compilers.triton_shared.fold_unstructured_ptr).

Inputs are triton-shared's own ``TritonToUnstructured`` tests (the pass began
as ``fold-unstructured-ptr`` in PR #210 and became ``triton-to-unstructured``;
the inputs are the same).  triton-shared is not installed, so outputs are
checked for what the pass promises, and for meaning: a small interpreter runs
the input and the output and compares the addresses every load and store uses.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import numpy as np
import pytest
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerAttr, IntegerType, ModuleOp, TensorType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.utils.exceptions import PassFailedException
from xdsl.utils.hints import isa

from passviz.compilers.registry import make_context
from passviz.compilers.triton.dialects import tt
from passviz.compilers.triton_shared import dialect as tts
from passviz.compilers.triton_shared.fold_unstructured_ptr import LOOP_STEP, STEP_NAMES, FoldUnstructuredPtr
from passviz.ir.printer import print_module
from passviz.pipelines import TraceRun, load_trace, parse_ir, record
from passviz.recording.recorder import UNANNOUNCED, RecordOptions
from passviz.recording.replay import Replayer
from passviz.recording.shadow import Shadow
from passviz.trace.model import Step
from passviz.trace.store import schema_errors
from tests.conftest import peer_file

OpT = TypeVar("OpT", bound=Operation)

PASS = "fold-unstructured-ptr"
UNSTRUCTURED = "triton-shared/test/Conversion/TritonToUnstructured"

PEER_CASES: dict[str, str | None] = {
    "gather_no_loop.mlir": None,
    "gather_simple_loop.mlir": None,
    "gather_reuse_loop_results.mlir": None,
    "gather_nested.mlir": None,
    "scf_for_ptr_in_iterargs.mlir": None,
    "scalar_store.mlir": None,
    "make_tensor_ptr.mlir": None,
}
"""The peer inputs, with why one cannot run yet."""


def peer_params() -> list[object]:
    return [
        pytest.param(name, marks=pytest.mark.xfail(reason=reason, strict=True)) if reason else name
        for name, reason in PEER_CASES.items()
    ]


def peer_text(name: str) -> str:
    return peer_file(f"{UNSTRUCTURED}/{name}").read_text()


def run(text: str, pipeline: str = PASS, **options: object) -> TraceRun:
    """Record ``pipeline`` on ``text``, verifying after every step; it must succeed."""
    result = record(text, pipeline, options=RecordOptions(verify_each="rewrite", **options))  # pyright: ignore[reportArgumentType]
    flags = [s.flag["message"] for s in result.trace.steps if s.flag is not None]
    assert result.trace.status == "ok" and not flags, flags
    result.module.verify()
    return result


def fold_steps(steps: list[Step]) -> list[Step]:
    """The steps that folded a load, store or block-pointer base."""
    return [s for s in steps if s.name in STEP_NAMES.values()]


def ops_of(module: Operation, kind: type[OpT]) -> list[OpT]:
    return [op for op in module.walk() if isinstance(op, kind)]


# --------------------------------------------------------------------------- #
# What the pass promises, on every peer input
# --------------------------------------------------------------------------- #


def base_of(value: SSAValue) -> BlockArgument | None:
    """The pointer argument a pointer chain starts from; None for a block pointer."""
    while True:
        if isinstance(value, BlockArgument):
            loop = value.block.parent_op()
            if not isinstance(loop, scf.ForOp):
                return value
            value = loop.iter_args[value.index - 1]
            continue
        owner = value.owner
        if isinstance(owner, tt.AddPtrOp | tt.SplatOp | tt.BroadcastOp | tt.ExpandDimsOp):
            value = owner.operands[0]
        elif isinstance(owner, scf.ForOp):
            value = owner.iter_args[owner.results.index(value)]
        else:
            return None


def accesses(module: ModuleOp) -> Iterator[tt.LoadOp | tt.StoreOp]:
    for op in module.walk():
        if isinstance(op, tt.LoadOp | tt.StoreOp):
            yield op


@pytest.mark.parametrize("name", peer_params())
def test_loads_and_stores_take_one_unstructured_pointer_from_their_base(name: str) -> None:
    text = peer_text(name)
    before = [base_of(op.ptr) for op in accesses(parse_ir(text))]
    module = run(text).module
    after = list(accesses(module))
    assert len(after) == len(before)
    for op, base in zip(after, before, strict=True):
        made = op.ptr.owner
        if base is None:  # a block pointer: left alone, only the base it is made from is folded
            assert isinstance(made, tt.MakeTensorPtrOp)
            made = made.base.owner
            assert isinstance(made, tts.MakeUnstructuredTensorPtrOp)
            base = base_of(made.base)
        assert isinstance(made, tts.MakeUnstructuredTensorPtrOp), op
        assert isinstance(made.base, BlockArgument) and base is not None
        assert isinstance(made.base.block.parent_op(), tt.FuncOp)
        assert made.base.index == base.index


@pytest.mark.parametrize("name", peer_params())
def test_no_pointer_op_is_left(name: str) -> None:
    module = run(peer_text(name)).module
    assert not ops_of(module, tt.AddPtrOp)
    for op in module.walk():
        if isinstance(op, tt.SplatOp | tt.BroadcastOp | tt.ExpandDimsOp):
            assert not tt.is_ptr_like(op.results[0].type), op
        if isinstance(op, scf.ForOp):
            assert not any(tt.is_ptr_like(t) for t in op.result_types), op
    # Each pointer is made right before the one op that uses it.
    for made in ops_of(module, tts.MakeUnstructuredTensorPtrOp):
        users = [use.operation for use in made.results[0].uses]
        assert len(users) == 1 and made.next_op is users[0]


@pytest.mark.parametrize("name", peer_params())
def test_every_access_is_one_step_with_its_chain(name: str) -> None:
    text = peer_text(name)
    result = run(text)
    shadow = Shadow(parse_ir(text))  # the ids the recorder gave the input
    steps = fold_steps(result.trace.steps)
    expected = [
        op
        for op in parse_ir(text).walk()
        if isinstance(op, tt.LoadOp | tt.StoreOp | tt.MakeTensorPtrOp) and base_of(op.operands[0]) is not None
    ]
    assert len(steps) == len(expected)
    for step in steps:
        assert step.chain and step.root == step.chain[-1]
        chain = [shadow.ops[op_id].op for op_id in step.chain]
        assert STEP_NAMES[chain[-1].name] == step.name
        assert _starts_at_an_argument(chain[0])
        for earlier, later in zip(chain, chain[1:], strict=False):
            assert _feeds(earlier, later), (earlier.name, later.name)


def _values_made_by(op: Operation) -> set[SSAValue]:
    made: set[SSAValue] = set(op.results)
    for region in op.regions:
        for block in region.blocks:
            made.update(block.args)
    return made


def _feeds(earlier: Operation, later: Operation) -> bool:
    """Whether ``later`` takes a pointer that ``earlier`` made (a result, or an iter_arg)."""
    return bool(_values_made_by(earlier) & set(later.operands))


def _starts_at_an_argument(op: Operation) -> bool:
    return any(isinstance(v, BlockArgument) and tt.is_ptr_like(v.type) for v in op.operands)


def test_the_gather_no_loop_chains_exactly() -> None:
    text = peer_text("gather_no_loop.mlir")
    result = run(text)
    shadow = Shadow(parse_ir(text))
    ids = {shadow.id_of(op): op for op in shadow.root.walk()}
    (load_step, store_step) = fold_steps(result.trace.steps)

    def names(chain: list[str] | None) -> list[str]:
        assert chain is not None
        return [ids[i].name for i in chain]

    splats, addptrs = ops_of(shadow.root, tt.SplatOp), ops_of(shadow.root, tt.AddPtrOp)
    load, store = ops_of(shadow.root, tt.LoadOp)[0], ops_of(shadow.root, tt.StoreOp)[0]
    assert load_step.chain == [shadow.id_of(splats[0]), shadow.id_of(addptrs[0]), shadow.id_of(load)]
    assert store_step.chain == [shadow.id_of(splats[1]), shadow.id_of(addptrs[1]), shadow.id_of(store)]
    assert names(load_step.chain) == ["tt.splat", "tt.addptr", "tt.load"]
    assert names(store_step.chain) == ["tt.splat", "tt.addptr", "tt.store"]
    assert (load_step.name, store_step.name) == ("fold-load", "fold-store")


def test_steps_come_in_the_pass_order() -> None:
    result = run(peer_text("scalar_store.mlir"))
    ours = [s.name for s in result.trace.steps if s.kind == "rewrite" and s.name in _OWN_STEPS]
    assert ours == ["zero-offsets", LOOP_STEP, "fold-store", "erase-pointer-ops"]
    loop_step = next(s for s in result.trace.steps if s.name == LOOP_STEP)
    assert loop_step.chain is not None and len(loop_step.chain) == 2  # tt.addptr, the outer scf.for


_OWN_STEPS = {"zero-offsets", LOOP_STEP, "erase-pointer-ops", *STEP_NAMES.values()}


def test_a_loop_yielding_a_nested_loop_result_folds_both_in_one_step() -> None:
    result = run(peer_text("gather_reuse_loop_results.mlir"))
    loop_steps = [s for s in result.trace.steps if s.name == LOOP_STEP]
    # The outer loop's two pointers; its first yield needs both inner loops folded.
    assert len(loop_steps) == 2 and loop_steps[0].root == loop_steps[1].root
    created = [o["name"] for o in loop_steps[0].delta.get("ops_created", [])]
    assert created.count("tts.make_unstructured_tptr") >= 2  # bridges for the pointers' users


def test_chains_round_trip_through_the_trace_file(tmp_path: Path) -> None:
    path = tmp_path / "fold.passviz.json"
    result = record(peer_text("gather_reuse_loop_results.mlir"), PASS, output=path)
    for line in path.read_text().splitlines():
        assert schema_errors(json.loads(line)) == []
    loaded = load_trace(path)
    assert [s.chain for s in loaded.steps] == [s.chain for s in result.trace.steps]
    assert any(s.chain for s in loaded.steps)
    assert loaded.ir_at(-1) == result.trace.ir_at(-1)


def test_the_fold_alone_matches_upstream_before_its_cleanup() -> None:
    # What upstream's fold gives before its own canonicalize and cse: the
    # zero offsets at the top (last argument's first), each offset op right
    # before the pointer op it stands for, the pointer made right before its user.
    result = run(peer_text("gather_no_loop.mlir"))
    erase = next(s for s in result.trace.steps if s.name == "erase-pointer-ops")
    assert canonical_names(body_of(result.trace.ir_at(erase.index))) == canonical_names(
        """
        %z1 = arith.constant 0 : i32
        %z0 = arith.constant 0 : i32
        %cst = arith.constant dense<5> : tensor<64xi32>
        %cst_0 = arith.constant dense<10> : tensor<64xi32>
        %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
        %1 = arith.divsi %0, %cst_0 : tensor<64xi32>
        %2 = arith.addi %1, %cst : tensor<64xi32>
        %s0 = tt.splat %z0 : i32 -> tensor<64xi32>
        %a0 = arith.addi %s0, %2 : tensor<64xi32>
        %p0 = "tts.make_unstructured_tptr"(%arg0, %a0) : (!tt.ptr<f32>, tensor<64xi32>) -> tensor<64x!tt.ptr<f32>>
        %5 = tt.load %p0 : tensor<64x!tt.ptr<f32>>
        %s1 = tt.splat %z1 : i32 -> tensor<64xi32>
        %a1 = arith.addi %s1, %0 : tensor<64xi32>
        %p1 = "tts.make_unstructured_tptr"(%arg1, %a1) : (!tt.ptr<f32>, tensor<64xi32>) -> tensor<64x!tt.ptr<f32>>
        tt.store %p1, %5 : tensor<64x!tt.ptr<f32>>
        tt.return
        """
    )


def body_of(ir: str) -> str:
    """The op lines of the one function of ``ir``."""
    lines = [line.strip() for line in ir.splitlines()]
    start = next(i for i, line in enumerate(lines) if line.startswith("tt.func"))
    return "\n".join(lines[start + 1 : lines.index("}", start)])


def canonical_names(text: str) -> list[str]:
    """The lines of ``text`` with SSA names renamed in order of appearance (args kept)."""
    names: dict[str, str] = {}

    def rename(found: re.Match[str]) -> str:
        name = found.group(0)
        if name.startswith("%arg"):
            return name
        return names.setdefault(name, f"%v{len(names)}")

    return [re.sub(r"%[\w.$-]+", rename, line.strip()) for line in text.strip().splitlines()]


def test_the_cleanup_leaves_what_upstream_checks() -> None:
    # Upstream's test: two pointers made straight from the arguments, no tt.addptr.
    module = run(peer_text("gather_no_loop.mlir")).module
    made = ops_of(module, tts.MakeUnstructuredTensorPtrOp)
    assert len(made) == 2 and all(isinstance(m.operands[0], BlockArgument) for m in made)
    assert not ops_of(module, tt.SplatOp)


def test_block_pointers_keep_their_shape_and_use() -> None:
    text = peer_text("make_tensor_ptr.mlir")
    module = run(text).module
    original = ops_of(parse_ir(text), tt.MakeTensorPtrOp)
    folded = ops_of(module, tt.MakeTensorPtrOp)
    assert [len(o.operands) for o in folded] == [len(o.operands) for o in original]
    for op in folded:
        made = op.operands[0].owner
        assert isinstance(made, tts.MakeUnstructuredTensorPtrOp)
        assert made.offset.type == IntegerType(64)  # the i64 tt.addptr offset widened the chain
        assert isinstance(made.offset.owner, arith.MuliOp)  # 0 + offset, canonicalized
    assert all(isinstance(op.ptr.owner, tt.MakeTensorPtrOp) for op in accesses(module))


# --------------------------------------------------------------------------- #
# Meaning: the addresses every access uses are the same before and after
# --------------------------------------------------------------------------- #

Address = tuple[str, int, tuple[int, ...], tuple[int, ...]]
"""An access: op name, base argument, shape, element offsets (flattened)."""


@dataclass
class _Pointer:
    base: int
    offsets: np.ndarray


@dataclass
class Interpreter:
    """Runs a function far enough to know the address of every load and store.

    Integers are numpy arrays; pointers are a base argument plus element
    offsets.  Loaded values are zeros: no address here depends on them.
    """

    args: dict[int, int] = field(default_factory=dict[int, int])
    """Integer argument values, by position."""
    program_id: int = 3
    env: dict[SSAValue, object] = field(default_factory=dict[SSAValue, object])
    trace: list[Address] = field(default_factory=list[Address])

    def run(self, module: ModuleOp) -> list[Address]:
        function = next(op for op in module.walk() if isinstance(op, tt.FuncOp))
        for arg in function.body.blocks[0].args:
            if tt.is_ptr_like(arg.type):
                self.env[arg] = _Pointer(arg.index, np.array(0))
            else:
                self.env[arg] = np.array(self.args.get(arg.index, 7))
        self.block(function.body.blocks[0])
        return self.trace

    def block(self, block: Block) -> list[object]:
        for op in block.ops:
            if isinstance(op, scf.YieldOp | tt.ReturnOp):
                return [self.env[v] for v in op.operands]
            self.op(op)
        return []

    def int(self, value: SSAValue) -> np.ndarray:
        found = self.env[value]
        assert isinstance(found, np.ndarray | np.generic), found
        return np.asarray(found, dtype=np.int64)

    def op(self, op: Operation) -> None:
        out = self.compute(op)
        if out is not None:
            self.env[op.results[0]] = out

    def compute(self, op: Operation) -> object | None:
        operands = op.operands
        match op:
            case arith.ConstantOp():
                return _constant(op.value, op.result.type)
            case arith.AddiOp() | arith.SubiOp() | arith.MuliOp() | arith.DivSIOp() | arith.RemSIOp():
                return _binary(op.name, self.int(operands[0]), self.int(operands[1]))
            case arith.CmpiOp():
                return self.int(operands[0]) < self.int(operands[1])
            case _ if op.name in ("arith.extsi", "arith.trunci"):
                return self.int(operands[0])
            case _ if op.name in ("arith.sitofp", "arith.addf", "arith.mulf"):
                return np.zeros(_shape(op.results[0].type), dtype=np.int64)  # data, never an address
            case tt.GetProgramIdOp():
                return np.array(self.program_id)
            case tt.MakeRangeOp():
                return np.arange(op.start.value.data, op.end.value.data)
            case tt.SplatOp() | tt.BroadcastOp() | tt.ExpandDimsOp():
                return self.reshape(op)
            case tt.AddPtrOp():
                ptr = self.env[operands[0]]
                assert isinstance(ptr, _Pointer)
                return _Pointer(ptr.base, ptr.offsets + self.int(operands[1]))
            case tts.MakeUnstructuredTensorPtrOp():
                base = self.env[operands[0]]
                assert isinstance(base, _Pointer) and not base.offsets.any()
                return _Pointer(base.base, base.offsets + self.int(operands[1]))
            case tt.MakeTensorPtrOp():
                self.access(op, self.env[operands[0]])
                return _Pointer(-1, np.array(0))
            case tt.LoadOp():
                self.access(op, self.env[operands[0]])
                return np.zeros(_shape(op.result.type), dtype=np.int64)
            case tt.StoreOp():
                self.access(op, self.env[operands[0]])
                return None
            case scf.ForOp():
                self.loop(op)
                return None
            case _:
                raise NotImplementedError(op.name)

    def reshape(self, op: Operation) -> object:
        source = self.env[op.operands[0]]
        pointer = source if isinstance(source, _Pointer) else None
        values = pointer.offsets if pointer is not None else source
        assert isinstance(values, np.ndarray | np.generic)
        values = np.asarray(values, dtype=np.int64)
        shape = _shape(op.results[0].type)
        if isinstance(op, tt.ExpandDimsOp):
            values = np.expand_dims(values, op.axis.value.data)
        else:
            values = np.broadcast_to(values, shape)
        return _Pointer(pointer.base, values) if pointer is not None else values

    def access(self, op: Operation, ptr: object) -> None:
        assert isinstance(ptr, _Pointer), op
        offsets = np.broadcast_to(ptr.offsets, _shape(op.operands[0].type))
        self.trace.append((op.name, ptr.base, offsets.shape, tuple(int(x) for x in offsets.flat)))

    def loop(self, op: scf.ForOp) -> None:
        lower, upper, step = (int(self.int(v)) for v in (op.lb, op.ub, op.step))
        carried = [self.env[v] for v in op.iter_args]
        body = op.body.blocks[0]
        for index in range(lower, upper, step):
            self.env[body.args[0]] = np.array(index)
            for arg, value in zip(body.args[1:], carried, strict=True):
                self.env[arg] = value
            carried = self.block(body)
        for result, value in zip(op.results, carried, strict=True):
            self.env[result] = value


def _shape(type_: Attribute) -> tuple[int, ...]:
    return tuple(type_.get_shape()) if isa(type_, TensorType[Attribute]) else ()


def _constant(value: Attribute, type_: Attribute) -> np.ndarray:
    if isinstance(value, IntegerAttr):
        return np.array(value.value.data)
    assert isinstance(value, DenseIntOrFPElementsAttr)
    return np.array(value.get_values(), dtype=np.int64).reshape(_shape(type_))


def _binary(name: str, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    if name == "arith.addi":
        return lhs + rhs
    if name == "arith.subi":
        return lhs - rhs
    if name == "arith.muli":
        return lhs * rhs
    quotient = np.trunc(lhs / rhs).astype(np.int64)  # signed division rounds toward zero
    return quotient if name == "arith.divsi" else lhs - quotient * rhs


def addresses(module: ModuleOp) -> list[Address]:
    return Interpreter(args={2: 3, 3: 5}).run(module)


SEMANTIC_INPUTS = {
    "gather_no_loop": (UNSTRUCTURED, "gather_no_loop.mlir"),
    "addptr_2d_example": ("triton-shared/test/Conversion/TritonToStructured", "addptr_2d_example.mlir"),
    "make_tensor_ptr": (UNSTRUCTURED, "make_tensor_ptr.mlir"),
}
"""No-loop inputs: 1-d gathers, a 2-d tile from expand_dims/broadcast/splat, i64 offsets."""

LOOP_INPUTS = [
    "gather_simple_loop.mlir",
    "gather_nested.mlir",
    "gather_reuse_loop_results.mlir",
    "scf_for_ptr_in_iterargs.mlir",
]


@pytest.mark.parametrize("case", SEMANTIC_INPUTS)
def test_offsets_address_what_the_pointer_chain_did(case: str) -> None:
    folder, name = SEMANTIC_INPUTS[case]
    text = peer_file(f"{folder}/{name}").read_text()
    before = addresses(parse_ir(text))
    module = run(text).module
    assert addresses(module) == before and before


@pytest.mark.parametrize("name", [*LOOP_INPUTS, "scalar_store.mlir"])
def test_loop_carried_offsets_address_what_the_pointers_did(name: str) -> None:
    text = peer_text(name)
    before = Interpreter(args={2: 3, 3: 5}).run(parse_ir(text))
    after = Interpreter(args={2: 3, 3: 5}).run(run(text).module)
    assert after == before and len(before) > 2


def test_the_interpreter_follows_a_hand_computed_case() -> None:
    # %4 = splat(%arg0) + (range(64) / 10 + 5): the gather reads elements 5..11 of %arg0.
    (load, store) = addresses(parse_ir(peer_text("gather_no_loop.mlir")))
    assert load[:3] == ("tt.load", 0, (64,)) and load[3] == tuple(i // 10 + 5 for i in range(64))
    assert store[:3] == ("tt.store", 1, (64,)) and store[3] == tuple(range(64))


# --------------------------------------------------------------------------- #
# Offsets' bit width, loops, odd inputs and bad inputs
# --------------------------------------------------------------------------- #

SCALARS = """
tt.func @f(%arg0: !tt.ptr<f32>, %v: f32, %wide: i64, %narrow: i32) {
  %a = tt.addptr %arg0, %narrow : !tt.ptr<f32>, i32
  %b = tt.addptr %a, %wide : !tt.ptr<f32>, i64
  %c = tt.addptr %b, %narrow : !tt.ptr<f32>, i32
  tt.store %c, %v : !tt.ptr<f32>
  tt.return
}
"""


def test_an_i64_offset_widens_the_rest_of_the_chain_as_upstream_does() -> None:
    result = run(SCALARS)
    erase = next(s for s in result.trace.steps if s.name == "erase-pointer-ops")
    assert canonical_names(body_of(result.trace.ir_at(erase.index))) == canonical_names(
        """
        %z = arith.constant 0 : i32
        %0 = arith.addi %z, %narrow : i32
        %1 = arith.extsi %0 : i32 to i64
        %2 = arith.addi %1, %wide : i64
        %3 = arith.extsi %narrow : i32 to i64
        %4 = arith.addi %2, %3 : i64
        %p = "tts.make_unstructured_tptr"(%arg0, %4) : (!tt.ptr<f32>, i64) -> !tt.ptr<f32>
        tt.store %p, %v : !tt.ptr<f32>
        tt.return
        """
    )


def test_offset_bit_width_option_starts_chains_at_i64() -> None:
    module = run(peer_text("scalar_store.mlir"), f"{PASS}{{offset-bit-width=64}}").module
    loops = ops_of(module, scf.ForOp)
    assert loops and all(IntegerType(64) in op.result_types for op in loops)
    (made,) = ops_of(module, tts.MakeUnstructuredTensorPtrOp)
    assert made.offset.type == IntegerType(64)


LOOP_FROM_ARGUMENT = """
tt.func @f(%arg0: !tt.ptr<f32>, %v: f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%p = %arg0) -> (!tt.ptr<f32>) : i32 {
    tt.store %p, %v : !tt.ptr<f32>
    %n = tt.addptr %p, %c1 : !tt.ptr<f32>, i32
    scf.yield %n : !tt.ptr<f32>
  }
  tt.store %r, %v : !tt.ptr<f32>
  tt.store %arg0, %v : !tt.ptr<f32>
  %unused = tt.addptr %arg0, %c4 : !tt.ptr<f32>, i32
  tt.return
}
"""


def test_a_pointer_carried_straight_from_the_argument_starts_at_offset_zero() -> None:
    module = run(LOOP_FROM_ARGUMENT).module
    (loop,) = ops_of(module, scf.ForOp)
    init = loop.iter_args[0].owner
    assert isinstance(init, arith.ConstantOp) and init.value == IntegerAttr(0, 32)
    stores = list(accesses(module))
    assert all(isinstance(s.ptr.owner, tts.MakeUnstructuredTensorPtrOp) for s in stores)
    after_loop = stores[1].ptr.owner
    assert isinstance(after_loop, tts.MakeUnstructuredTensorPtrOp) and after_loop.offset is loop.results[0]
    assert not ops_of(module, tt.AddPtrOp)
    before = Interpreter().run(parse_ir(LOOP_FROM_ARGUMENT))
    assert Interpreter().run(module) == before
    assert [a[3] for a in before] == [(0,), (1,), (2,), (3,), (4,), (0,)]


def test_without_a_recorder_the_pass_gives_the_same_module() -> None:
    text = peer_text("gather_reuse_loop_results.mlir")
    module = parse_ir(text)
    FoldUnstructuredPtr().apply(make_context(), module)
    module.verify()
    assert print_module(module) == print_module(run(text).module)


BAD_INPUTS = {
    "select of pointers": (
        """
        tt.func @f(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<f32>, %c: i1, %v: f32) {
          %p = arith.select %c, %arg0, %arg1 : !tt.ptr<f32>
          tt.store %p, %v : !tt.ptr<f32>
          tt.return
        }
        """,
        "unexpected op in pointer sequence: %p = arith.select",
    ),
    "offset widened inside a loop": (
        """
        tt.func @f(%arg0: !tt.ptr<f32>, %v: f32, %o: i64) {
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%p = %arg0) -> (!tt.ptr<f32>) : i32 {
            tt.store %p, %v : !tt.ptr<f32>
            %n = tt.addptr %p, %o : !tt.ptr<f32>, i64
            scf.yield %n : !tt.ptr<f32>
          }
          tt.return
        }
        """,
        "widens from i32 to i64 inside the loop (use offset-bit-width=64)",
    ),
    "pointer stored as a value": (
        """
        tt.func @f(%arg0: !tt.ptr<!tt.ptr<f32>>, %arg1: !tt.ptr<f32>) {
          tt.store %arg0, %arg1 : !tt.ptr<!tt.ptr<f32>>
          tt.return
        }
        """,
        "a pointer used as a value cannot be folded",
    ),
}


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_bad_input_fails_before_any_change(case: str) -> None:
    text, message = BAD_INPUTS[case]
    with pytest.raises(PassFailedException, match=re.escape(message)):
        FoldUnstructuredPtr().apply(make_context(), parse_ir(text))
    result = record(text, PASS)
    assert result.trace.status == "failed"
    failure = result.trace.steps[-1]
    assert failure.flag is not None and message in failure.flag["message"]
    assert result.trace.ir_at(-1) == result.trace.ir_at(0)  # nothing changed


def test_functions_without_pointers_are_untouched() -> None:
    text = "tt.func @f(%x: i32) {\n  tt.return\n}\n"
    result = run(text)
    assert not [s for s in result.trace.steps if s.kind == "rewrite"]


def test_tt_make_tptr_of_an_argument_is_left_alone() -> None:
    text = """
    tt.func @f(%arg0: !tt.ptr<f32>) {
      %0 = tts.make_tptr %arg0 to sizes: [4], strides: [1], offsets: [0], shape: [0], order: [] : <f32> to tensor<4x!tt.ptr<f32>>
      %1 = "tts.load"(%0) <{operandSegmentSizes = array<i32: 1, 0, 0>, static_mask_dims = array<i64>}> : (tensor<4x!tt.ptr<f32>>) -> tensor<4xf32>
      "tts.store"(%0, %1) <{static_mask_dims = array<i64>}> : (tensor<4x!tt.ptr<f32>>, tensor<4xf32>) -> ()
      tt.return
    }
    """
    module = run(text).module
    (made,) = ops_of(module, tts.MakeTensorPtrOp)
    assert isinstance(made.operands[0], BlockArgument)
    assert not ops_of(module, tts.MakeUnstructuredTensorPtrOp)


def test_block_pointer_made_straight_from_an_argument_is_left_alone() -> None:
    text = """
    tt.func @f(%arg0: !tt.ptr<f16>) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i64
      %c8 = arith.constant 8 : i64
      %0 = tt.make_tensor_ptr %arg0, [%c8], [%c1], [%c0] {order = array<i32: 0>} : <tensor<8xf16>>
      %1 = tt.load %0 : !tt.ptr<tensor<8xf16>>
      tt.store %0, %1 : !tt.ptr<tensor<8xf16>>
      tt.return
    }
    """
    result = run(text)
    assert print_module(result.module) == print_module(parse_ir(text))
    assert not fold_steps(result.trace.steps)


@pytest.mark.parametrize("name", [n for n, reason in PEER_CASES.items() if reason is None])
def test_replay_rebuilds_the_ir_of_every_step(name: str) -> None:
    result = run(peer_text(name), check=True)
    snapshots = result.tracer.snapshots
    replayer = Replayer(result.trace)
    for index, step in enumerate(result.trace.steps):
        replayer.advance_to(index)
        assert replayer.text() == snapshots[index + 1], f"step {index} ({step.name})"
    # Every edit went through the recorder, inside a step.
    assert not {UNANNOUNCED, "direct edits"} & {s.name for s in result.trace.steps}


TENSOR_WIDENING = """
tt.func @f(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %w = arith.extsi %r : tensor<8xi32> to tensor<8xi64>
  %s = tt.splat %n : i32 -> tensor<8xi32>
  %p = tt.splat %arg0 : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
  %a = tt.addptr %p, %w : tensor<8x!tt.ptr<f32>>, tensor<8xi64>
  %b = tt.addptr %a, %s : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  %q = tt.splat %arg1 : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
  %l:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%x = %b, %y = %q) -> (tensor<8x!tt.ptr<f32>>, tensor<8x!tt.ptr<f32>>) : i32 {
    %v = tt.load %x : tensor<8x!tt.ptr<f32>>
    tt.store %y, %v : tensor<8x!tt.ptr<f32>>
    %x2 = tt.addptr %x, %s : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
    %y2 = tt.addptr %y, %r : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
    scf.yield %x2, %y2 : tensor<8x!tt.ptr<f32>>, tensor<8x!tt.ptr<f32>>
  }
  tt.return
}
"""


def test_tensor_offsets_widen_per_chain() -> None:
    # One chain meets an i64 offset and carries i64 offsets; the other stays i32.
    module = run(TENSOR_WIDENING).module
    (loop,) = ops_of(module, scf.ForOp)
    assert loop.result_types == (TensorType(IntegerType(64), [8]), TensorType(IntegerType(32), [8]))
    assert Interpreter(args={2: 3}).run(module) == Interpreter(args={2: 3}).run(parse_ir(TENSOR_WIDENING))


def test_offset_bit_width_64_widens_every_chain() -> None:
    module = run(TENSOR_WIDENING, f"{PASS}{{offset-bit-width=64}}").module
    (loop,) = ops_of(module, scf.ForOp)
    assert loop.result_types == (TensorType(IntegerType(64), [8]),) * 2
    assert Interpreter(args={2: 3}).run(module) == Interpreter(args={2: 3}).run(parse_ir(TENSOR_WIDENING))
