"""Line endings never decide a merge (issue 38 item 1): the three-way merge of random files
whose sides use random line-ending styles (LF, CRLF or mixed, as Averos 1.4.1 writes models)
has the outcome of the same merge with LF everywhere, and is written in the style of the
user's copy."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from averos_ci.execute.regen.eol import normalise, style
from averos_ci.execute.regen.merge import conflict_hunks, merge_file

LINES = st.lists(st.text(alphabet="abxy =;", max_size=6), min_size=2, max_size=10)
STYLES = st.sampled_from(["lf", "crlf", "mixed"])


@st.composite
def edited(draw: st.DrawFn, base: list[str]) -> list[str]:
    """``base`` with one line replaced, inserted or deleted."""
    lines = list(base)
    at = draw(st.integers(0, len(lines) - 1))
    op = draw(st.sampled_from(["replace", "insert", "delete"]))
    text = draw(st.text(alphabet="mnop =", min_size=1, max_size=6))
    if op == "replace":
        lines[at] = text
    elif op == "insert":
        lines.insert(at, text)
    else:
        del lines[at]
    return lines


@st.composite
def written(draw: st.DrawFn, lines: list[str], how: str) -> bytes:
    """``lines`` joined in style ``how`` (``mixed``: each line's ending drawn)."""
    ends = {
        "lf": ["\n"] * len(lines),
        "crlf": ["\r\n"] * len(lines),
        "mixed": draw(
            st.lists(st.sampled_from(["\n", "\r\n"]), min_size=len(lines), max_size=len(lines))
        ),
    }[how]
    return "".join(line + end for line, end in zip(lines, ends, strict=True)).encode()


@st.composite
def sides(draw: st.DrawFn) -> tuple[bytes, bytes, bytes, str]:
    base = draw(LINES)
    ours, theirs = draw(edited(base)), draw(edited(base))
    ours_style = draw(STYLES)
    return (
        draw(written(base, draw(STYLES))),
        draw(written(ours, ours_style)),
        draw(written(theirs, draw(STYLES))),
        ours_style,
    )


@settings(max_examples=100, deadline=None)
@given(sides())
def test_line_endings_never_change_a_merge(case: tuple[bytes, bytes, bytes, str]) -> None:
    base, ours, theirs, ours_style = case
    merged, conflicted = merge_file(base, ours, theirs)
    plain, plain_conflicted = merge_file(normalise(base), normalise(ours), normalise(theirs))
    assert conflicted == plain_conflicted
    assert normalise(merged) == plain
    if ours_style != "mixed":  # written back in the user's style, every line
        assert style(merged) in (None, b"\n" if ours_style == "lf" else b"\r\n")
        assert style(merged) is not None or b"\n" not in merged


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_a_mixed_copy_keeps_each_lines_ending(data: st.DataObject) -> None:
    """The user kept the generator's mixed endings and edited a line; the generator changed
    another, far from it: every line keeps the ending it had in the copy it comes from."""
    base = data.draw(
        st.lists(st.text(alphabet="abxy", min_size=1, max_size=4), min_size=6, max_size=10)
    )
    base = [f"{i} {line}" for i, line in enumerate(base)]  # distinct lines
    ends = data.draw(
        st.lists(st.sampled_from(["\n", "\r\n"]), min_size=len(base), max_size=len(base))
    )
    ours, theirs = list(base), list(base)
    ours[0] += " mine"
    theirs[-1] += " generated"

    def join(lines: list[str]) -> bytes:
        return "".join(t + e for t, e in zip(lines, ends, strict=True)).encode()

    merged, conflicted = merge_file(join(base), join(ours), join(theirs))
    expected = [ours[0], *base[1:-1], theirs[-1]]
    assert not conflicted and merged == join(expected)


def test_a_conflict_that_is_whitespace_only_says_so_in_its_hunk() -> None:
    base = b"a\r\nb\r\n  title: string;\r\nc\r\n"
    ours = b"a\nb\n\ttitle:  string;\nc\n"  # re-indented, LF: an editor's doing
    theirs = b"a\r\nb\r\n  title: number;\r\nc\r\n"
    merged, conflicted = merge_file(base, ours, theirs)
    assert conflicted and b"\r" not in merged
    hunks = conflict_hunks(merged)
    assert hunks.startswith(
        "(note: yours and generated before differ only in whitespace or line endings: "
        "taking the generated now side loses no edit of yours)\n<<<<<<< yours (workspace)\n"
    )
    same = conflict_hunks(merge_file(base, b"a\nb\n title:   number;\nc\n", theirs)[0])
    assert "(note: yours and generated now differ only in whitespace" in same
