"""Secrets in every form they are printed in, and the secrets this process knows.

A secret leaks not only as itself. A tool that echoes its options prints it JSON-escaped
(``p\\"ss\\\\w\\u00f6rd``), a renderer markdown-escaped, a URL percent-encoded, a shell
quoted, an XML report entity-escaped — and an escape may be escaped again (JSON inside JSON).
:func:`scrubber` matches a secret in any of these forms, or any mix of them, character by
character; :func:`forms` lists the concrete forms, for the runner's ``::add-mask::`` (which
masks literal strings only).

The registry (:func:`register`, :func:`scrub`) holds what this process must never print:
the token, the state key and the sensitive values of the plans it applies — the runner's mask
list, for writers far from the run (a helper process's stderr log). A secret stays registered
for the life of the process.
"""

from __future__ import annotations

import html
import json
import re
import shlex
import string
import threading
import urllib.parse
from collections.abc import Callable, Iterable

MASK = "(sensitive)"
MIN_CHARS = 6  # shorter secrets are not registered (see register)
_UNRESERVED = set(string.ascii_letters + string.digits + "-._~")  # never percent-encoded
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;|&#39;|&apos;"}
_MIN_LINE = MIN_CHARS  # a shorter line of a multi-line secret would mask common text
_NAMED = {"\n": "n", "\r": "r", "\t": "t", "\b": "b", "\f": "f"}


_BS = r"(?:\\|%5[cC]|&#92;|&#x5[cC];)"  # a backslash, maybe URL- or entity-encoded itself


def _char(ch: str) -> str:
    """A regex for ``ch`` in any of the encodings (backslash escapes at any depth)."""
    if ch == "\\":
        return _BS + "+"
    code = ord(ch)
    alts = [re.escape(ch) if ch.isalnum() else _BS + "*" + re.escape(ch)]
    if ch in _NAMED:
        alts.append(_BS + "+" + _NAMED[ch])
    if ch.isspace() and ch != " ":
        alts.append(" ")  # markdown renderers keep text on one line
    if not ch.isascii() or not ch.isprintable():
        if code > 0xFFFF:
            high, low = divmod(code - 0x10000, 0x400)
            alts.append(rf"(?i:{_BS}+u{0xD800 + high:04x}{_BS}+u{0xDC00 + low:04x})")
            alts.append(rf"{_BS}+U{code:08x}")
        else:
            alts.append(rf"(?i:{_BS}+u{code:04x}|%u{code:04x})")  # JSON, JavaScript's escape()
        if code <= 0xFF:
            alts.append(rf"(?i:{_BS}+x{code:02x})")
    if ch not in _UNRESERVED:
        alts.append(_BS + "*(?i:" + "".join(f"%{b:02x}" for b in ch.encode()) + ")")
        if 0x80 <= code <= 0xFF:
            alts.append(f"(?i:%{code:02x})")  # JavaScript's escape(): Latin-1
        alts.append(f"(?i:&#{code};|&#x0*{code:x};)")
    if ch == " ":
        alts.append(r"\+")
    if ch in _ENTITIES:
        alts.append(_ENTITIES[ch])
    if ch == "'":
        alts += [r"'\"'\"'", r"'\\''"]  # closed, quoted, reopened: a shell's single quotes
    if ch == "@":
        alts.append("@\u200b")  # markdown without mentions
    return "(?:" + "|".join(alts) + ")"


def pattern(secret: str) -> str:
    """A regex matching ``secret`` in any form :mod:`this module <averos_ci._secrets>` knows."""
    return "".join(_char(ch) for ch in secret)


def scrubber(secrets: Iterable[str]) -> Callable[[str], str]:
    """A function replacing each of ``secrets``, in every form, by :data:`MASK` (longest
    first)."""
    ordered = sorted({s for s in secrets if s}, key=len, reverse=True)
    if not ordered:
        return lambda text: text
    compiled = re.compile("|".join(pattern(s) for s in ordered))
    return lambda text: compiled.sub(MASK, text)


def forms(secret: str) -> list[str]:
    """The literal forms of ``secret`` that averos-ci and the tools it runs print: itself,
    JSON-escaped (ASCII or not), Python's repr, URL-encoded, shell-quoted, XML-escaped and
    markdown-escaped; a form spanning lines also line by line."""
    encoded = [
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        repr(secret)[1:-1],
        urllib.parse.quote(secret, safe=""),
        urllib.parse.quote_plus(secret),
        shlex.quote(secret),
        html.escape(secret),
        re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", secret),  # CommonMark: any ASCII punctuation
    ]
    out: list[str] = []
    for form in encoded:
        lines = [line for line in form.splitlines() if len(line.strip()) >= _MIN_LINE]
        for piece in (form, *lines) if len(lines) > 1 else (form,):
            if piece.strip() and piece not in out:
                out.append(piece)
    return out


_lock = threading.Lock()
_known: set[str] = set()
_scrub: Callable[[str], str] = scrubber(())


def register(*secrets: str | None) -> None:
    """Add ``secrets`` to what :func:`scrub` removes; shorter than :data:`MIN_CHARS`, they are
    ignored (replacing ``true`` or ``42`` everywhere would garble every line and hide nothing
    a guess would not find)."""
    global _scrub
    new = {s for s in secrets if s and len(s) >= MIN_CHARS} - _known
    if not new:
        return
    with _lock:
        _known.update(new)
        _scrub = scrubber(_known)


def known() -> frozenset[str]:
    return frozenset(_known)


def scrub(text: str) -> str:
    """``text`` without any registered secret, in any form."""
    return _scrub(text)
