"""Value and block names that are only a ``_N`` suffix (``%_0``) survive being copied.

xDSL keeps a name hint without its ``_N`` suffix (``%x_1`` is kept as ``x``,
so the printer can number it again).  A name that is nothing but the suffix
is kept as ``""``, which xDSL then refuses as a name: erasing such a value,
or replacing it, copies the hint onto another value and raises
``Invalid ErasedSSAValue name format ''``.  Triton's ``tl.rand`` names a value
``_0``, so every kernel that draws random numbers hit it (``xdsl-opt -p dce``
too).  The fix keeps such a name whole.  Upstream candidate: in
``xdsl.ir.core.IRWithName.extract_valid_name``, strip the suffix only when
something is left.
"""

from __future__ import annotations

from xdsl.ir.core import IRWithName

from passviz.ir.xdsl_compat import original, patch

_XDSL_EXTRACT_VALID_NAME = original(IRWithName, "extract_valid_name").__func__
"""xDSL's own ``extract_valid_name`` (unbound), which the fix wraps."""


def _extract_valid_name(cls: type[IRWithName], name: str | None) -> str | None:
    """xDSL's ``extract_valid_name``, keeping a name that is only a ``_N`` suffix whole."""
    extracted = _XDSL_EXTRACT_VALID_NAME(cls, name)
    return name if extracted == "" else extracted


def keep_suffix_only_names() -> None:
    """Make xDSL keep names such as ``_0`` whole (idempotent; one of the patches
    ``passviz.ir.xdsl_compat.PATCHES`` lists)."""
    patch(IRWithName, "extract_valid_name", classmethod(_extract_valid_name))
