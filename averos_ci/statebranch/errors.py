"""Refusals of the GitHub flow (exit 1): the apply did not run, and nothing was changed."""

from __future__ import annotations

from averos_ci.errors import ExitCode, RunFailed


class ApplyRefused(RunFailed):
    """The merge cannot be applied: unapproved or stale plan, or the state branch is held."""


class ApplyConflicts(ApplyRefused):
    """The merged plan has conflicts (exit 5, as from ``plan --detailed-exitcode`` and ``run``)."""

    exit_code = ExitCode.CONFLICTS
