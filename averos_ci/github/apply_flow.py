"""``push`` to the default branch (the merge) → bring the state up to the branch's manifest,
executing only plans whose exact planHash was approved on a merged pull request (the
catch-up: :mod:`averos_ci.github.catchup` chooses the steps, :mod:`averos_ci.github.apply_step`
applies each).

The state branch is the lock: a claim (``<project>/apply.json``) is pushed before anything is
executed; a rejected push means another job moved the branch, so we re-fetch and re-plan and
refuse if the plan changed. Checkpoints and the partly generated workspace are pushed while
the apply runs, so a job that dies is resumed by the next one.
"""

from __future__ import annotations

from typing import Any

from averos_ci.forge.context import FlowContext
from averos_ci.forge.events import PushEvent
from averos_ci.github.apply_step import ApplyFn, ApplyResult
from averos_ci.github.catchup import catch_up
from averos_ci.review.trust import trust_base


def apply_merge(
    ctx: FlowContext, event: PushEvent, *, apply_fn: ApplyFn | None = None, cancel: Any = None
) -> ApplyResult:
    default = event.repository.default_branch
    if default and event.ref != f"refs/heads/{default}":
        print(f"{event.ref} is not the default branch ({default}): nothing to apply")
        return ApplyResult(None, False, True)
    trust_base(ctx, event.before)  # the approval rules of the branch merged into, not the PR's
    return catch_up(ctx, head=event.after, apply_fn=apply_fn, cancel=cancel)
