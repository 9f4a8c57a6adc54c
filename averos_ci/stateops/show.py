"""One project's directory of the state branch as ``averos-ci state show`` reports it: the
applied state, the run records (``<project>/runs/``) and the claim of an unfinished apply
(``apply.json``, ``checkpoints.json``, ``partial-workspace/``). The text report shows every
control character escaped (``\\u001b``), one line per item, as the plan renderers do."""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import git

from averos_ci.plan.items import plain
from averos_ci.state.model import AppliedState
from averos_ci.state.store import parse_state
from averos_ci.statebranch.claim import CHECKPOINTS, CLAIM, FORMAT_VERSION, PARTIAL, RUNS
from averos_ci.statebranch.state_branch import GitError, StateBranch

SHOW_FORMAT_VERSION = 1


@dataclass(frozen=True)
class RunRecord:
    """``<project>/runs/<id>.json``: an apply (no ``action``) or an operation of ``state``."""

    run_id: str  # the file name without ``.json``; time-prefixed, so ids sort by time
    data: dict[str, Any]

    @property
    def action(self) -> str:
        return str(self.data.get("action") or "apply")

    @property
    def sha(self) -> str | None:
        value = self.data.get("sha")
        return str(value) if value else None


@dataclass(frozen=True)
class ClaimView:
    claim: dict[str, Any] | None
    checkpoints: dict[str, int]  # status -> nodes; empty without checkpoints.json
    checkpoints_present: bool
    checkpoints_plan: str | None
    partial_files: int
    partial_bytes: int

    @property
    def present(self) -> bool:
        return self.claim is not None or self.checkpoints_present or self.partial_files > 0

    def to_json(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "checkpoints": dict(sorted(self.checkpoints.items()))
            if self.checkpoints_present
            else None,
            "checkpointsPlanHash": self.checkpoints_plan,
            "partialWorkspace": {"files": self.partial_files, "bytes": self.partial_bytes},
        }


@dataclass(frozen=True)
class StateView:
    branch: str
    project: str
    tip: str | None
    state: AppliedState | None
    records: tuple[RunRecord, ...] = ()
    pending: ClaimView | None = None
    paths: dict[str, str] = field(default_factory=dict)

    @property
    def last_apply(self) -> RunRecord | None:
        """The run that produced the state: the latest apply, or the rollback since then."""
        found = [r for r in self.records if r.action in ("apply", "rollback") and r.sha]
        return found[-1] if found else None

    def to_json(self) -> dict[str, Any]:
        s, last = self.state, self.last_apply
        return {
            "formatVersion": SHOW_FORMAT_VERSION,
            "stateBranch": self.branch,
            "project": self.project,
            "tip": self.tip,
            "state": None
            if s is None
            else {
                "serial": s.serial,
                "lineage": s.lineage,
                "manifestHash": s.manifest_hash,
                "builtAt": s.built_at,
                "nodes": len(s.node_states),
                "adapter": s.adapter.to_wire() if s.adapter else None,
                "workspaceCommit": s.workspace.commit if s.workspace else None,
                "workspaceFiles": len(s.workspace.files()) if s.workspace else 0,
            },
            "lastApply": None if last is None else {"run": last.run_id, **last.data},
            "runs": [{"run": r.run_id, "action": r.action, "sha": r.sha} for r in self.records],
            "pending": self.pending.to_json() if self.pending and self.pending.present else None,
        }

    def render_text(self) -> str:
        lines = [f"project {self.project!r} on {self.branch!r} (tip {_short(self.tip)})"]
        s, last = self.state, self.last_apply
        if s is None:
            lines.append("state: nothing applied yet")
        else:
            adapter = s.adapter.name if s.adapter else "unknown (written before formatVersion 3)"
            version = f" {s.adapter.version}" if s.adapter and s.adapter.version else ""
            lines += [
                f"state: serial {s.serial}, {len(s.node_states)} node(s), manifest "
                f"{s.manifest_hash[:12]}, built {s.built_at}",
                f"  adapter: {adapter}{version}",
            ]
            if s.workspace is not None:
                lines.append(
                    f"  workspace: {len(s.workspace.files())} generated file(s)"
                    + (f" at commit {s.workspace.commit[:12]}" if s.workspace.commit else "")
                )
        if last is not None:
            d = last.data
            how = (
                f"plan {str(d.get('planHash', ''))[:12]}"
                if last.action == "apply"
                else f"rolled back by {d.get('actor')}: {d.get('reason')}"
            )
            lines.append(
                f"applied commit: {_short(last.sha)} ({how}; run {last.run_id}"
                + (f", pull request #{d['pr']}" if d.get("pr") else "")
                + (f", {d['runUrl']}" if d.get("runUrl") else "")
                + ")"
            )
        ops = [r for r in self.records if r.action != "apply"][-3:]
        for r in ops:
            lines.append(
                f"{r.action}: run {r.run_id} by {r.data.get('actor')}: {r.data.get('reason')}"
            )
        lines += _pending_lines(self.pending, self.project)
        # the branch is anyone's who can push to it: no string of it may drive the terminal
        return "\n".join(plain(line) for line in lines) + "\n"


