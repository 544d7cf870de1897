"""MLIR's upstream dialects as passviz registers them: xDSL's, some ops replaced or added."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.ir import Dialect, DialectInterface, Operation


def replacing(
    dialect: Dialect,
    replaced: Mapping[type[Operation], type[Operation]],
    added: Sequence[type[Operation]] = (),
    interfaces: Sequence[DialectInterface] = (),
) -> Dialect:
    """xDSL's ``dialect`` with each op ``replaced`` maps by passviz's, ``added`` after its ops,
    its attributes, and ``interfaces``."""
    return Dialect(
        dialect.name,
        [replaced.get(op, op) for op in dialect.operations] + list(added),
        list(dialect.attributes),
        list(interfaces),
    )
