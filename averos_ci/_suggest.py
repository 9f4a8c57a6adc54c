""" "Did you mean …?": one wording for every misspelt name (manifest, config, adapters)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def suggest(name: str, choices: Iterable[str], *, cutoff: float = 0.6) -> str | None:
    """``"did you mean 'x'?"`` for the closest of ``choices``, or ``None`` when none is close
    (``cutoff``: difflib's similarity ratio, 0..1)."""
    close = difflib.get_close_matches(name, sorted(choices), n=1, cutoff=cutoff)
    return f"did you mean {close[0]!r}?" if close else None
