"""One required status for many projects: ``averos-ci/plan`` (``statusContext``) aggregates the
per-project statuses ``averos-ci/plan/<project>`` of a commit.

The aggregate is **success** only when every project the change touches has a success status
(plan approved, or no changes), **failure** as soon as one failed, **pending** otherwise — a
touched project without a status yet counts as pending. "Touched" is the local git diff
``averos_ci.projects`` uses (merge base → head), together with every project that has a status
on the commit. Matrix jobs finish in any order, so every job that sets a project status
recomputes the aggregate from the statuses GitHub holds for the commit, and a final ``gate``
step after the matrix settles it (``averos-ci github gate``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from averos_ci.errors import AverosCIError, InputError
from averos_ci.forge.actions_env import annotate
from averos_ci.forge.context import FlowContext

FAILED = frozenset({"failure", "error"})
_MAX_STATUS_PAGES = 10  # 1,000 contexts: far more than a repository has projects
# Above this many projects a pull request is *large*: GitHub's secondary rate limit (about 80
# content-creating requests a minute, 500 an hour) would be spent by the matrix's writes, so
# each job re-posts the aggregate only when its state changes and the ``gate`` step after the
# matrix writes its final words (and the summary comment, averos_ci.review.summary).
MANY_PROJECTS = 10


@dataclass(frozen=True)
class AggregateStatus:
    state: str  # success | pending | failure
    description: str
    # what it was decided from: project -> (state, description), and the touched projects
    statuses: Mapping[str, tuple[str, str]] = field(default_factory=dict, compare=False)
    expected: tuple[str, ...] = field(default=(), compare=False)


def project_context(status_context: str, project: str) -> str:
    return f"{status_context}/{project}"


def decide(
    statuses: Mapping[str, tuple[str, str]], expected: Iterable[str], *, error: str | None = None
) -> AggregateStatus:
    """The aggregate of the per-project ``statuses`` (project -> (state, description)) over
    the ``expected`` (touched) projects; ``error``: the touched set could not be determined,
    which fails closed."""
    if error is not None:
        return AggregateStatus("failure", error)
    projects = sorted(set(expected) | set(statuses))
    if not projects:
        return AggregateStatus("success", "no Averos project changed")
    if len(projects) == 1:  # a single project: its own words (a single-project repository)
        (name,) = projects
        state, text = statuses.get(name, ("pending", "waiting for the plan"))
        prefix = "" if name == "default" else f"{name}: "
        return AggregateStatus("failure" if state in FAILED else state, prefix + text)
    failed = [p for p in projects if statuses.get(p, ("pending", ""))[0] in FAILED]
    if failed:
        return AggregateStatus("failure", "plan failed or refused: " + ", ".join(failed))
    waiting = [p for p in projects if statuses.get(p, ("pending", ""))[0] != "success"]
    if waiting:
        return AggregateStatus("pending", "waiting for approval or a plan: " + ", ".join(waiting))
    return AggregateStatus("success", f"{len(projects)} projects: every plan approved or unchanged")


def project_statuses(ctx: FlowContext, sha: str) -> dict[str, tuple[str, str]]:
    """project -> (state, description) of the latest ``<statusContext>/<project>`` statuses
    on ``sha`` (GET /commits/{ref}/status: the latest status per context)."""
    return _statuses(ctx, sha)[0]


def _statuses(
    ctx: FlowContext, sha: str
) -> tuple[dict[str, tuple[str, str]], tuple[str, str] | None]:
    """The project statuses, and the aggregate's own (``None``: not set yet)."""
    prefix = ctx.settings.status_context + "/"
    found: dict[str, tuple[str, str]] = {}
    aggregate: tuple[str, str] | None = None
    seen = 0
    for page in range(1, _MAX_STATUS_PAGES + 1):
        data: Any = ctx.client.combined_status_page(sha, page)
        items = data.get("statuses") if isinstance(data, dict) else None
        if not isinstance(items, list) or not items:
            break
        for s in items:
            context = str(s.get("context") or "") if isinstance(s, dict) else ""
            if context == ctx.settings.status_context:
                aggregate = (str(s.get("state")), str(s.get("description") or ""))
            if context.startswith(prefix) and len(context) > len(prefix):
                found[context[len(prefix) :]] = (
                    str(s.get("state")),
                    str(s.get("description") or ""),
                )
        seen += len(items)
        if seen >= int(data.get("total_count") or 0):
            break
    return found, aggregate


