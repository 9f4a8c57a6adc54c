"""Failure hints that name an action that can succeed: "re-run" only when every failure is
retryable (a transient condition); otherwise what to change first."""

from __future__ import annotations

from averos_ci.execute.summary import RunnerSummary


def retryable(summary: RunnerSummary) -> bool:
    """Every failed node failed for a transient reason (timeouts, a killed driver, ...)."""
    return all(f.failure.retryable for f in summary.failures)


def run_failure_hint(summary: RunnerSummary, *, logs_dir: object) -> str:
    """``averos-ci run``: resuming is how a fixed run continues, whatever the cause."""
    if retryable(summary):
        return (
            f"the failure looks transient: run the same command again with --resume "
            f"(node logs in {logs_dir})"
        )
    return (
        f"fix the cause first (node logs in {logs_dir}): the manifest, the workspace or the "
        "toolchain named above; then run again with --resume (completed nodes are not redone), "
        "or with --replan after changing the manifest"
    )


def apply_failure_hint(
    summary: RunnerSummary, *, interrupted: str | None, branch: str, project: str
) -> str:
    """The GitHub apply: a re-run resumes the same approved plan, so it only helps when
    the cause is gone by itself."""
    if interrupted or retryable(summary):
        return "re-run the job: it resumes the apply and completed nodes are not redone"
    first = next((f for f in summary.failures if not f.failure.retryable), None)
    cause = f" ({first.node_id}: {first.failure.code})" if first else ""
    return (
        f"the failure{cause} is not transient, so re-running the job alone fails again: if the "
        "runner's toolchain or workspace is at fault, fix it and re-run the job; if the "
        f"manifest is, abandon this apply on {branch!r} (`averos-ci state abandon --project "
        f"{project} --reason '...'`) and merge a pull request with the fix"
    )
