"""The three-way merge of a generator change into the workspace, file by file, with git's own
merge machinery (``git merge-file --diff3``): base = the pristine file of the applied manifest,
ours = the workspace file, theirs = the pristine file of the new manifest.

- the generator did not change a file: the workspace keeps it as it is (edited or deleted);
- it changed one the user never touched: the new content is written; one the user edited: the
  edit is merged, or the collision is a conflict (with its hunks);
- it no longer produces a file: deleted if untouched, kept and reported as a conflict if
  edited (or, when the user's edits can follow a renamed file, merged into the new one);
- it moved a file (a new file alike enough to the one it no longer produces, as git's rename
  detection pairs them): a rename, edited or not, whose diff is its content change only;
- it changed a file the user deleted: a conflict; a new file where the user has another one:
  a merge with an empty base.
"""

from __future__ import annotations

import difflib
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from averos_ci._fs import contained
from averos_ci.errors import InputError
from averos_ci.execute.regen.eol import normalise, restore, style
from averos_ci.execute.regen.markers import LABELS, UNRESOLVED, marker_lines, marker_regions
from averos_ci.execute.regen.tree import Tree, sha256
from averos_ci.plan.patch import (
    NO_NEWLINE,
    CodePatch,
    FileChange,
    FileStatus,
    diff_lines,
    diff_stats,
)

RENAME_SIMILARITY = 0.5


class MergeToolMissing(InputError):
    """``git`` is needed for the three-way merge (exit 2)."""


def merge_file(base: bytes | None, ours: bytes, theirs: bytes) -> tuple[bytes, bool]:
    """(merged content, conflicted): conflicts are marked with git's diff3 markers.

    Line endings never make a conflict: the three sides are merged with CRLF read as LF, and
    the result is written back in the style of ``ours`` (:mod:`.eol`). A copy of ``ours``
    with mixed endings (the generator's own, kept) is merged byte for byte when that merges:
    each line then has the ending of the side whose change it is."""
    if ours == theirs:
        return ours, False
    if b"\0" in ours + theirs + (base or b""):  # binary: no line merge
        return ours, True
    if style(ours) is None:  # mixed, as the generator writes some files: byte for byte first
        merged, conflicted = _git_merge_file(ours, base or b"", theirs)
        if not conflicted:
            return merged, False
    plain = [normalise(side) for side in (ours, base or b"", theirs)]
    merged, conflicted = _git_merge_file(*plain)
    return restore(merged, ours=ours, theirs=theirs), conflicted


def _git_merge_file(ours: bytes, base: bytes, theirs: bytes) -> tuple[bytes, bool]:
    with tempfile.TemporaryDirectory(prefix="averos-ci-merge-") as tmp:
        paths = [Path(tmp) / name for name in ("ours", "base", "theirs")]
        for path, data in zip(paths, (ours, base, theirs), strict=True):
            path.write_bytes(data)
        cmd = ["git", "merge-file", "-p", "--diff3"]
        for label in LABELS:
            cmd += ["-L", label]
        try:
            proc = subprocess.run([*cmd, *map(str, paths)], capture_output=True, check=False)
        except OSError as exc:
            raise MergeToolMissing(
                f"cannot run git for the three-way merge: {exc.strerror}",
                hint="install git (the merge uses `git merge-file`)",
            ) from None
    if proc.returncode < 0 or proc.returncode >= 128:
        stderr = proc.stderr.decode(errors="replace")
        raise MergeToolMissing(f"git merge-file failed (exit {proc.returncode}): {stderr}")
    return proc.stdout, proc.returncode > 0


def conflict_hunks(text: bytes) -> str:
    """The conflicting regions of a merged file (markers included, line endings as LF). A
    region whose sides differ only in whitespace or line endings is preceded by a note."""
    out: list[str] = []
    region: list[str] = []
    for line in text.decode("utf-8", errors="replace").splitlines():
        if line.startswith("<<<<<<< "):
            region = []
        if line.startswith("<<<<<<< ") or region:
            region.append(line.rstrip("\r") + "\n")
        if line.startswith(">>>>>>> ") and region:
            note = _whitespace_note(region)
            out += ([note] if note else []) + region
            region = []
    return "".join(out)


def _whitespace_note(region: list[str]) -> str | None:
    """A note when two sides of a diff3 region are the same text but for whitespace."""
    sides: list[list[str]] = [[], [], []]
    side = 0
    for line in region[1:-1]:
        if line.startswith("||||||| "):
            side = 1
        elif line == "=======\n":
            side = 2
        else:
            sides[side].append(line)
    yours, before, now = ("".join("".join(s).split()) for s in sides)
    if yours == now:
        return "(note: yours and generated now differ only in whitespace or line endings)\n"
    if yours == before:
        return (
            "(note: yours and generated before differ only in whitespace or line endings: "
            "taking the generated now side loses no edit of yours)\n"
        )
    return None


