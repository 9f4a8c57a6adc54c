"""``averos-ci github patch``: the code change of a pull request's plan, computed in a job that
holds no write credential.

Generation runs npm packages and — with a regenerating adapter — code the pull request can
change (its ``package.json``, schematics, adapter modules). So it never runs in a job that
holds a token: the plan job posts the semantic plan at once ("computing the code change…"),
this command runs in a separate job (``permissions: contents: read``, no token in averos-ci's
environment, the checkout's credentials not persisted) and writes the result file, which the
``complete`` job reads as data (:mod:`averos_ci.github.complete_flow`). A separate *job*, not
a step: steps of one job share the runner's filesystem, so code run by the generator could
rewrite the averos-ci installation a later, credentialed step executes.

The state branch is read from the checkout (``fetch-depth: 0`` brings
``refs/remotes/<remote>/<stateBranch>``); without it, an anonymous fetch is tried.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from averos_ci.config import RunConfig
from averos_ci.errors import InputError
from averos_ci.forge.actions_env import ActionsEnv
from averos_ci.forge.context import FlowContext, open_context
from averos_ci.forge.events import PullRequestEvent, load_event
from averos_ci.github.patch_result import (
    DEFAULT_FILE_NAME,
    RESULT_FORMAT_VERSION,
    PatchResult,
    WirePatch,
    write_result,
)
from averos_ci.plan.planner import PlanResult
from averos_ci.planning import code_patch_needed, plan_project
from averos_ci.review.trust import trust_base
from averos_ci.statebranch.project_state import BranchState
from averos_ci.statebranch.state_branch import StateBranch


class TokenInPatchJob(InputError):
    """The patch command was given a token (exit 2): it runs the pull request's generator."""


def code_change_needed(config: RunConfig, planned: PlanResult) -> bool:
    """Compatibility name of :func:`averos_ci.planning.code_patch_needed` (patch_result)."""
    return code_patch_needed(config, planned)


def default_result_path(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    base = env.get("RUNNER_TEMP") or tempfile.gettempdir()
    return Path(base) / "averos-ci-patch" / DEFAULT_FILE_NAME


def patch_command(
    *,
    config_path: str | Path | None = None,
    out: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> PatchResult:
    """Compute the code change of the ``pull_request`` event's head and write the result file
    (``out``, default ``$RUNNER_TEMP/averos-ci-patch/averos-patch.json``)."""
    env = ActionsEnv.from_environ(environ)
    if env.token is not None or env.state_key is not None:
        raise TokenInPatchJob(
            "'github patch' runs the pull request's generator and must hold no credential, "
            "but a token or state key is in its environment",
            hint="in the patch job pass no github-token/state-key (the action passes none for "
            "`command: patch`) and set no GITHUB_TOKEN (docs/reference/github-action.md)",
        )
    ctx = open_context(config_path=config_path, environ=environ)
    try:
        result = _compute(ctx)
        path = out or default_result_path(environ)
        write_result(path, result)
        needed = result.code_patch is not None
        ctx.report.set(patch_path=path, patch_needed=needed)
        print(
            f"code change of plan {result.semantic_plan_hash[:12]} for {result.head_sha[:12]}: "
            + (
                f"{len(result.code_patch.files)} file(s), patch {result.code_patch.hash[:12]}"
                if result.code_patch is not None
                else "none needed"
            )
            + f" -> {path}"
        )
        return result
    finally:
        ctx.report.flush()
        ctx.close()


def _compute(ctx: FlowContext) -> PatchResult:
    event = load_event(ctx.env.event_name, ctx.env.event_path)
    if not isinstance(event, PullRequestEvent):
        raise InputError(
            f"'github patch' handles the 'pull_request' event, not {ctx.env.event_name!r}",
            hint="run it in the plan workflow's patch job (examples/workflows/averos-plan.yml)",
        )
    head = event.pull_request.head.sha
    # the state branch, project and remote are the base branch's, as in the plan job
    trust_base(ctx, event.pull_request.base.sha)
    checked_out = _git(ctx.repo_root, "rev-parse", "HEAD")
    if checked_out != head:
        raise InputError(
            f"the checkout is at {checked_out[:12]}, the pull request's head is {head[:12]}",
            path=ctx.repo_root,
            hint="check out `${{ github.event.pull_request.head.sha }}` in the patch job",
        )
    sb = StateBranch(ctx.repo_root, remote=ctx.settings.remote, branch=ctx.settings.state_branch)
    tip = _state_tip(sb)
    # the code patch is generated from the exported state's pristine store, only read
    full = plan_project(ctx.config, BranchState(sb, tip, ctx.project))
    semantic = full.without_patch.plan
    result = {
        "format_version": RESULT_FORMAT_VERSION,
        "project": ctx.project,
        "head_sha": head,
        "semantic_plan_hash": semantic.plan_hash,
        "base_state_hash": semantic.base_state_hash,
        "state_tip": tip,
    }
    if full.patch is None:
        return PatchResult(**result)
    wire = WirePatch.model_validate(full.patch.to_wire())
    return PatchResult(**result, code_patch=wire)


def _state_tip(sb: StateBranch) -> str | None:
    """The state branch as the checkout brought it; else an anonymous fetch (no token here)."""
    try:
        return _git(
            Path(sb.repo.working_dir),
            "rev-parse",
            "--verify",
            "--quiet",
            f"refs/remotes/{sb.remote}/{sb.branch}^{{commit}}",
        )
    except subprocess.CalledProcessError:
        return sb.fetch()


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()
