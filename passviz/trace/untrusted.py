"""Reading trace files that come from anywhere, within fixed limits.

A trace file is untrusted input: it may be damaged, hand-made or crafted.
Reading one stays within these limits, and going past any of them is a
one-line ``TraceLimitError`` naming the limit, never a crash or a hang:

- ``MAX_TRACE_BYTES``: the NDJSON a file may hold, after decompression (a
  gzip bomb stops there, without inflating the rest);
- ``MAX_JSON_DEPTH``: how deeply a record's arrays and objects may nest
  (Python's JSON decoder and the schema validator recurse);
- ``MAX_NUMBER_DIGITS``: the digits of a number (numbers in a trace are
  counts and indices; a longer one would overflow where it is used);
- ``MAX_STRING_CHARS``: the characters of one string (an op's text, an
  attribute): the viewer shows at most the first thousand of a string
  anyway, and the largest ``dense`` literal passviz reads prints well under it.

Replay work is bounded by these: each step's delta is applied once, so the
work of replaying a trace grows with its records, which the size limit bounds.

IR texts in a trace are read by ``passviz.ir.mlir_parser``, whose own
limits (nesting, literal sizes) apply to them as to an ``.mlir`` file.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, cast

MAX_TRACE_BYTES = 256 << 20
"""The most bytes of NDJSON a trace may hold, after decompression (256 MiB)."""

MAX_JSON_DEPTH = 64
"""The deepest nesting of arrays and objects in a record (real records nest under 10)."""

MAX_NUMBER_DIGITS = 15
"""The most digits a number in a trace may have."""


MAX_STRING_CHARS = 32 << 20
"""The most characters one string in a trace may have (32 Mi)."""


class TraceLimitError(ValueError):
    """A trace file past one of the limits above."""


READ_CHUNK_BYTES = 1 << 20
"""How much of a trace is read, or inflated, at a time (1 MiB)."""

_GZIP_MAGIC = b"\x1f\x8b"


def read_chunks(path: str | Path) -> Iterator[bytes]:
    """The NDJSON of the trace file at ``path`` in pieces of at most ``READ_CHUNK_BYTES``:
    decompressed if it is gzip, at most ``MAX_TRACE_BYTES`` in all.

    Going past the limit raises ``TraceLimitError`` before more is read or
    inflated, so a gzip bomb costs a chunk of memory, not its size.  Every
    member of a multi-member gzip file is read (``cat a.gz b.gz``); a cut-off
    stream yields what it holds, and a damaged one what came before the damage.
    """
    with open(path, "rb") as stream:
        first = stream.read(READ_CHUNK_BYTES)
        pieces = _inflate(first, stream) if first.startswith(_GZIP_MAGIC) else _plain(first, stream)
        size = 0
        for piece in pieces:
            size += len(piece)
            _check_size(path, size)
            yield piece


def _plain(first: bytes, stream: IO[bytes]) -> Iterator[bytes]:
    data = first
    while data:
        yield data
        data = stream.read(READ_CHUNK_BYTES)


def _inflate(first: bytes, stream: IO[bytes]) -> Iterator[bytes]:
    """The decompressed bytes of the gzip stream that begins with ``first``, a chunk at a time."""
    unzip = zlib.decompressobj(31)
    data = first
    while True:
        try:
            # At most a chunk out per call: the input left over waits in unconsumed_tail.
            piece = unzip.decompress(data, READ_CHUNK_BYTES)
        except zlib.error:
            return
        if piece:
            yield piece
        if unzip.eof:
            data = unzip.unused_data
            if len(data) < len(_GZIP_MAGIC):
                data += stream.read(READ_CHUNK_BYTES)
            if not data.startswith(_GZIP_MAGIC):
                return  # bytes that begin no member are ignored, as gzip does
            unzip = zlib.decompressobj(31)
        elif unzip.unconsumed_tail:
            data = unzip.unconsumed_tail
        elif len(piece) == READ_CHUNK_BYTES:
            data = b""  # a full chunk out: inflating may hold more without new input
        else:
            data = stream.read(READ_CHUNK_BYTES)
            if not data:
                return


def read_bytes(path: str | Path) -> bytes:
    """The NDJSON of the trace file at ``path``, whole (see ``read_chunks``)."""
    return b"".join(read_chunks(path))


def _check_size(path: str | Path, size: int) -> None:
    if size > MAX_TRACE_BYTES:
        raise TraceLimitError(
            f"{path}: the trace holds more than {MAX_TRACE_BYTES >> 20} MiB of records, the limit"
        )


def decode_record(chunk: str, *, depth: bool = True) -> object:
    """One line of a trace as JSON, within ``MAX_JSON_DEPTH`` and ``MAX_NUMBER_DIGITS``.

    Raises ``TraceLimitError`` past a limit, and ``ValueError`` (such as
    ``json.JSONDecodeError``) for text that is not JSON (``NaN`` and
    ``Infinity`` are not).  Without ``depth`` the nesting is checked only as
    deep as the decoder recurses: a caller whose next check bounds the depth
    anyway (the envelope check, ``passviz.trace.envelope``) calls
    ``check_depth`` on a record that fails it, and saves walking every record."""
    try:
        value = json.loads(
            chunk, parse_int=_bounded_int, parse_float=_bounded_float, parse_constant=_constant
        )
    except RecursionError:
        raise _too_deep() from None
    if depth and chunk.count("[") + chunk.count("{") > MAX_JSON_DEPTH:
        check_depth(value)
    if len(chunk) > MAX_STRING_CHARS and (longest := _longest_string(value)) > MAX_STRING_CHARS:
        raise TraceLimitError(
            f"a string of {longest:,} characters; the limit is {MAX_STRING_CHARS:,} characters"
        )
    return value


def check_depth(value: object) -> None:
    """Raise ``TraceLimitError`` if ``value`` nests deeper than ``MAX_JSON_DEPTH``."""
    if not _nests_within(value, MAX_JSON_DEPTH):
        raise _too_deep()


def _longest_string(value: object) -> int:
    """The length of the longest string in ``value`` (keys included), without recursion."""
    longest = 0
    pending: list[object] = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            longest = max(longest, len(item))
        elif isinstance(item, dict):
            fields = cast(dict[str, object], item)
            pending.extend(fields)
            pending.extend(fields.values())
        elif isinstance(item, list):
            pending.extend(cast(list[object], item))
    return longest


def _too_deep() -> TraceLimitError:
    return TraceLimitError(f"a record nests deeper than {MAX_JSON_DEPTH} levels, the limit")


def _nests_within(value: object, depth: int) -> bool:
    """Whether ``value``'s arrays and objects nest at most ``depth`` deep (level by level, no recursion)."""
    level: list[object] = [value]
    for _ in range(depth):
        inner: list[object] = []
        for item in level:
            if isinstance(item, dict):
                inner.extend(cast(dict[str, object], item).values())
            elif isinstance(item, list):
                inner.extend(cast(list[object], item))
        level = [item for item in inner if isinstance(item, dict | list)]
        if not level:
            return True
    return False


def _digits(text: str) -> str:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise TraceLimitError(
            f"a number of {len(text.lstrip('-'))} digits ({text[:12]}...); "
            f"the limit is {MAX_NUMBER_DIGITS} digits"
        )
    return text


def _bounded_int(text: str) -> int:
    return int(_digits(text))


def _bounded_float(text: str) -> float:
    mantissa = text.lower().partition("e")[0].replace(".", "")
    _digits(mantissa)
    return float(text)


def _constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")
