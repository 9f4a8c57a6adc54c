"""The one markdown escaper: every string from a manifest, a payload or a tool that goes into
a PR comment, a job summary or a markdown plan passes through :func:`escape` (inline text) or
:func:`code_block` (verbatim text), so that it cannot open markup, an HTML element, a table
cell, a heading or a link, and cannot mention (ping) a user or a team.
"""

from __future__ import annotations

import re

__all__ = ["code", "code_block", "escape"]

# enough in inline text: "#", "+", "-" only act at the start of a line, and a value is one
# line that is never placed at a line's start; "<", ">", "&" become entities (no HTML, no
# character references); "@" gets a zero-width space (shown, never a mention)
_SPECIAL = frozenset("\\`*_[]|~")
_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;", "@": "@\u200b"}
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029\x0b\x0c\x85]")
_INLINE_CODE = re.compile(r"[0-9A-Za-z_.:/-]*")
_BACKTICKS = re.compile(r"`+")


def escape(text: str) -> str:
    """``text`` as inline markdown that shows it as it is, on one line."""
    out = []
    for ch in _LINE_BREAKS.sub(" ", text):
        if ch in _SPECIAL:
            out.append("\\" + ch)
        else:
            out.append(_ENTITIES.get(ch, ch))
    return "".join(out)


def code(text: str) -> str:
    """Inline code for hashes, shas, paths and identifiers; anything else is escaped."""
    if _INLINE_CODE.fullmatch(text):
        return f"`{text}`"
    return escape(text)


def code_block(text: str, lang: str = "text") -> str:
    """``text`` verbatim in a fenced block no line of it can close: the fence is longer than
    any run of backticks in ``text`` (GitHub renders no HTML or mention inside)."""
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text.rstrip(chr(10))}\n{fence}"
