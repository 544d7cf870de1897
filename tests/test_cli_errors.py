"""Every user error on the command line is one located line, never a traceback."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from passviz.cli import main
from passviz.compilers.registry import pass_summary
from passviz.pipelines import load_pass_module

MODULE = "func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  func.return %0 : i32\n}\n"


def _error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """The one line ``passviz argv`` prints on stderr, having exited with 1."""
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("passviz: error: ")
    return lines[0].removeprefix("passviz: error: ")


@pytest.fixture
def module_file(tmp_path: Path) -> Path:
    path = tmp_path / "in.mlir"
    path.write_text(MODULE)
    return path


@pytest.mark.parametrize(
    ("pipeline", "expected"),
    [
        ("canonicalize,,cse", "column 14: expected pass name"),
        ("canonicalize{", "column 14: expected argument name"),
        ("builtin.module(canonicalize)", "column 8: unknown token (passviz pipelines list passes as"),
        ("cse,", "column 5: expected a pass name after ','"),
        ("canonicalise", "column 1: unknown pass 'canonicalise' (did you mean 'canonicalize'"),
        ("cse,canonicalize{nonsense=1}", "column 5: bad options for canonicalize"),
        ("", "the pipeline is empty"),
        (" ", "the pipeline is empty"),
    ],
)
def test_bad_pipeline_is_one_located_line(
    pipeline: str, expected: str, module_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t.json"
    assert expected in _error(capsys, ["trace", str(module_file), "-p", pipeline, "-o", str(out)])
    assert not out.exists()


def test_passes_lists_pipelines_and_a_clean_sentence_per_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["passes"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "pipelines (named as one pass):"
    # Pipelines come in name order: iree-flow, make-ttir, toy-ch3...
    line = next(line for line in lines[1:] if line.split()[:1] == ["make-ttir"])
    assert "make_ttir" in line and "canonicalize," in line.split()
    entries = {line.split()[0]: line for line in lines if line.startswith("  ")}
    assert entries["triton-licm"].endswith("so that the hoisted load does not run when the loop would not.")
    assert entries["wrap-func-body-with-single-block"].endswith("into an scf.execute_region.")
    assert entries["convert-scf-to-cf"].endswith("Lower scf.for and scf.if to unstructured control flow.")
    assert not any("`" in line for line in lines)


def test_pass_summary_is_the_whole_first_sentence() -> None:
    class Documented:
        """Fold ``a.b`` into :class:`C`, e.g. for
        speed.  Second sentence.

        A paragraph."""

    @dataclass
    class Undocumented:
        field: int = 0

    assert pass_summary(Documented) == "Fold a.b into C, e.g. for speed."
    assert pass_summary(Undocumented) == ""


def _traced(module_file: Path, tmp_path: Path, pipeline: str = "canonicalize") -> Path:
    out = tmp_path / "t.json"
    assert main(["trace", str(module_file), "-p", pipeline, "-o", str(out)]) == 0
    return out


def test_validate_refuses_an_incomplete_trace_unless_allowed(
    module_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _traced(module_file, tmp_path)
    lines = out.read_text().splitlines(keepends=True)
    assert '"record":"end"' in lines[-1]
    out.write_text("".join(lines[:-1]))
    capsys.readouterr()
    error = _error(capsys, ["validate", str(out)])
    assert error.startswith(f"{out}: incomplete trace: the run did not finish") and "--allow-partial" in error
    assert main(["validate", "--allow-partial", str(out)]) == 0
    assert "valid passviz trace" in capsys.readouterr().out


USER_PASSES = """
from dataclasses import dataclass

from xdsl.passes import ModulePass


@dataclass(frozen=True)
class Nothing(ModulePass):
    name = "user-nothing"

    def apply(self, ctx, op):
        pass
"""


def test_a_user_pass_file_loads_under_a_private_name(
    module_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import typing

    user = tmp_path / "typing.py"
    user.write_text(USER_PASSES)
    passes = load_pass_module(str(user))
    assert sys.modules["typing"] is typing
    module = sys.modules[passes["user-nothing"].__module__]
    assert module.__name__ != "typing" and module.__file__ == str(user)
    out = tmp_path / "t.json"
    assert (
        main(["trace", str(module_file), "--passes-from", str(user), "-p", "user-nothing", "-o", str(out)])
        == 0
    )
    assert sys.modules["typing"] is typing


def test_show_diff_on_a_step_that_changed_nothing_says_so(
    module_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _traced(module_file, tmp_path, "cse")
    capsys.readouterr()
    assert main(["show", str(out), "--step", "1", "--diff"]) == 0
    assert capsys.readouterr().out == "step 1 changed nothing: the IR after it is the IR before it\n"


def test_an_undefined_value_is_reported_where_it_is_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "undef.mlir"
    path.write_text(MODULE.replace("%a, %a", "%a, %b"))
    error = _error(capsys, ["trace", str(path), "-p", "cse", "-o", str(tmp_path / "t.json")])
    assert error == f"{path}:2:23: use of undefined value %b"


def test_the_trace_never_overwrites_the_input(
    module_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "link.mlir"
    link.symlink_to(module_file)
    for output in (module_file, link, tmp_path / "." / module_file.name):
        error = _error(capsys, ["trace", str(module_file), "-p", "cse", "-o", str(output)])
        assert error == f"{output}: the trace would overwrite the input; write it elsewhere (-o)"
    assert module_file.read_text() == MODULE


def test_a_trace_cut_inside_its_header_says_so(
    module_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _traced(module_file, tmp_path)
    out.write_bytes(out.read_bytes()[:120])
    capsys.readouterr()
    for command in ("show", "dump"):
        assert main([command, str(out)]) == 1
        err = capsys.readouterr().err
        assert "Traceback" not in err and "does not parse" not in err
        assert (
            err.splitlines()[-1] == "passviz: error: the trace holds no IR: it is truncated inside its header"
        )


@pytest.mark.parametrize(
    ("step", "expected"),
    [("x", "--step x: expected a step index or 'initial'"), ("99", "--step 99: step 99 is out of range")],
)
def test_run_checks_its_step_before_making_inputs(
    step: str, expected: str, module_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _traced(module_file, tmp_path)
    capsys.readouterr()
    assert main(["run", str(out), "--step", step]) == 1
    printed = capsys.readouterr()
    assert printed.out == ""  # nothing derived from the signature printed first
    assert printed.err.splitlines() == [printed.err.strip()]
    assert printed.err.startswith(f"passviz: error: {expected}")


def test_a_missing_file_is_named_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.mlir"
    error = _error(capsys, ["trace", str(missing), "-p", "cse", "-o", str(tmp_path / "t.json")])
    assert error == f"{missing}: No such file or directory"
    assert (
        _error(capsys, ["steps", str(tmp_path / "nope.json")])
        == f"{tmp_path / 'nope.json'}: No such file or directory"
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["show", "t.json", "--step", "x"], "passviz show: error: argument --step: invalid int value: 'x'"),
        (["trace"], "passviz trace: error: the following arguments are required: input, -p/--pipeline"),
        (["bogus"], "passviz: error: argument command: invalid choice: 'bogus'"),
    ],
)
def test_a_usage_error_is_one_line(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith(expected) and error.count("\n") == 1, error
    assert error.rstrip().endswith("-h)")
