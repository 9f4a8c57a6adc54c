"""The pieces every page is made of: the frame (language, title, the stylesheet, a content
security policy that forbids scripts and any request off the site), escaped text, links,
tables with captions and column headers, and the formats of times, hashes and durations.

Every string of the state branch goes through :func:`text` (``html.escape``): the branch is
anyone's who can push to it, and a project or an approver named ``<script>`` is shown as
text."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from html import escape

STYLESHEET = "style.css"
# no script, no frame, nothing fetched from anywhere but the site itself
CSP = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'"


def text(value: object) -> str:
    return escape("" if value is None else str(value), quote=True)


def frame(*, title: str, body: str, root: str = "") -> str:
    """A whole page; ``root``: the path back to the site's top (``../`` on a project page)."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{text(title)}</title>\n"
        f'<link rel="stylesheet" href="{root}{STYLESHEET}">\n</head>\n<body>\n'
        f'<a class="skip" href="#main">Skip to the content</a>\n'
        f'<main id="main">\n{body}</main>\n</body>\n</html>\n'
    )


def link(href: str, label: str) -> str:
    """A link inside the site (``href`` is ours, never the branch's)."""
    return f'<a href="{text(href)}">{text(label)}</a>'


def outside_link(url: str | None, label: str) -> str:
    """A link the branch names (a run's URL): only https, else the label alone."""
    if not url:
        return "—"
    if not url.startswith("https://"):
        return text(label)
    return f'<a href="{text(url)}" rel="noopener noreferrer">{text(label)}</a>'


def table(
    caption: str, headers: Sequence[str], rows: Iterable[Sequence[str]], *, empty: str
) -> str:
    """A table of rows of HTML cells; the first cell of a row is its header (``th``)."""
    body = [
        "<tr>"
        + "".join(
            f'<th scope="row">{cell}</th>' if i == 0 else f"<td>{cell}</td>"
            for i, cell in enumerate(row)
        )
        + "</tr>"
        for row in rows
    ]
    if not body:
        return f'<p class="empty">{text(empty)}</p>\n'
    head = "".join(f'<th scope="col">{text(h)}</th>' for h in headers)
    return (
        f"<table>\n<caption>{text(caption)}</caption>\n<thead><tr>{head}</tr></thead>\n"
        "<tbody>\n" + "\n".join(body) + "\n</tbody>\n</table>\n"
    )


def badge(kind: str, label: str) -> str:
    """A status as words (never colour alone), styled by its kind."""
    return f'<span class="badge {text(kind)}">{text(label)}</span>'


def when(at: datetime | None) -> str:
    return text(at.strftime("%Y-%m-%d %H:%M UTC")) if at else "—"


def short(value: str | None, n: int = 12) -> str:
    return f"<code>{text(value[:n])}</code>" if value else "—"


def duration(ms: int | None) -> str:
    if ms is None:
        return "—"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min {rest} s"


def pull(pr: int | None) -> str:
    return f"#{pr}" if pr is not None else "—"