def _pending_lines(pending: ClaimView | None, project: str) -> list[str]:
    if pending is None or not pending.present:
        return ["claim: none (no apply is running or interrupted)"]
    c = pending.claim or {}
    runs = c.get("runs") or []
    lines = [
        f"claim: plan {str(c.get('planHash'))[:12]}, commit {_short(c.get('sha'))}"
        + (f", pull request #{c['pr']}" if c.get("pr") else "")
        + f", {len(runs)} run(s)"
        if pending.claim is not None
        else "claim: none, but the leftovers of an apply remain"
    ]
    lines += [f"  run at {r.get('at')}: {r.get('runUrl') or 'no run URL'}" for r in runs[-5:]]
    if pending.checkpoints_present:
        done = ", ".join(f"{n} {s}" for s, n in sorted(pending.checkpoints.items())) or "none"
        lines.append(f"  checkpoints: {done}")
    if pending.partial_files:
        lines.append(
            f"  partial workspace: {pending.partial_files} file(s), {pending.partial_bytes} bytes"
        )
    lines.append(
        "  hint: re-run the apply job to resume it, or `averos-ci state abandon --reason "
        f"'...' --project {project}` to drop it"
    )
    return lines


def _short(sha: object) -> str:
    return str(sha)[:12] if sha else "none"


def read_view(sb: StateBranch, tip: str | None, project: str) -> StateView:
    raw = sb.read(tip, f"{project}/state.json")
    state = None
    if raw is not None:
        state = parse_state(raw, path=Path(f"{sb.branch}:{project}/state.json"))
    return StateView(
        branch=sb.branch,
        project=project,
        tip=tip,
        state=state,
        records=run_records(sb, tip, project),
        pending=read_pending(sb, tip, project),
    )


def run_records(sb: StateBranch, tip: str | None, project: str) -> tuple[RunRecord, ...]:
    out = []
    for path, _size in blobs(sb, tip, f"{project}/{RUNS}"):
        name = path.rsplit("/", 1)[-1]
        if not name.endswith(".json"):
            continue
        data = parse_record(sb.read(tip, path) or b"", where=f"{sb.branch}:{path}")
        out.append(RunRecord(name.removesuffix(".json"), data))
    return tuple(sorted(out, key=lambda r: r.run_id))


def read_pending(sb: StateBranch, tip: str | None, project: str) -> ClaimView:
    raw_claim = sb.read(tip, f"{project}/{CLAIM}")
    claim = None if raw_claim is None else parse_record(raw_claim, where=f"{project}/{CLAIM}")
    counts: Counter[str] = Counter()
    plan = None
    raw = sb.read(tip, f"{project}/{CHECKPOINTS}")
    if raw is not None:
        from averos_ci.errors import StateError
        from averos_ci.execute.checkpoints import FileCheckpointStore

        with tempfile.TemporaryDirectory(prefix="averos-ci-show-") as tmp:
            path = Path(tmp) / CHECKPOINTS
            path.write_bytes(raw)
            try:
                log = FileCheckpointStore(path).read()
            except StateError:
                counts["unreadable"] = 1
            else:
                plan = log.plan_hash
                counts.update(str(c.status) for c in log.checkpoints.values())
    partial = blobs(sb, tip, f"{project}/{PARTIAL}")
    return ClaimView(
        claim=claim,
        checkpoints=dict(counts),
        checkpoints_present=raw is not None,
        checkpoints_plan=plan,
        partial_files=len(partial),
        partial_bytes=sum(size for _, size in partial),
    )


def parse_record(raw: bytes, *, where: str) -> dict[str, Any]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError:
        raise GitError(
            f"{where} is corrupt",
            hint="restore the file from the state branch's history (git log -- PATH on it) "
            "with a commit, then run again",
        ) from None
    if not isinstance(data, dict):
        raise GitError(f"{where} is not a JSON object", hint="restore it from its history")
    version = data.get("formatVersion", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise GitError(
            f"{where} has formatVersion {version!r}; this averos-ci reads {FORMAT_VERSION}",
            hint="upgrade averos-ci",
        )
    return data


def blobs(sb: StateBranch, tip: str | None, subdir: str) -> list[tuple[str, int]]:
    """(path, size) of the files under ``subdir`` at ``tip``."""
    if tip is None:
        return []
    try:
        sub = sb.repo.commit(tip).tree / subdir
    except KeyError:
        return []
    if not isinstance(sub, git.Tree):
        return []
    return [(str(b.path), int(b.size)) for b in sub.traverse() if isinstance(b, git.Blob)]
