"""Line endings in the three-way merge.

Averos 1.4.1 writes some files with mixed line endings (a model: about 41 CRLF and 13 LF
lines), and editors normalise them on save. Compared byte for byte, every line such an editor
rewrote is a user edit, and every generator change on or next to one a conflict whose sides
look identical (``\\r`` is invisible). So the merge reads CRLF as LF (:func:`normalise`) and
writes the result back in the style of the user's copy (:func:`restore`).
"""

from __future__ import annotations

import difflib

CRLF = b"\r\n"
LF = b"\n"


def normalise(data: bytes) -> bytes:
    """``data`` with each CRLF read as LF."""
    return data.replace(CRLF, LF)


def style(data: bytes) -> bytes | None:
    """:data:`CRLF` or :data:`LF` when every line break of ``data`` is that one; ``None`` when
    they are mixed or there is none."""
    crlf = data.count(CRLF)
    lf = data.count(LF) - crlf
    if crlf and not lf:
        return CRLF
    if lf and not crlf:
        return LF
    return None


def restore(merged: bytes, *, ours: bytes, theirs: bytes) -> bytes:
    """``merged`` (LF line breaks) in the line-ending style of ``ours``: one style throughout
    when ``ours`` has one; when ``ours`` mixes them, each line keeps the ending of the line of
    ``ours`` it comes from, else of ``theirs``, else the one ``ours`` uses most. A file of
    ``ours`` without any line break takes the style of ``theirs`` the same way."""
    source = ours if LF in ours else theirs
    uniform = style(source)
    if uniform is not None:
        return merged if uniform == LF else merged.replace(LF, CRLF)
    if LF not in source:
        return merged
    *lines, tail = merged.split(LF)
    endings: list[bytes | None] = [None] * len(lines)
    for side in (ours, theirs):
        texts, ends = _lines(side)
        matcher = difflib.SequenceMatcher(None, texts, lines, autojunk=False)
        for a, b, size in matcher.get_matching_blocks():
            for k in range(size):
                endings[b + k] = endings[b + k] or ends[a + k]
    most = CRLF if 2 * source.count(CRLF) >= source.count(LF) else LF
    return b"".join(line + (end or most) for line, end in zip(lines, endings, strict=True)) + tail


def _lines(data: bytes) -> tuple[list[bytes], list[bytes]]:
    """The lines of ``data`` without their endings, and their endings (the last line's, if it
    has none, is left out)."""
    texts: list[bytes] = []
    ends: list[bytes] = []
    for part in data.split(LF)[:-1]:
        crlf = part.endswith(b"\r")
        texts.append(part[:-1] if crlf else part)
        ends.append(CRLF if crlf else LF)
    return texts, ends
