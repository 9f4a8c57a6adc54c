"""A code change's counts are its content change (issue 38 item 5): a file the generator moved
— edited by the user or not — is counted against its old file, as git's rename detection
shows it (``+0 -0`` for a pure rename), and conflict markers and git's ``\\ No newline at end
of file`` are not added lines. ``plan --diff`` writes a renamed file as git's rename, which
``git apply`` accepts and applies as the run does."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from averos_ci.execute.regen.merge import compute_patch
from averos_ci.execute.regen.patching import apply_patch
from averos_ci.execute.regen.tree import Tree
from averos_ci.plan.patch import NO_NEWLINE, FileStatus, diff_stats
from averos_ci.plan.patch_render import git_diff, render_patch_text

OLD, NEW = "src/app/model/book.ts", "src/app/model/volume.ts"
GENERATED = "".join(f"  field{i}?: string;\n" for i in range(18)) + "}\n"
EDIT = "  myNote?: string; // USER EDIT\n"


def _workspace(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _git(cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=cwd, input=stdin, text=True, capture_output=True, check=False
    )


def _applied_with_git(ws: Path, tmp: Path, diff: str) -> dict[str, str]:
    copy = tmp / "copy"
    shutil.copytree(ws, copy)
    assert _git(copy, "init", "-q").returncode == 0
    check = _git(copy, "apply", "--check", "-", stdin=diff)
    assert check.returncode == 0, check.stderr + diff
    assert _git(copy, "apply", "-", stdin=diff).returncode == 0
    shutil.rmtree(copy / ".git")
    return {p.relative_to(copy).as_posix(): p.read_text() for p in copy.rglob("*") if p.is_file()}


@pytest.mark.parametrize("edited", [True, False], ids=["edited", "untouched"])
def test_a_moved_file_counts_only_its_content_change_and_git_applies_the_rename(
    tmp_path: Path, edited: bool
) -> None:
    """The generator moves the model unchanged, then with one line changed: the user's edited
    model, and one the user never touched (an entity rename moves every file of the entity)."""
    base_text = "export class Book {\n" + GENERATED
    ours = base_text.replace("{\n", "{\n" + EDIT, 1) if edited else base_text
    for new_text, stats in (
        (base_text, (0, 0)),  # a pure rename
        (base_text.replace("field3?: string", "field3?: number"), (1, 1)),
    ):
        ws = _workspace(tmp_path / f"ws{stats[0]}", {OLD: ours})
        patch = compute_patch(
            Tree({OLD: base_text.encode()}, {}), Tree({NEW: new_text.encode()}, {}), ws
        )
        [renamed] = patch.files  # one rename, never a deletion and a creation
        assert (renamed.status, renamed.old_path, renamed.path) == (FileStatus.RENAMED, OLD, NEW)
        assert (renamed.added, renamed.removed) == stats  # not +20 -0: the whole file
        assert renamed.merged is edited  # nothing of the user's to merge into an untouched one
        text = render_patch_text(patch)
        assert f"{OLD} → {NEW} (renamed, +{stats[0]} -{stats[1]})" in text, text
        assert ("your edits will be merged" in text) is edited
        diff = git_diff(patch.to_wire())
        assert f"diff --git a/{OLD} b/{NEW}\n" in diff and f"rename from {OLD}\n" in diff, diff
        assert f"rename to {NEW}\n" in diff
        after = _applied_with_git(ws, tmp_path / f"git{stats[0]}", diff)
        merged = patch.contents[NEW]
        assert merged is not None and after == {NEW: merged.decode()}  # as the run writes it
        if not edited:
            assert merged.decode() == new_text  # the generator's file, as it is
        apply_patch(patch, ws)
        assert {p.relative_to(ws).as_posix() for p in ws.rglob("*.ts")} == {NEW}
        assert (ws / NEW).read_bytes() == merged  # the old file removed, the new one written


def test_an_untouched_file_moves_only_to_a_free_path_and_empty_ones_by_their_names(
    tmp_path: Path,
) -> None:
    """A move onto a path where the workspace has a file of the user's stays a deletion and a
    creation; empty files (an entity's component styles: all alike) pair by their paths."""
    text = "export class Book {\n" + GENERATED
    ws = _workspace(tmp_path / "ws", {OLD: text, NEW: "// mine\n"})
    empty = ("view/book/book-details.scss", "view/book/create-book.scss")
    moved = ("view/volume/create-volume.scss", "view/volume/volume-details.scss")
    patch = compute_patch(
        Tree({OLD: text.encode(), **dict.fromkeys(empty, b"")}, {}),
        Tree({NEW: text.encode(), **dict.fromkeys(moved, b"")}, {}),
        _workspace(ws, dict.fromkeys(empty, "")),
    )
    statuses = {f.path: (f.status, f.old_path) for f in patch.files}
    assert statuses[OLD] == (FileStatus.DELETED, None)
    assert statuses[moved[0]] == (FileStatus.RENAMED, empty[1])
    assert statuses[moved[1]] == (FileStatus.RENAMED, empty[0])
    after = _applied_with_git(ws, tmp_path / "git", git_diff(patch.to_wire()))
    # the deletion and the 100% renames apply (the user's file at NEW: a merge, as elsewhere)
    assert set(after) == {NEW, *moved} and {after[p] for p in moved} == {""}


def test_conflict_markers_are_not_counted_as_added_lines(tmp_path: Path) -> None:
    base, ours, theirs = ("a\nb\nc\n", "a\nyours\nc\n", "a\ngenerated\nc\n")
    ws = _workspace(tmp_path / "ws", {OLD: ours})
    patch = compute_patch(Tree({OLD: base.encode()}, {}), Tree({OLD: theirs.encode()}, {}), ws)
    [conflicted] = patch.files
    assert conflicted.conflict is not None and "<<<<<<< " in conflicted.diff
    # the merged file adds the two other sides ("b", "generated") and git's four markers
    assert (conflicted.added, conflicted.removed) == (2, 0)


def test_diff_stats_leave_out_only_complete_markers_of_a_conflicted_file() -> None:
    lines = ["+<<<<<<< yours\n", "+x\n", "+||||||| before\n", "+=======\n", "+>>>>>>> now\n"]
    lines += ["-y\n", " z\n", "+======== banner\n"]
    assert diff_stats(lines, conflicted=True) == (2, 1)
    assert diff_stats(lines) == (6, 1)  # a file without a conflict: every line is its own


def test_diff_stats_do_not_count_gits_no_newline_line() -> None:
    lines = ["-last\n", NO_NEWLINE, "+last\n"]
    assert diff_stats(lines) == (1, 1)
    assert diff_stats(lines, conflicted=True) == (1, 1)
