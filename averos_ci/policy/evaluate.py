"""Policy as a pure function: (plan, settings) → violations and approval requirements.

*Violations* are decided by the plan alone (``forbidRemovals``, ``forbidNotApplied``,
``maxNodes``): they fail
``plan --policy`` and must block an apply. *Requirements* need GitHub data to check (who
approved, with which permission): they are returned as data — a minimum permission and a
number of distinct approvers, each with its reason — for the GitHub flow to enforce.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from averos_ci.plan.model import ExecutionPlan
from averos_ci.plan.not_applied import not_applied
from averos_ci.policy.settings import PermissionLevel, PolicySettings


@dataclass(frozen=True)
class Violation:
    rule: str  # the settings key, e.g. ``forbidRemovals``
    message: str
    elements: tuple[str, ...] = ()

    def to_wire(self) -> dict[str, object]:
        return {"rule": self.rule, "message": self.message, "elements": list(self.elements)}


@dataclass(frozen=True)
class Requirement:
    """An approval of this plan counts only from approvers meeting it."""

    rule: str
    message: str
    permission: PermissionLevel | None = None  # minimum repository permission of each approver
    approvals: int | None = None  # distinct approvers needed
    elements: tuple[str, ...] = ()

    def to_wire(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "message": self.message,
            "permission": self.permission.value if self.permission else None,
            "approvals": self.approvals,
            "elements": list(self.elements),
        }


@dataclass(frozen=True)
class PolicyResult:
    violations: tuple[Violation, ...] = ()
    requirements: tuple[Requirement, ...] = field(default=())

    @property
    def passed(self) -> bool:
        return not self.violations

    @property
    def required_permission(self) -> PermissionLevel | None:
        """The highest permission any requirement asks of an approver (``None``: the
        approval rules' own level applies)."""
        levels = [r.permission for r in self.requirements if r.permission is not None]
        return max(levels, key=lambda p: p.rank) if levels else None

    @property
    def required_approvals(self) -> int:
        return max((r.approvals or 1 for r in self.requirements), default=1)

    def to_wire(self) -> dict[str, object]:
        perm = self.required_permission
        return {
            "passed": self.passed,
            "violations": [v.to_wire() for v in self.violations],
            "requirements": [r.to_wire() for r in self.requirements],
            "requiredPermission": perm.value if perm else None,
            "requiredApprovals": self.required_approvals,
        }


def evaluate_policy(plan: ExecutionPlan, settings: PolicySettings) -> PolicyResult:
    """Pure: the same plan and settings give the same result, nothing is read or written."""
    violations: list[Violation] = []
    requirements: list[Requirement] = []
    removed = tuple(c.id for c in plan.diff.to_remove)
    if settings.forbid_removals and removed:
        violations.append(
            Violation(
                "forbidRemovals",
                f"{len(removed)} element(s) would be removed from the manifest; removals are "
                "forbidden (restore them, or declare a rename with renamedFrom)",
                removed,
            )
        )
    unapplied = not_applied(plan) if settings.forbid_not_applied else ()
    if unapplied:
        violations.append(
            Violation(
                "forbidNotApplied",
                f"{len(unapplied)} setting(s) the plan states will not take effect ("
                + "; ".join(f"{n.node_id}: {n.setting}" for n in unapplied[:5])
                + (f"; … {len(unapplied) - 5} more" if len(unapplied) > 5 else "")
                + "): remove them from the manifest, or use an adapter that applies them",
                tuple(dict.fromkeys(n.node_id for n in unapplied)),
            )
        )
    executable = len(plan.executable_nodes())
    if settings.max_nodes is not None and executable > settings.max_nodes:
        violations.append(
            Violation(
                "maxNodes",
                f"the plan executes {executable} nodes, over the limit of {settings.max_nodes} "
                "(split the change into smaller pull requests)",
            )
        )
    if not plan.has_changes and not plan.diff.conflicts and not removed:
        return PolicyResult(tuple(violations))  # nothing to approve
    if settings.required_approvals > 1:
        requirements.append(
            Requirement(
                "requiredApprovals",
                f"{settings.required_approvals} distinct approvers",
                approvals=settings.required_approvals,
            )
        )
    updated = tuple(
        sorted({c.id for c in plan.diff.to_update} | {c.id for c in plan.diff.conflicts})
    )
    if settings.updates_need_permission is not None and updated:
        requirements.append(
            Requirement(
                "updatesNeedPermission",
                f"updates or renames {len(updated)} existing element(s): approvers need "
                f"'{settings.updates_need_permission.value}'",
                permission=settings.updates_need_permission,
                elements=updated,
            )
        )
    touched = _touched(plan)
    for rule in settings.protected_rules():
        hits = tuple(i for i in touched if fnmatchcase(i, rule.match))
        if hits:
            requirements.append(
                Requirement(
                    "protectedElements",
                    f"changes protected element(s) matching {rule.match!r}: approvers need "
                    f"'{rule.permission.value}'",
                    permission=rule.permission,
                    elements=hits,
                )
            )
    return PolicyResult(tuple(violations), tuple(requirements))


def _touched(plan: ExecutionPlan) -> tuple[str, ...]:
    """Every element id the plan creates, changes, renames (both names) or removes."""
    d = plan.diff
    ids = {c.id for c in (*d.to_add, *d.to_update, *d.conflicts, *d.to_remove)}
    ids |= {c.renamed_from for c in d.to_update if c.renamed_from}
    ids |= {n.id for n in plan.executable_nodes()}
    return tuple(sorted(ids))
