"""What every command group of the command line shares: its error, its parser, loading a trace."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, NoReturn

from passviz.ir.terminal import one_line
from passviz.pipelines import load_trace
from passviz.trace.model import RunRecord, Trace

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction["OneLineParser"]  # pyright: ignore[reportPrivateUsage]
    """Where a command group adds its commands."""


class CliError(Exception):
    """An error reported as one line, without a traceback."""


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (with where to find the usage), like every other error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {one_line(message)} (see {self.prog} -h)\n")


def load(path: str) -> Trace:
    """The trace at ``path``, its warnings printed."""
    trace = load_trace(path)
    for warning in trace.warnings:
        print(f"passviz: warning: {one_line(warning)}", file=sys.stderr)
    return trace


def run_line(run: RunRecord) -> str:
    """One line about a run record: step, back end, verdict, error, elements, inputs."""
    where = "initial" if run["step"] < 0 else f"step {run['step']}"
    parts = [f"{where}: {run['verdict']}", run["backend"]]
    if "max_error" in run:
        parts.append(f"max error {run['max_error']:.6g}")
    if "count" in run:
        parts.append(f"{run['count']} element{'s' * (run['count'] != 1)} differ")
    if "time_ms" in run:
        parts.append(f"{run['time_ms']:.4g} ms")
    if "gbps" in run:
        parts.append(f"{run['gbps']:.4g} GB/s")
    parts.append(f"inputs {run['inputs']}")
    if run.get("first"):
        parts.append("the first differing step bisect found")
    if "message" in run:
        parts.append(run["message"])
    return ", ".join(parts)
