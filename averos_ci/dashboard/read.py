"""The state branch read into a :class:`~averos_ci.dashboard.model.Dashboard`: nothing but
git objects of one commit (and the branch's history), so a clone that fetched the branch is
enough — no token, no API. One project's folder is read by ``averos-ci state show``'s own
readers (:mod:`averos_ci.stateops.show`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path, PurePosixPath

import git

from averos_ci.dashboard.drift import DRIFT_RECORDS, parse_drift
from averos_ci.dashboard.model import (
    Claim,
    ClaimStatus,
    Commit,
    Dashboard,
    ProjectView,
    parse_time,
    run_from_record,
)
from averos_ci.dashboard.snapshot import indexed
from averos_ci.errors import AverosCIError, InputError
from averos_ci.statebranch.claim import CLAIM, PARTIAL, RUNS
from averos_ci.statebranch.drift_record import RECORDS, record_project
from averos_ci.statebranch.state_branch import StateBranch
from averos_ci.stateops.show import ClaimView, read_view

HISTORY = 200  # commits per project page; older ones stay in `git log`
MAX_COMMITS = 20_000  # of the branch walked for the history pages and the claims' progress
_MARKERS = ("state.json", CLAIM)


def read_dashboard(
    repo_dir: Path,
    *,
    branch: str = "averos-state",
    ref: str | None = None,
    remote: str = "origin",
    stuck_after: timedelta,
    now: datetime | None = None,
) -> Dashboard:
    """Every project of the state branch at ``ref`` (default: the branch itself, local or
    fetched from ``remote``)."""
    sb = _open(repo_dir, branch)
    repo = sb.repo
    tip = resolve_tip(repo, branch=branch, ref=ref, remote=remote)
    now = now or datetime.now(UTC)
    sb, snapshot = indexed(sb, tip)
    names = list_projects(snapshot.paths())
    history = histories(repo, tip, names)
    projects = [
        _project(sb, tip, name, history[name], now=now, stuck_after=stuck_after) for name in names
    ]
    return Dashboard(branch, tip, now, stuck_after, tuple(projects))


def _open(repo_dir: Path, branch: str) -> StateBranch:
    if not repo_dir.exists():
        raise InputError(
            f"{repo_dir} does not exist", hint="pass --repo with a clone of the repository"
        )
    try:
        return StateBranch(repo_dir, branch=branch)
    except AverosCIError as exc:  # not a repository: the user's input, not a git failure
        raise InputError(exc.message, path=repo_dir, hint=exc.hint) from None


def resolve_tip(repo: git.Repo, *, branch: str, ref: str | None, remote: str) -> str:
    candidates = (
        [ref]
        if ref
        else [
            f"refs/heads/{branch}",
            f"refs/remotes/{remote}/{branch}",
            f"refs/averos-ci/{branch}",  # where the flows fetch it
        ]
    )
    for name in candidates:
        try:
            return str(repo.git.rev_parse("--verify", "--quiet", f"{name}^{{commit}}")).strip()
        except git.GitCommandError:
            continue
    where = str(repo.working_tree_dir or repo.git_dir)
    raise InputError(
        f"no state branch in {where}: " + ", ".join(repr(c) for c in candidates) + " not found",
        path=where,
        hint=f"fetch it first: `git fetch {remote} {branch}:{branch}` (or pass --ref)",
    )


def list_projects(paths: list[str]) -> list[str]:
    """The projects with files on the branch: a folder with a state, a claim or run records,
    or a drift record (``.drift/<project>.json``). A partial workspace is a generated tree:
    nothing in it names a project."""
    found: set[str] = set()
    for line in paths:
        parts = PurePosixPath(line).parts
        if not line or PARTIAL in parts[:-1]:
            continue
        if parts[0] == RECORDS:
            if (project := record_project(line)) is not None:
                found.add(project)
            continue
        if len(parts) >= 2 and parts[-1] in _MARKERS:
            found.add("/".join(parts[:-1]))
        elif len(parts) >= 3 and parts[-2] == RUNS and parts[-1].endswith(".json"):
            found.add("/".join(parts[:-2]))
    return sorted(found)


def _project(
    sb: StateBranch,
    tip: str,
    name: str,
    commits: tuple[Commit, ...],
    *,
    now: datetime,
    stuck_after: timedelta,
) -> ProjectView:
    try:
        view = read_view(sb, tip, name)
        path = f"{DRIFT_RECORDS}/{name}.json"  # a name read from the branch's tree
        raw = sb.read(tip, path)
        drift = None if raw is None else parse_drift(raw, where=f"{sb.branch}:{path}")
    except AverosCIError as exc:  # one unreadable folder must not hide the others
        return ProjectView(name, commits=commits, error=str(exc))
    state = view.state
    last_commit = commits[0].at if commits else None
    return ProjectView(
        name=name,
        serial=state.serial if state else None,
        manifest_hash=state.manifest_hash if state else None,
        built_at=state.built_at if state else None,
        runs=tuple(run_from_record(r.run_id, r.data) for r in view.records),
        claim=_claim(view.pending, last_commit, now=now, stuck_after=stuck_after),
        drift=drift,
        commits=commits,
    )


def _claim(
    pending: ClaimView | None,
    last_commit: datetime | None,
    *,
    now: datetime,
    stuck_after: timedelta,
) -> Claim | None:
    if pending is None or not pending.present:
        return None
    c = pending.claim or {}
    runs = [r for r in c.get("runs") or [] if isinstance(r, dict)]
    # progress: the claim's newest run, or a later push of checkpoints to this folder
    times = [t for t in (parse_time(r.get("at")) for r in runs) if t is not None]
    if last_commit is not None:
        times.append(last_commit)
    last = max(times) if times else None
    if pending.checkpoints.get("FAILED"):
        status = ClaimStatus.FAILED
    elif last is None or now - last > stuck_after:
        status = ClaimStatus.STUCK
    else:
        status = ClaimStatus.RUNNING
    latest = runs[-1] if runs else {}
    return Claim(
        status=status,
        plan_hash=str(c["planHash"]) if c.get("planHash") else None,
        sha=str(c["sha"]) if c.get("sha") else None,
        pr=c["pr"] if isinstance(c.get("pr"), int) else None,
        run_url=str(latest["runUrl"]) if latest.get("runUrl") else None,
        last_progress=last,
        checkpoints=dict(pending.checkpoints),
        partial_files=pending.partial_files,
    )


def histories(repo: git.Repo, tip: str, projects: list[str]) -> dict[str, tuple[Commit, ...]]:
    """Each project's commits (newest first, at most :data:`HISTORY`), from one walk of the
    branch: a commit belongs to the projects whose folder it changed. One ``git log`` for
    the whole branch, not one per project (5,000 projects)."""
    known = set(projects)
    found: dict[str, list[Commit]] = {name: [] for name in projects}
    out = str(
        repo.git.log(
            f"--max-count={MAX_COMMITS}",
            "-z",
            "--name-only",
            "--format=%x1e%H%x1f%cI%x1f%s",
            tip,
        )
    )
    for chunk in out.split("\x1e"):
        header, _, names = chunk.partition("\0")
        fields = header.split("\x1f")
        at = parse_time(fields[1]) if len(fields) == 3 else None
        if at is None:
            continue
        commit = Commit(fields[0], at, fields[2])
        touched = {_owner(n, known) for n in names.lstrip("\n").split("\0") if n}
        for name in touched - {None}:
            assert name is not None
            if len(found[name]) < HISTORY:
                found[name].append(commit)
    return {name: tuple(commits) for name, commits in found.items()}


def _owner(path: str, known: set[str]) -> str | None:
    """The project whose folder holds ``path`` (the longest folder of it that is a project),
    or whose drift record it is."""
    if (project := record_project(path)) is not None:
        return project if project in known else None
    parts = path.split("/")
    for i in range(len(parts) - 1, 0, -1):
        prefix = "/".join(parts[:i])
        if prefix in known:
            return prefix
    return None
