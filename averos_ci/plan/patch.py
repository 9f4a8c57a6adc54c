"""The code patch: what a plan changes in the workspace's files, file by file.

Computed by regeneration (averos_ci.execute.regen): the difference between a clean generation
of the applied manifest and one of the new manifest, merged three-way into the workspace. Its
hash is part of the planHash (:func:`with_patch`), so what is applied is exactly what was
reviewed: if the workspace or the state moves, the patch — and the plan — change.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from averos_ci._model import fast_construct
from averos_ci.plan.canonical import canonical_json
from averos_ci.plan.model import Bucket, Change, ExecutionPlan, PlanDiff

PATCH_FORMAT_VERSION = 1


class FileStatus(StrEnum):
    CREATED = "created"
    CHANGED = "changed"
    DELETED = "deleted"
    RENAMED = "renamed"  # generated under a new path (old_path), the user's edits (if any) with it
    KEPT = "kept"  # no longer generated, but edited by the user: kept (a conflict)


@dataclass(frozen=True)
class FileChange:
    path: str
    status: FileStatus
    added: int = 0  # lines, workspace now -> after the apply
    removed: int = 0
    old_path: str | None = None
    merged: bool = False  # the user's edits of this file are merged with the generator's change
    conflict: str | None = None  # why the merge needs a human
    hunks: str = ""  # the conflicting regions, with git's conflict markers
    diff: str = ""  # unified diff of the workspace file, now -> after
    before: str | None = None  # sha256 of the workspace file now (None: absent)
    after: str | None = None  # sha256 after the apply (None: deleted); with markers on conflict

    def to_wire(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "status": self.status.value,
            "added": self.added,
            "removed": self.removed,
            "oldPath": self.old_path,
            "merged": self.merged,
            "conflict": self.conflict,
            "hunks": self.hunks,
            "diff": self.diff,
            "before": self.before,
            "after": self.after,
        }


@dataclass(frozen=True)
class CodePatch:
    files: tuple[FileChange, ...] = ()
    # a state without a pristine tree (migration): files of the workspace that differ from a
    # clean generation of the applied manifest — treated as the user's edits, shown once
    edits_found: tuple[str, ...] = ()
    generator_failed: str | None = None  # a clean generation of the new manifest failed
    contents: dict[str, bytes | None] = field(default_factory=dict, compare=False, repr=False)

    @property
    def conflicts(self) -> tuple[FileChange, ...]:
        return tuple(f for f in self.files if f.conflict is not None)

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "formatVersion": PATCH_FORMAT_VERSION,
            "files": [f.to_wire() for f in self.files],
            "editsFound": list(self.edits_found),
        }
        if self.generator_failed is not None:
            wire["generatorFailed"] = self.generator_failed
        wire["hash"] = hashlib.sha256(canonical_json(wire).encode()).hexdigest()
        return wire

    @property
    def hash(self) -> str:
        return str(self.to_wire()["hash"])


MERGE_CONFLICT_KIND = "merge-conflict"
FILE_COUNTS = ("created", "changed", "renamed", "deleted", "kept", "conflicts", "added", "removed")


def file_counts(wire: dict[str, Any]) -> dict[str, int]:
    """A code patch's files by status (a moved file is ``renamed``, once), the files with a
    conflict, and the lines added and removed — from its wire form (``plan.code_patch``)."""
    files: list[dict[str, Any]] = wire.get("files") or []
    out = dict.fromkeys(FILE_COUNTS, 0)
    for f in files:
        status = str(f["status"])
        if status in FileStatus._value2member_map_:  # the statuses are closed
            out[status] += 1
        out["conflicts"] += f.get("conflict") is not None
        out["added"] += int(f["added"])
        out["removed"] += int(f["removed"])
    return out


# what git writes after a diff line that has no newline (a file's last line)
NO_NEWLINE = "\\ No newline at end of file\n"


def diff_lines(text: str) -> list[str]:
    """The lines of ``text``, each with its ``\\n`` (the last one's, if it has one): split at
    ``\\n`` only, as git and diff do — a ``\\r`` or a form feed is part of its line."""
    *lines, last = text.split("\n")
    return [line + "\n" for line in lines] + ([last] if last else [])


# git's diff3 conflict markers (``git merge-file --diff3``): seven characters, alone or followed
# by a space and a label
_MARKER = re.compile(r"(?:<{7}|\|{7}|>{7})(?: .*)?|={7}")


def diff_stats(lines: Iterable[str], *, conflicted: bool = False) -> tuple[int, int]:
    """(added, removed): the ``+`` and ``-`` lines of a unified diff's hunks (pass them
    without the ``---``/``+++`` header), git's ``--numstat``: git's ``\\ No newline at end of
    file`` is not a line. In a ``conflicted`` file the conflict markers are the merge's, not
    lines of the code change: they are not counted."""
    added = removed = 0
    for line in lines:
        if line.startswith("+"):
            if not (conflicted and _MARKER.fullmatch(line[1:].rstrip("\r\n"))):
                added += 1
        elif line.startswith("-"):
            removed += 1
    return added, removed


def with_patch(plan: ExecutionPlan, patch: CodePatch) -> ExecutionPlan:
    """``plan`` with ``patch`` in it (``codePatch``, its hash in the planHash). A merge conflict
    or a failed generation is a conflict of the plan: it cannot be applied as it stands."""
    from averos_ci.plan.planner import sha256_json

    extra = [
        fast_construct(
            Change,
            {
                "id": f"file:{f.path}",
                "kind": MERGE_CONFLICT_KIND,
                "bucket": Bucket.CONFLICTS,
                "fields": (),
                "reason": f.conflict,
                "renamed_from": None,
                "attributes": (),
            },
        )
        for f in patch.conflicts
    ]
    if patch.generator_failed is not None:
        extra.append(
            fast_construct(
                Change,
                {
                    "id": f"application:{plan.application_name}",
                    "kind": "generation",
                    "bucket": Bucket.CONFLICTS,
                    "fields": (),
                    "reason": patch.generator_failed,
                    "renamed_from": None,
                    "attributes": (),
                },
            )
        )
    diff = plan.diff
    if extra:
        diff = PlanDiff(
            to_add=diff.to_add,
            to_update=diff.to_update,
            conflicts=(*diff.conflicts, *extra),
            to_remove=diff.to_remove,
            unchanged=diff.unchanged,
        )
    counts = plan.counts.model_copy(update={"conflicts": len(diff.conflicts)})
    wire: dict[str, Any] = {k: v for k, v in plan.to_wire().items() if k != "planHash"}
    wire["codePatch"] = patch.to_wire()
    wire["applicable"] = applicable = not diff.conflicts
    wire["counts"] = counts.to_wire()
    if extra:
        wire["diff"] = {**wire["diff"], "conflicts": diff.to_wire()["conflicts"]}
    wire["planHash"] = sha256_json(wire)
    fields = {
        # the fields the plan holds (a bare manifest's plan has no execution part)
        **{k: v for k, v in vars(plan).items() if k in type(plan).model_fields},
        "diff": diff,
        "counts": counts,
        "applicable": applicable,
        "code_patch": wire["codePatch"],
        "plan_hash": wire["planHash"],
    }
    out = fast_construct(ExecutionPlan, fields)
    # a new wire: the planner's encodings (keyed by the id of the old wire's lists) stay behind
    object.__setattr__(out, "__pydantic_private__", {"_wire": wire, "_item_json": None})
    return out
