"""The flags of failed steps: a pass that raised, a verifier that refused, IR left corrupt."""

from __future__ import annotations

import traceback
from collections.abc import Sequence

from xdsl.utils.exceptions import VerifyException

from passviz.ir.terminal import first_line
from passviz.ir.verify import IncrementalVerifier
from passviz.recording.interface import safe_str
from passviz.trace.model import Flag


def exception_flag(exc: BaseException, name: str | None) -> Flag:
    """The flag of a step in which pattern ``name`` (if known) raised ``exc``."""
    text = safe_str(exc)
    message = f"{type(exc).__name__}: {first_line(text)}" if text else type(exc).__name__
    if isinstance(exc, KeyboardInterrupt):
        message = "interrupted (KeyboardInterrupt)" + (f" in pattern {name}" if name else "")
    elif name:
        message = f"pattern {name} raised {message}"
    return Flag(kind="exception", message=message, detail=_format_exception(exc))


def verify_flag(verifier: IncrementalVerifier) -> Flag | None:
    """The flag of a step after which the verifier refuses the module, or None."""
    try:
        verifier.verify()
    except VerifyException as exc:
        return Flag(kind="verify", message=f"verifier: {first_line(str(exc))}", detail=str(exc))
    return None


def corruption_flag(problems: Sequence[str], name: str | None, flag: Flag | None) -> Flag:
    """The flag of a step after which the live IR is corrupt; ``flag`` is the step's own, if any."""
    by = f" by {name}" if name else ""
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    message = f"IR corrupted{by}: {problems[0]}{more}"
    detail = "\n".join(problems)
    if flag is None:
        return Flag(kind="verify", message=message, detail=detail)
    merged = Flag(kind=flag["kind"], message=f"{flag['message']}; {message}", detail=detail)
    if "detail" in flag:
        merged["detail"] = f"{detail}\n\n{flag['detail']}"
    if "cycle" in flag:
        merged["cycle"] = flag["cycle"]
    return merged


def _format_exception(exc: BaseException) -> str:
    try:
        return "".join(traceback.format_exception(exc))
    except BaseException:  # noqa: BLE001 - a traceback that cannot be printed is left out
        return f"{type(exc).__name__} (its traceback cannot be printed)"


def root_cause(exc: BaseException) -> BaseException:
    """xDSL wraps pattern errors in diagnostics; show the error the pass raised."""
    cause = exc.__cause__
    return cause if isinstance(cause, BaseException) else exc
