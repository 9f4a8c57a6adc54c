"""Drift: the workspace compared with the state's fingerprint, before anything executes.

- the workspace is missing, or holds none of the files the state describes → the state
  cannot be built upon: :class:`WorkspaceMismatch` (exit 2), naming the state, where the
  application is expected (folder, commit, pull request) and how to fix it;
- generated files are missing → drift: the nodes that wrote them are re-run (idempotently)
  by the next plan, which lists them as repairs;
- generated files whose content changed → user edits: reported, never overwritten silently
  (the adapters keep existing content; a repair re-runs only nodes with missing files).

A state with a pristine tree (regeneration, formatVersion 4) is compared with the *generated*
content, not with the workspace after the last apply: a user edit stays reported after any
apply (the merge carries it), and a generated file the user deleted is reported as deleted
(it stays deleted: the next merge restores it only if the generator changes it — a conflict).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from averos_ci._fs import contained
from averos_ci.errors import InputError
from averos_ci.state.fingerprint import file_hash
from averos_ci.state.model import AppliedState, WorkspaceRecord


class WorkspaceMismatch(InputError):
    """The workspace is not the application the state describes (exit 2)."""


@dataclass(frozen=True)
class DriftReport:
    workspace_root: Path
    state_path: str
    checked: int = 0  # files in the fingerprint
    missing: dict[str, tuple[str, ...]] = field(default_factory=dict)  # path -> writer nodes
    modified: tuple[str, ...] = ()  # user edits
    deleted: tuple[str, ...] = ()  # generated files the user deleted (regenerating states)
    absent: str | None = None  # why the whole application is absent (fatal)
    location: WorkspaceRecord | None = None
    # "path:line" of each unresolved conflict-marker region in an edited file (filled by the
    # commands that report drift: execute.regen.markers reads the files)
    markers: tuple[str, ...] = ()

    @property
    def has_drift(self) -> bool:
        return bool(self.missing) or self.absent is not None

    def repair(self) -> dict[str, tuple[str, ...]]:
        """node id -> the missing files it wrote (the nodes a plan re-runs)."""
        out: dict[str, list[str]] = {}
        for path, nodes in sorted(self.missing.items()):
            for node in nodes:
                out.setdefault(node, []).append(path)
        return {node: tuple(paths) for node, paths in sorted(out.items())}

    def where(self) -> str:
        loc = self.location
        text = f"{self.workspace_root}"
        if loc is not None and loc.commit:
            text += f" as of commit {loc.commit[:12]}"
        if loc is not None and loc.pull_request is not None:
            pr = loc.pull_request
            text += (
                f"; the latest generated files wait in pull request #{pr.number} "
                f"(branch {pr.branch}, commit {pr.commit[:12]})"
            )
        return text

    def error(self) -> WorkspaceMismatch:
        pr = self.location.pull_request if self.location else None
        if pr is not None:
            hint = (
                f"merge pull request #{pr.number} (branch {pr.branch}) and run again on the "
                "merged commit"
            )
        else:
            hint = (
                "restore the generated application into the workspace (check out the commit "
                "that holds it), or start over from an empty state: `averos-ci state reset` "
                "then run again (the whole application is generated anew)"
            )
        return WorkspaceMismatch(
            f"the workspace is not the application the state describes: {self.absent}; "
            f"expected the application generated at {self.where()}",
            path=self.state_path,
            hint=hint,
        )

    def to_json(self) -> dict[str, object]:
        loc = self.location
        return {
            "formatVersion": 1,
            "workspaceRoot": str(self.workspace_root),
            "state": self.state_path,
            "drift": self.has_drift,
            "absent": self.absent,
            "checkedFiles": self.checked,
            "missing": {p: list(n) for p, n in sorted(self.missing.items())},
            "repair": {n: list(p) for n, p in self.repair().items()},
            "userEdits": list(self.modified),
            "userDeleted": list(self.deleted),
            "conflictMarkers": list(self.markers),
            "commit": loc.commit if loc else None,
            "pullRequest": loc.pull_request.to_wire() if loc and loc.pull_request else None,
        }


def detect_drift(
    state: AppliedState | None, workspace_root: Path, *, state_path: str | Path
) -> DriftReport | None:
    """Compare ``workspace_root`` with ``state``'s fingerprint; ``None`` without one."""
    if state is None or (state.workspace is None and state.pristine is None):
        return None
    if state.pristine is not None:
        return _against_pristine(state, workspace_root, str(state_path))
    record = state.workspace
    assert record is not None
    expected = record.files()
    writers: dict[str, list[str]] = {}
    for node, nf in sorted(record.nodes.items()):
        for path in nf.files:
            writers.setdefault(path, []).append(node)
    base = DriftReport(
        workspace_root=workspace_root,
        state_path=str(state_path),
        checked=len(expected),
        location=record,
    )
    if not expected:
        return base
    if not workspace_root.is_dir():
        return _with(base, absent=f"{workspace_root} does not exist")
    missing: dict[str, tuple[str, ...]] = {}
    modified: list[str] = []
    for path, digest in sorted(expected.items()):
        actual = file_hash(contained(workspace_root, path))
        if actual is None:
            missing[path] = tuple(writers[path])
        elif actual != digest:
            modified.append(path)
    if len(missing) == len(expected):
        return _with(base, absent=f"none of its {len(expected)} generated files is there")
    pr = record.pull_request
    if pr is not None and (missing or modified) and not _merged(pr.commit, workspace_root):
        return _with(
            base,
            absent=f"the files of the last apply are not here ({len(missing)} missing, "
            f"{len(modified)} different): they wait in pull request #{pr.number}, which this "
            "checkout does not contain",
            missing=missing,
            modified=tuple(modified),
        )
    return _with(base, missing=missing, modified=tuple(modified))