def is_large(ctx: FlowContext, *, base: str | None, head: str, pr_number: int | None) -> bool:
    """Whether the change touches more than :data:`MANY_PROJECTS` projects (``False`` when
    that cannot be told: the aggregate then fails closed on its own)."""
    try:
        touched = touched_projects(ctx, base=base, head=head, pr_number=pr_number)
    except AverosCIError:
        return False
    return touched is not None and len(touched) > MANY_PROJECTS


def touched_projects(
    ctx: FlowContext, *, base: str | None, head: str, pr_number: int | None = None
) -> list[str] | None:
    """Names of the projects the change ``base``…``head`` touches (local git diff). ``None``
    with one project in the repository (or no base): no diff needed, the statuses say it."""
    from averos_ci.projects import changed_projects, discover_projects

    projects = discover_projects(ctx.repo_root)
    if len(projects) <= 1 or not base or not base.strip("0"):
        return None
    for sha in (base, head):  # from event payloads: never an option to git
        if not re.fullmatch(r"[0-9a-f]{40}", sha):
            raise InputError(f"{sha[:64]!r} is not a commit sha")
    _ensure_commits(ctx, (base, head), pr_number=pr_number)
    return [p.name for p in changed_projects(projects, root=ctx.repo_root, base=base, head=head)]


def _ensure_commits(ctx: FlowContext, shas: Iterable[str], *, pr_number: int | None) -> None:
    """A checkout of the default branch (approvals) or a shallow one lacks the commits or
    their merge base: fetch them with history (authenticated like the state branch)."""
    import git

    repo = ctx.state_branch().repo  # carries the token's auth environment
    missing = []
    for sha in shas:
        if not re.fullmatch(r"[0-9a-f]{40}", sha):
            continue
        try:
            repo.git.cat_file("-e", f"{sha}^{{commit}}")
        except git.GitCommandError:
            missing.append(sha)
    shallow = str(repo.git.rev_parse("--is-shallow-repository")).strip() == "true"
    if not missing and not shallow:
        return
    refspecs = list(missing)
    if pr_number is not None:
        refspecs.append(f"+refs/pull/{pr_number}/head:refs/averos-ci/pull/{pr_number}")
    args = ["--no-tags", "--quiet", *(["--unshallow"] if shallow else []), ctx.settings.remote]
    try:
        repo.git.fetch(*args, *refspecs)
    except git.GitCommandError:
        if missing:  # the diff below fails with a located error and a hint
            annotate("warning", f"cannot fetch {', '.join(s[:12] for s in missing)}")


def refresh_aggregate(
    ctx: FlowContext,
    sha: str,
    *,
    base: str | None,
    pr_number: int | None = None,
    statuses_only: bool = False,
    settle: bool = False,
) -> AggregateStatus:
    """Recompute and set the aggregate status of ``sha``. ``statuses_only``: from the statuses
    alone (enough when one project was just set to pending or failure: the aggregate cannot be
    success whatever else changed). Over :data:`MANY_PROJECTS` projects the status is
    re-posted only when its state changes, unless ``settle`` (the ``gate`` step)."""
    error = None
    expected: list[str] | None = None
    if not statuses_only:
        try:
            expected = touched_projects(ctx, base=base, head=sha, pr_number=pr_number)
        except AverosCIError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            error = f"cannot tell which projects changed: {first}"
    statuses, current = _statuses(ctx, sha)
    gate = decide(statuses, expected or (), error=error)
    gate = AggregateStatus(gate.state, gate.description, statuses, tuple(expected or ()))
    many = len(set(expected or ()) | set(statuses)) > MANY_PROJECTS
    if many and not settle and current is not None and current[0] == gate.state:
        print(
            f"{ctx.settings.status_context}: still {gate.state} ({len(statuses)} project "
            "statuses): not re-posted, the gate step settles it"
        )
        return gate
    ctx.client.set_status(
        sha,
        state=gate.state,
        description=gate.description,
        context=ctx.settings.status_context,
        target_url=ctx.env.run_url,
    )
    print(f"{ctx.settings.status_context}: {gate.state} — {gate.description}")
    return gate


def set_project_status(
    ctx: FlowContext,
    sha: str,
    *,
    state: str,
    description: str,
    base: str | None,
    pr_number: int | None = None,
    record: str | None = None,
) -> AggregateStatus:
    """The project's own status, then the aggregate it contributes to. ``record``: the
    ``target_url`` carrying the plan's record (:mod:`averos_ci.review.records`)."""
    ctx.client.set_status(
        sha,
        state=state,
        description=description,
        context=project_context(ctx.settings.status_context, ctx.project),
        target_url=record or ctx.env.run_url,
    )
    return refresh_aggregate(ctx, sha, base=base, pr_number=pr_number)
