"""Small helpers to write markdown tables safely."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def cell(text: object) -> str:
    """One table cell: no line breaks, no unescaped pipe."""
    value = "" if text is None else str(text)
    return " ".join(value.split()).replace("|", "\\|")


def code(text: object) -> str:
    value = str(text)
    fence = "``" if "`" in value else "`"
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def table(head: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return [*lines, ""]


def anchor(text: str) -> str:
    """The id python-markdown's toc extension gives a heading (its default ``slugify``)."""
    from markdown.extensions.toc import slugify

    return str(slugify(text, "-"))