def _read(path: Path) -> bytes | None:
    """The workspace file at ``path`` (from :func:`contained`: never outside the workspace)."""
    try:
        return None if path.is_symlink() or not path.is_file() else path.read_bytes()
    except OSError:
        return None


def _lines(data: bytes | None) -> list[str]:
    return [] if data is None else diff_lines(data.decode("utf-8", errors="replace"))


def _unified_diff(old: bytes | None, new: bytes | None, a: str, b: str) -> list[str]:
    """The unified diff of ``old`` -> ``new`` exactly as git writes it: a line without its
    newline (a file's last) is followed by git's ``\\ No newline at end of file``."""
    out: list[str] = []
    for line in difflib.unified_diff(_lines(old), _lines(new), f"a/{a}", f"b/{b}", n=2):
        out += [line] if line.endswith("\n") else [line + "\n", NO_NEWLINE]
    return out


def _change(
    path: str,
    status: FileStatus,
    now: bytes | None,
    after: bytes | None,
    *,
    renamed_from: bytes | None = None,
    **kw: object,
) -> FileChange:
    """A renamed file's diff and counts are against its old file (``renamed_from``, at
    ``old_path``), as git's rename detection shows it: a pure rename is ``+0 -0``. Conflict
    markers are not counted as added lines."""
    old_path = kw.get("old_path")
    source, a = (renamed_from, old_path) if status is FileStatus.RENAMED else (now, path)
    diff = _unified_diff(source, after, str(a), path)
    added, removed = diff_stats(diff[2:], conflicted=kw.get("conflict") is not None)
    return FileChange(
        path=path,
        status=status,
        added=added,
        removed=removed,
        diff="".join(diff),
        before=None if now is None else sha256(now),
        after=None if after is None else sha256(after),
        **kw,  # type: ignore[arg-type]
    )


def compute_patch(
    base: Tree,
    new: Tree,
    workspace_root: Path,
    *,
    edits_found: tuple[str, ...] = (),
    scrub: Callable[[str], str] | None = None,
) -> CodePatch:
    """What applying ``base`` -> ``new`` does to the workspace; ``contents`` holds each file's
    content after the apply (``None``: deleted; conflict markers for a conflict). ``scrub``
    masks sensitive values in the texts shown (diffs, hunks); the hashes and the contents
    written are the real ones."""
    patch = _compute(base, new, workspace_root, edits_found)
    if scrub is None:
        return patch
    files = tuple(replace(f, diff=scrub(f.diff), hunks=scrub(f.hunks)) for f in patch.files)
    return replace(patch, files=files)


def _same(a: bytes | None, b: bytes | None) -> bool:
    """Equal once line endings are normalised (neither side missing)."""
    return a is not None and b is not None and (a == b or normalise(a) == normalise(b))


