"""``plan --diff`` is the code change byte for byte (issue 37, "what a reviewer approves is
what they see"): ``git apply`` of it writes exactly the files the run writes — a last line
without its newline (git's ``\\ No newline at end of file``), CRLF lines, a lone ``\\r`` or a
form feed inside a line, empty files, and files the generator moved (git's rename)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from averos_ci.execute.regen.merge import compute_patch
from averos_ci.execute.regen.patching import apply_patch
from averos_ci.execute.regen.tree import Tree
from averos_ci.plan.patch import NO_NEWLINE, CodePatch
from averos_ci.plan.patch_render import git_diff

Files = dict[str, bytes]


def _write(root: Path, files: Files) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


def _read(root: Path) -> Files:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def _git_applied(before: Files, diff: str, where: Path) -> Files:
    """``before`` in a git repository, ``diff`` checked then applied by ``git apply``."""
    repo = _write(where, before)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    for args in (["--check"], []) if diff else ():  # no change: git refuses an empty patch
        done = subprocess.run(
            ["git", "apply", *args, "-"], cwd=repo, input=diff.encode(), capture_output=True
        )
        assert done.returncode == 0, done.stderr.decode() + diff
    return _read(repo)


def _patch(before: Files, after: Files, ws: Path) -> CodePatch:
    """The generator goes ``before`` -> ``after``; the workspace has ``before``, untouched."""
    return compute_patch(Tree(before, {}), Tree(after, {}), _write(ws, before))


CASES = {
    "created without a final newline": ({}, {"a.ts": b"one\ntwo"}),
    "deleted without a final newline": ({"a.ts": b"one\ntwo"}, {}),
    "its last line loses its newline": ({"a.ts": b"1\n2\n3\n"}, {"a.ts": b"1\n2\n3"}),
    "its last line gains a newline": ({"a.ts": b"1\n2\n3"}, {"a.ts": b"1\n2\n3\n"}),
    "a line changed before a last line without newline": (
        {"a.ts": b"1\n2\n3\n4"},
        {"a.ts": b"1\n2\nthree\n4"},
    ),
    "CRLF, one line changed": ({"a.ts": b"1\r\n2\r\n3\r\n"}, {"a.ts": b"1\r\ntwo\r\n3\r\n"}),
    "CRLF without a final newline": ({"a.ts": b"1\r\n2"}, {"a.ts": b"1\r\n2\r\n3"}),
    "a lone CR and a form feed inside lines": (
        {"a.ts": b"x\x0cy\nz\rw\n"},
        {"a.ts": b"x\x0cy\nz\rw!\n"},
    ),
    "an empty file created": ({"k.ts": b"k\n"}, {"k.ts": b"k\n", "a.css": b""}),
    "an empty file deleted": ({"k.ts": b"k\n", "a.css": b""}, {"k.ts": b"k\n"}),
    "a changed file that was empty": ({"a.ts": b""}, {"a.ts": b"now\n"}),
}


@pytest.mark.parametrize(("before", "after"), CASES.values(), ids=list(CASES))
def test_git_applies_plan_diff_to_the_files_the_run_writes(
    before: Files, after: Files, tmp_path: Path
) -> None:
    patch = _patch(before, after, tmp_path / "ws")
    diff = git_diff(patch.to_wire())
    assert _git_applied(before, diff, tmp_path / "git") == after
    apply_patch(patch, tmp_path / "ws")
    assert _read(tmp_path / "ws") == after  # the run writes the same


def test_a_last_line_without_newline_is_gits_and_not_counted(tmp_path: Path) -> None:
    patch = _patch({"a.ts": b"1\n2\n3\n"}, {"a.ts": b"1\n2\n3"}, tmp_path / "ws")
    [change] = patch.files
    assert change.diff.endswith("-3\n+3\n" + NO_NEWLINE), change.diff
    assert NO_NEWLINE == "\\ No newline at end of file\n"  # git's and GNU diff's words
    assert (change.added, change.removed) == (1, 1)  # as git --numstat counts it
    # the hashed patch holds it: the comment and ``plan --diff`` show the same text
    assert patch.to_wire()["files"][0]["diff"] == change.diff


# small files: a few lines from a small alphabet, LF or CRLF, with or without a final newline
_LINE = st.text(alphabet="ab{}; ", max_size=6)
_FILE = st.builds(
    lambda lines, crlf, last: (
        (b"\r\n" if crlf else b"\n").join(x.encode() for x in lines)
        + (b"\r\n" if crlf and last else b"\n" if last else b"")
    ),
    st.lists(_LINE, max_size=6),
    st.booleans(),
    st.booleans(),
)
_TREE = st.dictionaries(st.sampled_from(["a.ts", "b/c.ts", "b/d.ts", "e.css"]), _FILE, max_size=3)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=_TREE, after=_TREE)
def test_git_apply_of_plan_diff_reproduces_any_change_byte_for_byte(
    before: Files, after: Files
) -> None:
    """Any generator change of small files (moves included: a file gone and a like one born
    is a rename), applied to an untouched workspace: git's apply of ``plan --diff`` and the
    run's apply write the same bytes."""
    with tempfile.TemporaryDirectory(prefix="averos-ci-diff-") as tmp:
        patch = _patch(before, after, Path(tmp) / "ws")
        assert _git_applied(before, git_diff(patch.to_wire()), Path(tmp) / "git") == after
        apply_patch(patch, Path(tmp) / "ws")
        assert _read(Path(tmp) / "ws") == after
        shutil.rmtree(tmp, ignore_errors=True)