def _against_pristine(state: AppliedState, workspace_root: Path, state_path: str) -> DriftReport:
    assert state.pristine is not None
    expected = state.pristine.files
    base = DriftReport(
        workspace_root=workspace_root,
        state_path=state_path,
        checked=len(expected),
        location=state.workspace,
    )
    if not expected:
        return base
    if not workspace_root.is_dir():
        return _with(base, absent=f"{workspace_root} does not exist")
    deleted: list[str] = []
    modified: list[str] = []
    for path, digest in sorted(expected.items()):
        actual = file_hash(contained(workspace_root, path))
        if actual is None:
            deleted.append(path)
        elif actual != digest:
            modified.append(path)
    if len(deleted) == len(expected):
        return _with(base, absent=f"none of its {len(expected)} generated files is there")
    return _with(base, modified=tuple(modified), deleted=tuple(deleted))


def _merged(commit: str, workspace_root: Path) -> bool:
    """Whether ``commit`` is an ancestor of the checkout's HEAD (unknown counts as no: a
    shallow checkout lacks it, and building on the wrong base is worse than a refusal)."""
    import subprocess

    try:
        proc = subprocess.run(
            ["git", "merge-base", "--is-ancestor", commit, "HEAD"],
            cwd=workspace_root,
            capture_output=True,
            check=False,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0


def _with(base: DriftReport, **changes: object) -> DriftReport:
    from dataclasses import replace

    return replace(base, **changes)  # type: ignore[arg-type]


def render_drift(report: DriftReport | None, output_format: str = "text") -> str:
    if output_format == "json":
        data = (
            report.to_json() if report else {"formatVersion": 1, "drift": False, "checkedFiles": 0}
        )
        return json.dumps(data, indent=2, sort_keys=True) + "\n"
    md = output_format == "markdown"
    if report is None:
        return "No workspace fingerprint in the state: drift is not checked.\n"
    lines: list[str] = []
    if report.absent is not None:
        err = report.error()
        lines.append(("⛔ **Drift:** " if md else "drift: ") + err.message)
        lines.append(("\n" if md else "hint: ") + (err.hint or ""))
        return "\n".join(lines) + "\n"
    # drift (generated files missing: the plan restores them) and user edits (kept as they
    # are) are two findings, each stated on its own line, "none" included
    if report.missing:
        lines.append(
            ("⚠️ **Drift:** " if md else "drift: ")
            + f"{len(report.missing)} generated file(s) missing; the plan re-runs the nodes "
            "that wrote them:"
        )
        for node, paths in report.repair().items():
            shown = ", ".join(_code(p, md) for p in paths[:5])
            more = f" (+{len(paths) - 5} more)" if len(paths) > 5 else ""
            lines.append(f"- {_code(node, md)} restores {shown}{more}")
        if md:
            lines.append("")  # a paragraph after a list needs a blank line
    else:
        lines.append(
            ("**Drift:** " if md else "drift: ")
            + f"none (no generated file missing; {report.checked} checked)"
        )
    if report.deleted:
        lines.append(
            ("**Deleted by you:** " if md else "user deleted: ")
            + f"{len(report.deleted)} generated file(s) (kept deleted; a generator change to "
            "one of them is a merge conflict):"
        )
        lines += _listed(report.deleted, md)
    if report.modified:
        lines.append(
            ("**User edits:** " if md else "user edits: ")
            + f"{len(report.modified)} generated file(s) edited since they were generated "
            "(your edits, not drift: kept as they are):"
        )
        lines += _listed(report.modified, md)
    elif not report.deleted:
        lines.append(("**User edits:** " if md else "user edits: ") + "none")
    if report.markers:
        lines.append(
            ("⛔ **Unresolved conflict markers:** " if md else "conflict markers: ")
            + f"{len(report.markers)} region(s) left by a merge; nothing is applied until "
            "they are resolved:"
        )
        lines += _listed(report.markers, md)
    return "\n".join(lines) + "\n"


def _listed(items: tuple[str, ...], md: bool, limit: int = 20) -> list[str]:
    out = [f"- {_code(p, md)}" for p in items[:limit]]
    if len(items) > limit:
        out.append(f"- … and {len(items) - limit} more")
    return out + ([""] if md else [])  # a paragraph after a list needs a blank line


def _code(text: str, md: bool) -> str:
    return f"`{text.replace('`', '')}`" if md else text
