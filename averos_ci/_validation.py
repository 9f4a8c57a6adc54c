"""pydantic's ``ValidationError`` read one way: each error as a located :class:`Problem`.

Every loader that validates with pydantic (manifest, config, policy, state, checkpoints,
adapterOptions, GitHub settings and events) turns the errors into its own message through
:func:`problems` / :func:`first_problem`, so a location reads the same everywhere.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from pydantic import ValidationError

Loc = tuple[str | int, ...]


def pointer_str(pointer: Sequence[str | int]) -> str:
    """RFC 6901 JSON pointer."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in pointer)


class Problem(NamedTuple):  # not a dataclass: `validate` never imports inspect
    loc: Loc  # where in the validated data, after the caller's prefix
    msg: str
    kind: str  # pydantic's error type: "missing", "extra_forbidden", ...
    input: Any = None

    @property
    def pointer(self) -> str:
        """The place as a JSON pointer (``/`` for the root)."""
        return pointer_str(self.loc) or "/"

    @property
    def dotted(self) -> str:
        """The place as a dotted path (``<root>`` for the root)."""
        return ".".join(map(str, self.loc)) or "<root>"

    @property
    def unknown_key(self) -> bool:
        """The key itself is wrong (locate the key, not its value)."""
        return self.kind == "extra_forbidden"

    def __str__(self) -> str:
        return f"{self.pointer}: {self.msg}"


def problems(
    exc: ValidationError, *, prefix: Loc = (), union_tags: Collection[str] = ()
) -> list[Problem]:
    """Every error of ``exc``, in pydantic's order.

    ``prefix`` places the validated value in its document (``("policy",)``); ``union_tags``
    are the member names pydantic adds to a location when it tried a union (``str``).
    """
    return [
        Problem(
            loc=(*prefix, *(p for p in err["loc"] if p not in union_tags)),
            msg=err["msg"],
            kind=err["type"],
            input=err.get("input"),
        )
        for err in exc.errors()
    ]


def first_problem(
    exc: ValidationError, *, prefix: Loc = (), union_tags: Collection[str] = ()
) -> Problem:
    """The first error of ``exc``: what a loader that stops at one reports."""
    return problems(exc, prefix=prefix, union_tags=union_tags)[0]
