"""Real Triton IR round-trips through passviz's ``tt`` dialect, as the installed Triton sees it.

Every case parses some IR with passviz (``parse_ir``), verifies it, prints it,
and checks three things:

1. Triton reads passviz's print as the same module it reads from the input:
   ``triton_normalize(print_module(parse_ir(ir))) == triton_normalize(ir)``;
2. passviz's print is a fixpoint: parsing it again prints it again unchanged;
3. every ``tt`` op line is spelled as Triton prints it, SSA names aside.

The IR comes from Triton's own tests (each ``// -----`` chunk of
``test/Triton/*.mlir``, and each function of ``combine.mlir``, which 3.6
cannot read whole), from triton-shared's conversion tests, and from
``triton.compile`` of four tutorial kernels (``tests/triton_kernels.py``).
IR written for another Triton release than the installed one is skipped
with the reason Triton gives (``tests.triton_oracle.CANNOT_READ``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from _pytest.mark.structures import ParameterSet
from xdsl.dialects.builtin import FileLineColLoc, NameLoc
from xdsl.ir import Attribute

from passviz.ir.printer import print_module
from passviz.pipelines import parse_ir
from tests.conftest import PEER, need, peer_file, split_chunks, split_functions
from tests.triton_oracle import KERNEL_NAMES, compiled_ttir, triton_missing, triton_normalize

# --------------------------------------------------------------------------- #
# The check
# --------------------------------------------------------------------------- #

_TT_OP = re.compile(r'^\s*(?:%[^=]*=\s*)?"?(tt\.[\w.]+)')
_SSA_NAME = re.compile(r"%[\w#.$-]+")


def tt_op_lines(text: str) -> list[str]:
    """The ``tt`` op lines of printed IR, with results and SSA names blanked out.

    ``%x:2 = tt.split %y`` and ``%a, %b = tt.split %c`` both become
    ``tt.split %``: MLIR and xDSL name and group results differently.
    """
    lines: list[str] = []
    for line in text.splitlines():
        if _TT_OP.match(line) is None:
            continue
        body = re.sub(r"^\s*(?:%[^=]*=\s*)?", "", line)
        lines.append(_SSA_NAME.sub("%", body.strip()))
    return lines


def check_roundtrip(text: str) -> None:
    """Parse, verify and print ``text`` with passviz; compare with Triton (see the module doc)."""
    expected = triton_normalize(text)
    module = parse_ir(text)
    module.verify()
    printed = print_module(module)
    assert triton_normalize(printed) == expected
    reparsed = parse_ir(printed)
    reparsed.verify()
    assert print_module(reparsed) == printed
    assert tt_op_lines(printed) == tt_op_lines(expected)


# --------------------------------------------------------------------------- #
# Peer test files, chunk by chunk
# --------------------------------------------------------------------------- #


def _peer_files(pattern: str) -> list[Path]:
    return sorted(PEER.glob(pattern)) if PEER.is_dir() else []


def _chunk_cases(pattern: str) -> Iterator[ParameterSet]:
    for path in _peer_files(pattern):
        relative = path.relative_to(PEER).as_posix()
        for index in range(len(split_chunks(path.read_text()))):
            yield pytest.param(relative, index, id=f"{path.name}#{index}")


def _uses_tts(text: str) -> bool:
    """Whether ``text`` (comments aside) uses ops of triton-shared's ``tts`` dialect."""
    code = "\n".join(line.split("//")[0] for line in text.splitlines())
    return re.search(r"\btts\.\w", code) is not None


@pytest.mark.parametrize(("path", "index"), list(_chunk_cases("triton/test/Triton/*.mlir")))
def test_triton_test_chunk(path: str, index: int) -> None:
    need(triton_missing())
    # A chunk written for another Triton release is skipped by the oracle, with Triton's reason.
    check_roundtrip(split_chunks(peer_file(path).read_text())[index])


@pytest.mark.parametrize(("path", "index"), list(_chunk_cases("triton-shared/test/Conversion/**/*.mlir")))
def test_triton_shared_chunk(path: str, index: int) -> None:
    need(triton_missing())
    chunk = split_chunks(peer_file(path).read_text())[index]
    if _uses_tts(chunk):
        pytest.skip("uses tts ops: the tts dialect is tested with its own dialect")
    check_roundtrip(chunk)


COMBINE = "triton/test/Triton/combine.mlir"


def _combine_function_names() -> list[str]:
    path = PEER / COMBINE
    return list(split_functions(path.read_text())) if path.is_file() else []


@pytest.mark.parametrize("name", _combine_function_names())
def test_combine_function(name: str) -> None:
    need(triton_missing())
    check_roundtrip(split_functions(peer_file(COMBINE).read_text())[name])


def test_combine_has_its_functions() -> None:
    # Guards the per-function split: every tt.func of the file is a case.
    text = peer_file(COMBINE).read_text()
    assert len(split_functions(text)) == len(re.findall(r"^tt\.func", text, re.MULTILINE)) == 30


# --------------------------------------------------------------------------- #
# TTIR that triton.compile makes of four tutorial kernels
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_compiled_kernel_ttir(name: str) -> None:
    need(triton_missing())
    check_roundtrip(triton_normalize(compiled_ttir(name)))


def test_compiled_kernels_use_the_ops_they_should() -> None:
    need(triton_missing())
    texts = {name: triton_normalize(compiled_ttir(name)) for name in KERNEL_NAMES}
    assert {"tt.get_program_id", "tt.make_range", "tt.addptr", "tt.load", "tt.store"} <= set(
        re.findall(r"\btt\.[\w.]+", texts["vector_add"])
    )
    assert '"tt.reduce"' in texts["fused_softmax"] and "tt.get_num_programs" in texts["fused_softmax"]
    assert "tt.dot" in texts["matmul"] and "tt.expand_dims" in texts["matmul"]
    assert "tt.broadcast" in texts["matmul"] and "tt.fp_to_fp" not in texts["matmul"]
    assert '"tt.reduce"' in texts["layer_norm"]


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_compiled_kernel_ttir_with_locations(name: str) -> None:
    """asm["ttir"] as it is, location aliases after the module: each load and store
    points at the ``tl.load``/``tl.store`` line of the kernel's source."""
    need(triton_missing())
    import tests.triton_kernels as kernels

    source = Path(kernels.__file__).read_text().splitlines()
    module = parse_ir(compiled_ttir(name))
    module.verify()
    accesses = [op for op in module.walk() if op.name in ("tt.load", "tt.store")]
    assert accesses
    for op in accesses:
        file, line = _file_line(op.location)
        assert Path(file).name == "triton_kernels.py"
        assert f"tl.{op.name.removeprefix('tt.')}(" in source[line - 1], (op.name, line)


def _file_line(location: Attribute) -> tuple[str, int]:
    """The file and line a (possibly named) location points at."""
    while isinstance(location, NameLoc):
        location = location.location
    assert isinstance(location, FileLineColLoc), location
    return location.filename.data, location.line.data
