"""The apply claim (``<project>/apply.json``) and run records (``<project>/runs/*.json``) on
the state branch.

The claim is the lock: it is pushed before anything executes, names the plan and the commit
being applied and lists the runs that worked on it. Both files carry ``formatVersion`` and are
written atomically into the exported project directory before it is committed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from averos_ci._fs import atomic_write_text
from averos_ci.state.model import now_iso
from averos_ci.statebranch.errors import ApplyRefused
from averos_ci.statebranch.state_branch import GitError

CLAIM = "apply.json"
CHECKPOINTS = "checkpoints.json"
SEAL = "seal.json"  # the MAC over the claim and the progress (averos_ci.statebranch.seal)
SEALED_CHECKPOINTS = "checkpoints.sealed.json"  # the checkpoints exactly as sealed
RUNS = "runs"
PARTIAL = "partial-workspace"  # the partly generated workspace of an interrupted apply
FORMAT_VERSION = 1
ABANDON = "averos-ci state abandon"  # the command that clears an interrupted apply


def read_claim(proj: Path) -> dict[str, Any] | None:
    return read_json(proj / CLAIM)


def check_claim(
    claim: dict[str, Any] | None,
    first_claim: dict[str, Any] | None,
    *,
    attempt: int,
    plan_hash: str,
    sha: str,
    run_id: str | None,
    branch: str,
    project: str,
) -> None:
    """Refuse when another apply holds the branch, or claimed it while this job started.

    A claim is resumed only by a re-run of the run that wrote it: the same plan, the same
    commit and the same ``GITHUB_RUN_ID`` (a re-run keeps the id and increments
    ``GITHUB_RUN_ATTEMPT``). The state branch is untrusted input: a claim planted for another
    commit, or left by another run, must not make this job "resume" someone else's progress.
    """
    abandon = (
        f"to abandon it, run `{ABANDON} --project {project} --reason '...'` (see "
        "`averos-ci state show`), then re-run this job"
    )
    if claim is not None and (claim.get("planHash") != plan_hash or claim.get("sha") != sha):
        raise ApplyRefused(
            f"another apply holds {branch!r} for project {project!r} (plan "
            f"{str(claim.get('planHash'))[:12]}, commit {str(claim.get('sha'))[:12]}): "
            "it is running or was interrupted",
            hint=f"re-run that job to resume it; {abandon}",
        )
    owner = claim.get("runId") if claim is not None else None
    if claim is not None and attempt == 0 and (not run_id or str(owner) != run_id):
        raise ApplyRefused(
            f"an apply of plan {plan_hash[:12]} for commit {sha[:12]} was started by "
            f"{'run ' + str(owner) if owner else 'an unknown run'}, not by this run "
            f"({run_id or 'no GITHUB_RUN_ID'}); only a re-run of that run resumes it",
            hint=f're-run that run\'s job ("Re-run jobs") to resume it; {abandon}',
        )
    if attempt > 0 and claim is not None and claim != first_claim:
        raise ApplyRefused(
            f"another job claimed the apply of plan {plan_hash[:12]} while this one "
            "was starting; it runs there",
            hint="nothing to do here; see the other run",
        )


def write_claim(
    proj: Path,
    claim: dict[str, Any] | None,
    *,
    plan_hash: str,
    sha: str,
    pr: int | None,
    run_url: str | None,
    run_id: str | None = None,
    run_attempt: str | None = None,
) -> None:
    """Claim (or re-claim, adding this attempt) the apply of ``plan_hash`` for run ``run_id``."""
    runs = list(claim.get("runs", [])) if claim else []
    runs.append({"sha": sha, "runUrl": run_url, "attempt": run_attempt, "at": now_iso()})
    write_json(
        proj / CLAIM,
        {"planHash": plan_hash, "sha": sha, "pr": pr, "runId": run_id, "runs": runs},
    )


def start_fresh(proj: Path) -> list[str]:
    """Before a new claim (no claim was there): drop any progress the folder holds.

    Checkpoints, a seal or a partial workspace that no claim covers were not written by an
    apply of this run (a claim is pushed before anything runs): a state-branch writer could
    have planted them, and the claim's seal would then authenticate them. The names of what
    was dropped, for a warning."""
    dropped = [n for n in (CHECKPOINTS, SEAL, SEALED_CHECKPOINTS) if (proj / n).exists()]
    for name in dropped:
        (proj / name).unlink()
    if (proj / PARTIAL).exists():
        shutil.rmtree(proj / PARTIAL)
        dropped.append(f"{PARTIAL}/")
    return dropped


def release_claim(proj: Path) -> None:
    for leftover in (CLAIM, SEAL, SEALED_CHECKPOINTS):
        (proj / leftover).unlink(missing_ok=True)


def finish(proj: Path, record: dict[str, Any], *, sha: str) -> None:
    """Clear the claim and the progress; record the finished run."""
    for leftover in (CLAIM, CHECKPOINTS, SEAL, SEALED_CHECKPOINTS):
        (proj / leftover).unlink(missing_ok=True)
    shutil.rmtree(proj / PARTIAL, ignore_errors=True)
    write_json(proj / RUNS / f"{now_iso().replace(':', '')}-{sha[:12]}.json", record)


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except ValueError:
        raise GitError(f"{path.name} on the state branch is corrupt") from None
    if not isinstance(data, dict):
        return None
    version = data.get("formatVersion", FORMAT_VERSION)  # files from before formatVersion
    if version != FORMAT_VERSION:
        raise GitError(
            f"{path.name} on the state branch has formatVersion {version!r}; this averos-ci "
            f"reads {FORMAT_VERSION}",
            hint="upgrade averos-ci",
        )
    return data


def write_json(path: Path, data: dict[str, Any]) -> None:
    text = json.dumps({"formatVersion": FORMAT_VERSION, **data}, indent=2, sort_keys=True)
    atomic_write_text(path, text + "\n")
