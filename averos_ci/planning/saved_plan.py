"""Apply exactly a saved plan: ``averos-ci plan --out plan.json`` then ``run --plan plan.json``
(Terraform's ``plan -out`` / ``apply planfile``).

The file is checked twice before anything runs: against itself (its ``planHash`` is the hash of
everything else in it, so an edited file is refused) and against now (the plan computed from
the current manifest and state must have that very hash — ``apply``'s ``expected_plan_hash``).
Equal hashes mean equal plans, so the nodes executed are the saved plan's nodes.

Sensitive values are masked in the file (averos_ci.plan.sensitive) while the planHash covers
the real ones, so a masked file cannot be hashed back: it is instead compared with the plan
computed now, masked the same way — the file must be exactly what ``plan --out`` writes now.
The nodes executed come from that computation (the adapter gets the real values).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from averos_ci.config import RunConfig
from averos_ci.errors import InputError, RunFailed
from averos_ci.execute.apply import ApplyOutcome, PlanMismatch
from averos_ci.plan.canonical import canonical_json
from averos_ci.plan.model import BESIDE_THE_PLAN, PLAN_FORMAT_VERSION, ExecutionPlan
from averos_ci.plan.planner import sha256_json
from averos_ci.plan.sensitive import is_masked, mask_wire
from averos_ci.planning.run import apply
from averos_ci.source import SourceError, load_document

_HINT = "write it with: averos-ci plan --out plan.json (or --format json --out FILE)"


class SavedPlanInvalid(InputError):
    """The file is not a plan JSON written by ``averos-ci plan`` (exit 2)."""


class SavedPlanStale(RunFailed):
    """The manifest or the state changed since the plan was saved (exit 1; nothing written)."""


def load_saved_plan(path: Path) -> ExecutionPlan:
    """Read and verify a plan file (format, shape, self-consistent ``planHash``)."""
    try:
        doc = load_document(path, what="saved plan")
    except SourceError as exc:
        raise SavedPlanInvalid(
            exc.message, path=exc.path, line=exc.line, column=exc.column, hint=_HINT
        ) from None
    # notApplied, summary: derived from what the hash covers (plan.model.BESIDE_THE_PLAN)
    data: dict[str, Any] = {k: v for k, v in doc.data.items() if k not in BESIDE_THE_PLAN}
    version = data.get("formatVersion")
    if version != PLAN_FORMAT_VERSION:
        line, col = doc.locate(("formatVersion",))
        raise SavedPlanInvalid(
            f"/formatVersion: {version!r} is not a plan format this averos-ci reads "
            f"({PLAN_FORMAT_VERSION})",
            path=path,
            line=line,
            column=col,
            hint="re-plan with this averos-ci version; " + _HINT,
        )
    try:
        plan = ExecutionPlan.model_validate(data)
    except ValidationError as exc:
        message, line, col = doc.locate_validation_error(exc)
        raise SavedPlanInvalid(
            message,
            path=path,
            line=line,
            column=col,
            hint=_HINT,
        ) from None
    body = {k: v for k, v in data.items() if k != "planHash"}
    if sha256_json(body) != plan.plan_hash and not is_masked(data):
        # neither the real plan nor a masked one (checked against the re-planned plan in apply)
        raise _modified(path, doc.locate(("planHash",)))
    return plan


def _modified(path: Path, where: tuple[int, int]) -> SavedPlanInvalid:
    return SavedPlanInvalid(
        "the saved plan was modified after it was written: its planHash does not match its content",
        path=path,
        line=where[0],
        column=where[1],
        hint="plans are not edited by hand: change the manifest and re-plan; " + _HINT,
    )


def _same_as_saved(path: Path, saved: ExecutionPlan) -> Callable[[ExecutionPlan], None]:
    """The check ``apply`` runs on the plan computed now (its hash already equals the file's)."""
    written = canonical_json(mask_wire(saved.to_wire()))

    def check(plan: ExecutionPlan) -> None:
        if canonical_json(mask_wire(plan.to_wire())) != written:
            raise _modified(path, (1, 1))

    return check


def apply_saved_plan(config: RunConfig, *, plan_path: Path, **options: Any) -> ApplyOutcome:
    """``apply`` restricted to the saved plan; ``options`` are :func:`apply`'s."""
    saved = load_saved_plan(plan_path)
    try:
        return apply(
            config,
            expected_plan_hash=saved.plan_hash,
            check_plan=_same_as_saved(plan_path, saved),
            **options,
        )
    except PlanMismatch:
        raise SavedPlanStale(
            f"saved plan is stale: the manifest or the state changed since "
            f"{saved.plan_hash[:12]} was planned; nothing was executed or written",
            path=plan_path,
            hint="plan again (averos-ci plan --out FILE), review it, and run that plan",
        ) from None
