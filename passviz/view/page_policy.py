"""The Content-Security-Policy of every page passviz writes: only its own scripts run.

An offline page holds its scripts in line, so ``script-src 'unsafe-inline'``
would be the easy policy; it would also run any script or event handler that
an escaping bug let through from a trace.  Instead the policy lists the
SHA-256 hash of each script the page itself holds: the browser runs those and
nothing else.  Nothing loads (``default-src 'none'``, no ``connect-src``),
no form can be sent (``form-action 'none'``) and no ``<base>`` can redirect
relative addresses (``base-uri 'none'``).  Styles stay in line: the viewer
positions its boxes with style attributes, and with nothing allowed to load,
a style cannot send anything off the page.  The viewer's worker, which lays
steps out ahead of the page, starts from a ``blob:`` address the page's own
script makes of the code it holds (``worker-src blob:``): a script that could
make one would have to run first, which the hashes forbid.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable
from html import escape

_INLINE_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)
_SRC = re.compile(r"\bsrc\s*=", re.IGNORECASE)
_DATA_TYPE = re.compile(r"""\btype\s*=\s*["']?application/json""", re.IGNORECASE)
_HEAD = re.compile(r"<head\b[^>]*>", re.IGNORECASE)


def script_hash(source: str) -> str:
    """The CSP source expression that lets the inline script ``source`` run."""
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_security_policy(scripts: Iterable[str]) -> str:
    """The policy of a page whose inline scripts are exactly ``scripts``."""
    hashes = " ".join(sorted({script_hash(s) for s in scripts})) or "'none'"
    return (
        f"default-src 'none'; script-src {hashes}; "
        "style-src 'unsafe-inline'; img-src data: blob:; font-src data:; worker-src blob:; "
        "form-action 'none'; base-uri 'none'"
    )


def inline_scripts(page: str) -> list[str]:
    """The texts of the scripts ``page`` runs in line (not JSON data blocks, not ``src`` scripts)."""
    return [
        body
        for attributes, body in _INLINE_SCRIPT.findall(page)
        if not _SRC.search(attributes) and not _DATA_TYPE.search(attributes)
    ]


def policy_meta(scripts: Iterable[str]) -> str:
    """The ``<meta>`` element that puts the policy for ``scripts`` in force."""
    return f'<meta http-equiv="Content-Security-Policy" content="{escape(content_security_policy(scripts))}">'


def with_policy(page: str) -> str:
    """``page`` with the policy for its own inline scripts first in its ``<head>``.

    The policy applies from where the ``<meta>`` appears, so it goes before
    anything else the head holds.
    """
    meta = policy_meta(inline_scripts(page))
    head = _HEAD.search(page)
    if head is None:
        return f"<head>{meta}</head>{page}"
    return page[: head.end()] + meta + page[head.end() :]
