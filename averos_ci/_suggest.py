""" "Did you mean …?": one wording for every misspelt name (manifest, config, adapters)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def suggest(name: str, choices: Iterable[str], *, cutoff: float = 0.6) -> str | None:
    """``"did you mean 'x'?"`` for the closest of ``choices``, or ``None`` when none is close
    (``cutoff``: difflib's similarity ratio, 0..1)."""
    close = difflib.get_close_matches(name, sorted(choices), n=1, cutoff=cutoff)
    return f"did you mean {close[0]!r}?" if close else None


def suggest_or_name(name: str, choices: Iterable[str], *, what: str, limit: int = 8) -> str:
    """The did-you-mean when one of ``choices`` is close; else the names there are (the first
    ``limit``, sorted), so a name with no near miss (``'Author'`` among ``Book, Shelf``) still
    says what it could be. ``what``: the plural noun, "entities"."""
    known = sorted(set(choices))
    by_case = [c for c in known if c.casefold() == name.casefold()]
    near = f"did you mean {by_case[0]!r}?" if by_case else suggest(name, known)
    if near is not None:
        return near
    if not known:
        return f"there are no {what}: add one named {name!r}"
    shown = ", ".join(known[:limit]) + (
        f" and {len(known) - limit} more" if len(known) > limit else ""
    )
    return f"the {what} are {shown} (none is close)"
