"""The initial IR as a delta (``header.initial``), and step chains in trace files."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from passviz.ir.printer import print_module
from passviz.pipelines import load_trace, record
from passviz.recording.initial import ensure_initial
from passviz.recording.replay import Replayer, ReplayError
from passviz.trace.apply import IRData
from passviz.trace.model import InitialState, OpInfo, Trace
from passviz.trace.store import TraceFormatError, read_trace, schema_errors, write_trace
from passviz.trace.summary import trace_mime_data
from passviz.view.state import TraceStates
from tests.conftest import WRAP_TEST, peer_file, split_chunks
from tests.test_replay import CF_INPUT, SCF_INPUT

SEED = Path(__file__).resolve().parents[1] / "examples" / "wrap_multi_block.mlir"
SEED_PIPELINE = "wrap-func-body-with-single-block,canonicalize"

DECL_INPUT = """
func.func private @decl(i32) -> i32
func.func @g(%x: i32) -> i32 {
  %0 = arith.constant {tag = "</script><b>"} 3 : i32 loc("in.mlir":3:8)
  %1 = func.call @decl(%0) : (i32) -> i32
  %2 = arith.addi %1, %x : i32
  func.return %2 : i32
}
"""
"""A declaration (an empty region), an attribute, a location and a call."""

INPUTS = {
    "seed": (SEED.read_text(), SEED_PIPELINE),
    "scf": (SCF_INPUT, "canonicalize,cse"),
    "cf": (CF_INPUT, "wrap-func-body-with-single-block,canonicalize"),
    "decl": (DECL_INPUT, "canonicalize"),
}


@pytest.fixture(scope="module")
def seed_trace() -> Trace:
    return record(SEED.read_text(), SEED_PIPELINE, filename=SEED.name).trace


# -- a viewer's applier, in plain Python: no xDSL, no MLIR parsing ------------------------


@dataclass
class _Applied:
    """The IR an initial delta describes, as a viewer rebuilds it."""

    root: str
    ops: dict[str, OpInfo] = field(default_factory=lambda: dict[str, OpInfo]())
    op_block: dict[str, str] = field(default_factory=lambda: dict[str, str]())
    block_ops: dict[str, list[str]] = field(default_factory=lambda: dict[str, list[str]]())
    block_args: dict[str, list[str]] = field(default_factory=lambda: dict[str, list[str]]())
    block_region: dict[str, str] = field(default_factory=lambda: dict[str, str]())
    region_blocks: dict[str, list[str]] = field(default_factory=lambda: dict[str, list[str]]())
    texts: dict[str, str] = field(default_factory=lambda: dict[str, str]())
    value_types: dict[str, str] = field(default_factory=lambda: dict[str, str]())

    def preorder(self) -> list[str]:
        """Op ids in IR order, from the root."""
        out: list[str] = []
        stack = [self.root]
        while stack:
            op_id = stack.pop()
            out.append(op_id)
            children = [
                child
                for region in self.ops[op_id].get("regions", [])
                for block in self.region_blocks[region]
                for child in self.block_ops[block]
            ]
            stack.extend(reversed(children))
        return out


def _apply(initial: InitialState) -> _Applied:
    delta = initial["delta"]
    applied = _Applied(root=initial["root"], texts=dict(delta.get("texts", {})))
    for info in delta.get("blocks_created", []):
        applied.block_ops[info["id"]] = []
        applied.block_args[info["id"]] = [arg["id"] for arg in info["args"]]
        applied.value_types.update((arg["id"], arg["type"]) for arg in info["args"])
    for op in delta["ops_created"]:
        applied.ops[op["id"]] = op
        applied.value_types.update((result["id"], result["type"]) for result in op["results"])
    pending = list(delta.get("placed", []))
    while pending:  # placements may name an op placed later in the list
        waiting = []
        for placement in pending:
            ops = applied.block_ops[placement["block"]]
            after = placement["after"]
            if after is None:
                ops.insert(0, placement["id"])
            elif after in ops:
                ops.insert(ops.index(after) + 1, placement["id"])
            else:
                waiting.append(placement)
                continue
            applied.op_block[placement["id"]] = placement["block"]
        assert len(waiting) < len(pending), "placements refer to each other in a cycle"
        pending = waiting
    for region, blocks in delta.get("region_blocks", {}).items():
        applied.region_blocks[region] = list(blocks)
        for block in blocks:
            applied.block_region[block] = region
    return applied


def _assert_same_ir(applied: _Applied, state: IRData) -> None:
    assert applied.root == state.root
    assert applied.preorder() == list(state.walk_ops())
    for op_id, op in state.ops.items():
        info = applied.ops[op_id]
        assert info["name"] == op.name, op_id
        assert applied.op_block.get(op_id) == op.block, op_id
        assert list(info["operands"]) == op.operands, op_id
        assert [r["id"] for r in info["results"]] == op.results, op_id
        assert list(info.get("successors", [])) == op.successors, op_id
        assert list(info.get("regions", [])) == op.regions, op_id
        assert info.get("loc") == op.loc, op_id
        attrs = {**info.get("props", {}), **info.get("attrs", {})}
        assert attrs == {**op.props, **op.attrs}, op_id
        assert applied.texts[op_id] == op.text, op_id
    assert applied.value_types == {v: value.type for v, value in state.values.items()}
    assert set(applied.block_ops) == set(state.blocks)
    for block_id, block in state.blocks.items():
        assert list(applied.block_ops[block_id]) == block.ops
        assert list(applied.block_args[block_id]) == block.args
        assert applied.block_region[block_id] == block.region
    assert {r: list(b) for r, b in applied.region_blocks.items()} == {
        r: region.blocks for r, region in state.regions.items()
    }
    assert set(applied.ops) == set(state.ops)


def strip_initial(path: Path, text: str) -> None:
    """Make a trace file of ``text`` look like one written before ``initial``
    existed: a version 1 header with the initial IR as text only."""
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    del header["initial"]
    header.update(version=1, initial_ir=text)
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")


def _trace(name: str) -> Trace:
    text, pipeline = INPUTS[name]
    return record(text, pipeline).trace


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_initial_delta_rebuilds_the_initial_ir(name: str) -> None:
    trace = _trace(name)
    assert trace.initial is not None
    _assert_same_ir(_apply(trace.initial), TraceStates(trace).at(-1))


def test_initial_delta_rebuilds_the_peer_wrap_tests() -> None:
    path = peer_file(str(WRAP_TEST.relative_to(WRAP_TEST.parents[4])))
    for chunk in split_chunks(path.read_text()):
        trace = record(chunk, "wrap-func-body-with-single-block,canonicalize").trace
        assert trace.initial is not None
        _assert_same_ir(_apply(trace.initial), TraceStates(trace).at(-1))


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_replaying_the_initial_delta_on_nothing_prints_the_initial_ir(name: str) -> None:
    """Types, attributes, properties and locations are all in the delta: xDSL rebuilds the module."""
    trace = _trace(name)
    assert trace.initial is not None
    replayer = Replayer(trace)
    expected = replayer.text()
    replayer.ops, replayer.blocks, replayer.regions, replayer.values = {}, {}, {}, {}
    replayer.value_ids = {}
    replayer.apply(trace.initial["delta"])
    assert print_module(replayer.ops[trace.initial["root"]]) == expected


def test_step_texts_name_values_and_successors_by_id(seed_trace: Trace) -> None:
    states = TraceStates(seed_trace)
    assert seed_trace.initial is not None
    assert seed_trace.initial["delta"]["texts"]["o2"] == "cf.cond_br %v0, ^b2, ^b3"
    assert seed_trace.steps[6].delta["texts"]["o7"] == "cf.br ^b5(%v5 : i32)"
    for step in seed_trace.steps:
        after, before = states.at(step.index), states.before(step.index)
        for op_id, text in step.delta.get("texts", {}).items():
            # A live op's text as the step left it; an erased op's as it was before.
            shown = after.ops[op_id] if op_id in after.ops else before.ops[op_id]
            assert text == shown.text, (step.index, op_id)
            assert "^bb" not in text


def test_written_trace_has_initial_and_validates(tmp_path: Path) -> None:
    path = tmp_path / "t.passviz.json"
    run = record(DECL_INPUT, "canonicalize", output=path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    header = lines[0]
    assert header["initial"] == run.trace.initial
    assert all(schema_errors(r) == [] for r in lines)
    loaded = load_trace(path)
    assert loaded.initial == run.trace.initial


def test_header_initial_is_checked_by_the_schema(seed_trace: Trace, tmp_path: Path) -> None:
    path = tmp_path / "t.passviz.json"
    write_trace(seed_trace, path)
    header = json.loads(path.read_text().splitlines()[0])
    for bad in (
        {"root": "o0"},
        {"root": "b0", "delta": {}},
        {"root": "o0", "delta": {}, "extra": 1},
        {"root": "o0", "delta": {"texts": {"v1": "x"}}},
    ):
        assert schema_errors({**header, "initial": bad}), bad


def test_trace_file_without_initial_loads_and_gets_it_by_replay(tmp_path: Path) -> None:
    """Reading a file is pure data; loading it (``load_trace``) replays a version 1 file's
    initial IR into its initial state, once."""
    path = tmp_path / "old.passviz.json"
    run = record(SCF_INPUT, "canonicalize,cse", output=path)
    strip_initial(path, SCF_INPUT)
    read = read_trace(path)
    assert read.initial is None and not read.warnings
    old = load_trace(path)
    assert old.initial == run.trace.initial and not old.warnings
    assert ensure_initial(old) is old.initial  # kept


def test_an_unreplayable_version_1_file_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "old.passviz.json"
    record(CF_INPUT, "canonicalize", output=path)
    strip_initial(path, "func.func @f( {")
    old = load_trace(path)
    assert old.initial is None
    with pytest.raises(ReplayError, match="does not parse"):
        old.ir_at(0)


def test_a_trace_without_a_replayer_says_how_to_get_one(tmp_path: Path) -> None:
    path = tmp_path / "t.passviz.json"
    record(CF_INPUT, "canonicalize", output=path)
    trace = read_trace(path)  # pure data: no dialects, no replay
    assert trace.replayer is None
    with pytest.raises(ReplayError, match=r"passviz\.load_trace\(\)"):
        trace.ir_at(0)
    assert load_trace(path).ir_at(0) == record(CF_INPUT, "canonicalize").trace.ir_at(0)


def test_mime_data_header_carries_initial_even_for_old_files(tmp_path: Path) -> None:
    path = tmp_path / "old.passviz.json"
    run = record(CF_INPUT, "canonicalize", output=path)
    strip_initial(path, CF_INPUT)
    data = trace_mime_data(load_trace(path))
    assert data["format"] == "passviz-trace" and data["version"] == 2
    assert data["records"][0]["initial"] == run.trace.initial
    assert all(schema_errors(r) == [] for r in data["records"])


def test_mime_data_without_a_context_goes_without_initial(tmp_path: Path) -> None:
    path = tmp_path / "old.passviz.json"
    record(CF_INPUT, "canonicalize", output=path)
    strip_initial(path, CF_INPUT)
    data = trace_mime_data(read_trace(path))  # no context factory: cannot replay
    assert "initial" not in data["records"][0]


# -- step chains ------------------------------------------------------------------------------


def test_chain_round_trips(seed_trace: Trace, tmp_path: Path) -> None:
    path = tmp_path / "chain.passviz.json"
    step = seed_trace.steps[11]
    try:
        step.chain = ["o9", "o10", "o11"]
        write_trace(seed_trace, path)
    finally:
        step.chain = None
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert records[12]["chain"] == ["o9", "o10", "o11"]
    assert all("chain" not in r for i, r in enumerate(records) if i != 12)
    loaded = load_trace(path)
    assert loaded.steps[11].chain == ["o9", "o10", "o11"]
    assert all(s.chain is None for s in loaded.steps if s.index != 11)


@pytest.mark.parametrize("chain", [["v1"], ["o1", "b2"], "o1", [1], ["o1x"]])
def test_bad_chain_is_rejected(seed_trace: Trace, tmp_path: Path, chain: object) -> None:
    path = tmp_path / "chain.passviz.json"
    write_trace(seed_trace, path)
    lines = path.read_text().splitlines()
    step = json.loads(lines[3])
    step["chain"] = chain
    assert schema_errors(step)
    lines[3] = json.dumps(step)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TraceFormatError, match=r":4: invalid trace record"):
        read_trace(path)
