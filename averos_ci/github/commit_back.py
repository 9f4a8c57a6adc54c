"""Keeping the generated application after an apply (``commitWorkspace``), and recording in
the state where it now lives.

- ``default-branch`` (default): commit the generated files back to the default branch
  (``[skip ci]``, never forced), with the push token when the job has one (``push-token``:
  a GitHub App's installation token the default branch's ruleset lets through — the commit
  holds exactly the approved patch, so no approval is bypassed; see
  docs/how-to/protected-branches.md), else with ``GITHUB_TOKEN``. Comments, statuses and the
  state branch always use ``GITHUB_TOKEN``. When the branch refuses the push (protection
  rules, a hook), push them to ``averos/apply-<planHash12>`` and open a pull request instead; the
  next apply builds on them only once it is merged (until then drift says so). That branch
  is reused only when it holds exactly this change (parent: the merge; the same tree);
  anything else there (a write user can push it first) is left alone, and the commit goes
  to ``averos/apply-<planHash12>-<commit12>``.
- ``same-branch``: the branch that was pushed (the default branch for a merge).
- ``branch``: another branch (``workspaceBranch``); the next apply does not find the app.
- ``none``: nothing is committed — you keep the workspace yourself; the drift guard refuses
  an incremental apply on a checkout that lacks the application.
"""

from __future__ import annotations

from pathlib import Path

from averos_ci._actions import annotate
from averos_ci._markdown import code
from averos_ci.forge.context import FlowContext
from averos_ci.forge.settings import CommitWorkspace
from averos_ci.state.model import PullRequestLocation
from averos_ci.statebranch.keep import Kept, commit_message, land_on_branch, push_files
from averos_ci.statebranch.landing import Backoff
from averos_ci.statebranch.state_branch import GitError, StateBranch

PR_BRANCH_PREFIX = "averos/apply-"


def keep_workspace(
    ctx: FlowContext, sha: str, changes: dict[str, Path | None], plan_hash: str
) -> Kept:
    """Commit the generated files; ``plan_hash``: the approved planHash (the full one, code
    change included), which the commit, the fallback branch and its PR name."""
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
        pushed = _push(ctx, branch, sha, changes, plan_hash)
        note = f" Workspace changes committed to {code(branch)}." if pushed else ""
        return Kept(note, recorded=False)
    try:
        pushed = _push(ctx, default, sha, changes, plan_hash, token=ctx.env.push_token)
    except GitError as exc:  # refused: a protected branch or a hook
        if ctx.env.push_token:
            annotate(
                "warning",
                f"{default} refused the generated files pushed with the push token "
                f"({exc.message}): opening a PR. Is the App in the bypass list of "
                f"{default}'s ruleset, with Contents write? (`averos-ci doctor` checks it; "
                "docs/how-to/protected-branches.md)",
            )
        else:
            annotate(
                "notice", f"{default} refused the generated files ({exc.message}): opening a PR"
            )
        return _pull_request(ctx, default, sha, changes, plan_hash)
    if pushed is None:
        annotate("warning", f"could not push the generated workspace to {default}")
        return Kept("", recorded=False)
    return Kept(
        f" Generated files committed to {code(default)} ({code(pushed[:12])}).", commit=pushed
    )


def _push(
    ctx: FlowContext,
    branch: str,
    sha: str,
    changes: dict[str, Path | None],
    plan_hash: str,
    *,
    token: str | None = None,
) -> str | None:
    """Push the generated commit to ``branch``: with ``token`` (the push token) if given, else
    with the job's ``GITHUB_TOKEN``."""
    backoff = Backoff.from_settings(ctx.settings)
    target = ctx.branch(branch)
    if token:
        target = StateBranch(
            ctx.repo_root,
            remote=ctx.settings.remote,
            branch=branch,
            token=token,
            server_url=ctx.env.server_url,
        )
    return push_files(target, sha=sha, changes=changes, plan_hash=plan_hash, backoff=backoff)


def _pull_request(
    ctx: FlowContext, default: str, sha: str, changes: dict[str, Path | None], plan_hash: str
) -> Kept:
    branch = f"{PR_BRANCH_PREFIX}{plan_hash[:12]}"
    commit = ctx.branch(branch).commit_paths(
        parent=sha, changes=changes, message=commit_message(plan_hash, sha)
    )
    landed = land_on_branch(ctx.branch(branch), commit)  # reused only if it is this change
    if landed is None:  # someone else's commit is there: never open the PR from it
        taken, branch = branch, f"{branch}-{commit[:12]}"
        annotate(
            "warning",
            f"{taken} holds a commit this apply did not make: not reused; the generated "
            f"files go to {branch}",
        )
        landed = land_on_branch(ctx.branch(branch), commit)
    if landed is None:
        raise GitError(
            f"could not push the generated files to {branch}: the branch holds another commit",
            hint=f"delete {branch} (nothing of this apply is on it) and re-run the job",
        )
    commit = landed
    existing = ctx.client.open_pulls(head=branch, base=default)
    pr = existing[0] if existing else None
    if pr is None:
        pr = ctx.client.create_pull(
            title=f"averos-ci: generated application for plan {plan_hash[:12]}",
            head=branch,
            base=default,
            body=(
                f"The apply of plan {code(plan_hash[:12])} (commit {code(sha[:12])}) "
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
