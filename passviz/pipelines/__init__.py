"""Running pipelines, one module per job: ``input`` (parse and verify input IR), ``spec``
(pipeline specs), ``user_passes`` (passes from a user's file), ``record`` (record a run as a
trace), ``load`` (read a trace file, ready for replay).  This package's names are its API."""

from __future__ import annotations

from passviz.compilers.registry import NAMED_PIPELINES
from passviz.ir.errors import InputError, IRParseError, PipelineError
from passviz.pipelines.input import ParsedInput, decode_input, parse_ir, parse_located, verify_input
from passviz.pipelines.load import load_trace, readable
from passviz.pipelines.record import TraceRun, record, record_file
from passviz.pipelines.spec import parse_pipeline
from passviz.pipelines.user_passes import load_pass_module
from passviz.recording.recorder import RecordOptions

__all__ = [
    "NAMED_PIPELINES",
    "IRParseError",
    "InputError",
    "ParsedInput",
    "PipelineError",
    "RecordOptions",
    "TraceRun",
    "decode_input",
    "load_pass_module",
    "load_trace",
    "parse_ir",
    "parse_located",
    "parse_pipeline",
    "readable",
    "record",
    "record_file",
    "verify_input",
]
