"""Keeping the generated application after an apply (``commitWorkspace``), and recording in
the state where it now lives.

- ``default-branch`` (default): commit the generated files back to the default branch
  (``[skip ci]``, never forced). When the branch refuses the push (protection rules, a
  hook), push them to ``averos/apply-<planHash12>`` and open a pull request instead; the
  next apply builds on them only once it is merged (until then drift says so).
- ``same-branch``: the branch that was pushed (the default branch for a merge).
- ``branch``: another branch (``workspaceBranch``); the next apply does not find the app.
- ``none``: nothing is committed — you keep the workspace yourself; the drift guard refuses
  an incremental apply on a checkout that lacks the application.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from averos_ci._fs import atomic_write_text
from averos_ci.github.actions_env import annotate
from averos_ci.github.context import FlowContext
from averos_ci.github.landing import Backoff, tries
from averos_ci.github.markdown import code
from averos_ci.github.settings import CommitWorkspace
from averos_ci.github.state_branch import GitError
from averos_ci.plan import ExecutionPlan
from averos_ci.plan.model import canonical_json
from averos_ci.state.model import PullRequestLocation
from averos_ci.state.store import parse_state

PR_BRANCH_PREFIX = "averos/apply-"


@dataclass(frozen=True)
class Kept:
    note: str  # for the result comment
    commit: str | None = None  # the commit of the default branch holding the app
    pull_request: PullRequestLocation | None = None
    recorded: bool = True  # False: the location is unknown (none / another branch)


def keep_workspace(
    ctx: FlowContext, sha: str, changes: dict[str, Path | None], plan: ExecutionPlan
) -> Kept:
    mode = ctx.settings.commit_workspace
    default = (ctx.env.ref or "").removeprefix("refs/heads/")
    if mode is CommitWorkspace.NONE:
        return Kept(
            " The generated files were not committed (`commitWorkspace: none`): keep the "
            "workspace yourself; the next apply needs it in the checkout.",
            recorded=False,
        )
    if not changes:
        return Kept("", commit=sha if mode is not CommitWorkspace.BRANCH else None)
    if mode is CommitWorkspace.BRANCH:
        branch = ctx.settings.workspace_branch
        pushed = _push(ctx, branch, sha, changes, plan)
        note = f" Workspace changes committed to {code(branch)}." if pushed else ""
        return Kept(note, recorded=False)
    try:
        pushed = _push(ctx, default, sha, changes, plan)
    except GitError as exc:  # refused: a protected branch or a hook
        annotate("notice", f"{default} refused the generated files ({exc.message}): opening a PR")
        return _pull_request(ctx, default, sha, changes, plan)
    if pushed is None:
        annotate("warning", f"could not push the generated workspace to {default}")
        return Kept("", recorded=False)
    return Kept(
        f" Generated files committed to {code(default)} ({code(pushed[:12])}).", commit=pushed
    )


def _message(plan: ExecutionPlan, sha: str) -> str:
    return f"averos-ci: generated workspace for plan {plan.plan_hash[:12]} ({sha[:12]}) [skip ci]"


def _push(
    ctx: FlowContext, branch: str, sha: str, changes: dict[str, Path | None], plan: ExecutionPlan
) -> str | None:
    """Commit on the branch tip and push (no force); the commit, or None after the retries."""
    target = ctx.branch(branch)
    for _ in tries(Backoff.from_settings(ctx.settings)):  # parallel projects' jobs push too
        parent = target.fetch() or sha
        commit = target.commit_paths(parent=parent, changes=changes, message=_message(plan, sha))
        if target.push(commit):
            return commit
    return None


def _pull_request(
    ctx: FlowContext, default: str, sha: str, changes: dict[str, Path | None], plan: ExecutionPlan
) -> Kept:
    branch = f"{PR_BRANCH_PREFIX}{plan.plan_hash[:12]}"
    target = ctx.branch(branch)
    commit = target.fetch()  # a re-run of this job: the branch is already there
    if commit is None:
        commit = target.commit_paths(parent=sha, changes=changes, message=_message(plan, sha))
        if not target.push(commit):
            commit = target.fetch()
    if commit is None:
        raise GitError(f"could not push the generated files to {branch}")
    existing = ctx.client.open_pulls(head=branch, base=default)
    pr = existing[0] if existing else None
    if pr is None:
        pr = ctx.client.create_pull(
            title=f"averos-ci: generated application for plan {plan.plan_hash[:12]}",
            head=branch,
            base=default,
            body=(
                f"The apply of plan {code(plan.plan_hash[:12])} (commit {code(sha[:12])}) "
                f"generated these files, but {code(default)} refused a direct push (branch "
                "protection). Merge this pull request so that the default branch holds the "
                "application: until then the next apply refuses to build on a workspace that "
                "lacks it (drift), and plans report it."
            ),
        )
    number = int(pr["number"])
    url = str(pr.get("html_url") or "")
    location = PullRequestLocation(number=number, url=url or None, branch=branch, commit=commit)
    link = f"[#{number}]({url})" if url else f"#{number}"
    return Kept(
        f" {code(default)} is protected: the generated files wait in pull request {link} "
        f"(branch {code(branch)}); merge it before the next apply.",
        pull_request=location,
    )


def record_location(state_file: Path, kept: Kept) -> None:
    """Write where the application lives into the state the apply just saved."""
    if not state_file.is_file():
        return
    state = parse_state(state_file.read_bytes(), path=state_file)
    if state.workspace is None:
        return
    workspace = state.workspace.model_copy(
        update={
            "commit": kept.commit if kept.recorded else None,
            "pull_request": kept.pull_request,
        }
    )
    if kept.pull_request is not None:  # the app is still at the previous commit, if any
        workspace = workspace.model_copy(update={"commit": state.workspace.commit})
    updated = state.model_copy(update={"workspace": workspace})
    atomic_write_text(state_file, canonical_json(updated.to_wire()))