def _compute(
    base: Tree, new: Tree, workspace_root: Path, edits_found: tuple[str, ...]
) -> CodePatch:
    workspace = {
        p: _read(contained(workspace_root, p)) for p in sorted(base.files.keys() | new.files.keys())
    }
    unresolved = _unresolved(base, new, workspace)
    changes: list[FileChange] = list(unresolved.values())
    contents: dict[str, bytes | None] = {}
    gone = [p for p in base.files if p not in new.files and p not in unresolved]
    born = {p for p in new.files if p not in base.files}
    renamed_to: dict[str, str] = {}
    # a file the generator moved: an edited one first (its edits follow it), then one the user
    # left alone (a rename, as git shows it, not a deletion and a creation)
    # a copy whose only change is its line endings (an editor's save) is not an edit
    edited = [
        p for p in gone if workspace[p] is not None and not _same(workspace[p], base.files[p])
    ]
    untouched = [p for p in gone if _same(workspace[p], base.files[p])]
    for old in edited + untouched:
        free = born if old in edited else {p for p in born if workspace[p] is None}
        target = _rename_target(
            old, base.files[old], new, free, workspace_root, edited=old in edited
        )
        if target is not None:
            born.discard(target)
            renamed_to[old] = target
    for path, ours in workspace.items():
        b, t = base.files.get(path), new.files.get(path)
        if path in renamed_to.values() or path in unresolved:
            continue
        if path in renamed_to:
            target = renamed_to[path]
            assert ours is not None
            yours = not _same(ours, b)  # the user's edits follow the file: merged into it
            merged, conflicted = (
                merge_file(b, ours, new.files[target]) if yours else (new.files[target], False)
            )
            contents[path], contents[target] = None, merged
            changes.append(
                _change(
                    target,
                    FileStatus.RENAMED,
                    _read(contained(workspace_root, target)),
                    merged,
                    old_path=path,
                    renamed_from=ours,
                    merged=yours,
                    conflict="your edits of the renamed file collide with the generator's change"
                    if conflicted
                    else None,
                    hunks=conflict_hunks(merged) if conflicted else "",
                )
            )
            continue
        if b == t or ours == t:
            continue  # the generator left it alone, or the workspace already has it
        if t is None:  # no longer generated
            if ours is None:
                continue
            if _same(ours, b):  # line endings aside, as generated: deleted with its element
                contents[path] = None
                changes.append(_change(path, FileStatus.DELETED, ours, None))
            else:
                changes.append(
                    FileChange(
                        path=path,
                        status=FileStatus.KEPT,
                        conflict="no longer generated, but edited by you: kept; delete it or "
                        "restore the element",
                        before=sha256(ours),
                        after=sha256(ours),
                    )
                )
            continue
        if ours is None:
            if b is None:  # a new file
                contents[path] = t
                changes.append(_change(path, FileStatus.CREATED, None, t))
            else:  # changed by the generator, deleted by the user
                contents[path] = t
                changes.append(
                    FileChange(
                        path=path,
                        status=FileStatus.CHANGED,
                        conflict="deleted by you, changed by the generator",
                        hunks="".join(_lines(t)[:40]),
                        after=sha256(t),
                    )
                )
            continue
        if ours == b:
            contents[path] = t
            changes.append(_change(path, FileStatus.CHANGED, ours, t))
            continue
        merged, conflicted = merge_file(b, ours, t)
        if merged == ours and not conflicted:
            continue  # the workspace already has the change (its line endings aside)
        contents[path] = merged
        changes.append(
            _change(
                path,
                FileStatus.CREATED if b is None else FileStatus.CHANGED,
                ours,
                merged,
                merged=True,
                conflict="your edits collide with the generator's change" if conflicted else None,
                hunks=conflict_hunks(merged) if conflicted else "",
            )
        )
    changes.sort(key=lambda c: c.path)
    return CodePatch(tuple(changes), edits_found, contents=contents)


def _unresolved(base: Tree, new: Tree, workspace: dict[str, bytes | None]) -> dict[str, FileChange]:
    """The generated files whose workspace copy holds conflict markers the generator did not
    write: a conflict each (nothing is merged into them), located by line."""
    out: dict[str, FileChange] = {}
    for path, ours in workspace.items():
        if ours is None or ours in (base.files.get(path), new.files.get(path)):
            continue
        lines = marker_lines(ours)
        if lines:
            where = ", ".join(f"{path}:{n}" for n in lines)
            out[path] = FileChange(
                path=path,
                status=FileStatus.CHANGED,
                conflict=f"{UNRESOLVED} at {where}: keep what you want of each region, "
                "delete its marker lines and run again",
                hunks=marker_regions(ours),
                before=sha256(ours),
                after=sha256(ours),
            )
    return out


def _rename_target(
    old_path: str, old: bytes, new: Tree, born: set[str], workspace_root: Path, *, edited: bool
) -> str | None:
    """The created file that ``old`` became (a renamed element's file): alike enough, and the
    workspace has no other file there. An ``edited`` file's edits follow it: the file most
    like it (of files alike to the same degree, the one whose path is most like
    ``old_path``). A file the user left alone only shows as a rename, the apply writes the
    same files either way: the first file alike enough, in the order of their paths' likeness
    (an entity's moved file is most like its old path), so that each costs one comparison,
    not one per created file."""
    best, key = None, (RENAME_SIMILARITY, 0.0)
    text = old.decode("utf-8", errors="replace")
    by_path = sorted((difflib.SequenceMatcher(None, old_path, p).ratio(), p) for p in born)
    for likeness, path in reversed(by_path):
        if _read(contained(workspace_root, path)) not in (None, new.files[path]):
            continue
        matcher = difflib.SequenceMatcher(None, text, new.files[path].decode("utf-8", "replace"))
        if matcher.real_quick_ratio() < key[0] or matcher.quick_ratio() < key[0]:
            continue
        ratio = matcher.ratio()
        if ratio >= key[0] and (ratio, likeness) > key:
            best, key = path, (ratio, likeness)
            if not edited:
                break
    return best
