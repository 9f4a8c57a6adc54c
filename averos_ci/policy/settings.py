"""The ``policy`` object of ``averos.config.json``: what a plan may do, and who may approve it.

In CI the policy is read from the base branch, like the approval rules (a pull request cannot
loosen its own gate).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    StringConstraints,
    ValidationError,
)
from pydantic.alias_generators import to_camel

from averos_ci._permission import Permission
from averos_ci._validation import first_problem
from averos_ci.errors import ConfigError
from averos_ci.source import SourceError, load_document

# One enum for the approval rules and the policy (averos_ci/_permission.py).
PermissionLevel = Permission
# ``@login`` or ``@org/team`` (the ``@`` optional), as GitHub spells them.
OWNER_PATTERN = r"^@?[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9][A-Za-z0-9_.-]*)?$"


class _Model(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )


class ProtectedElement(_Model):
    """Plan elements (node ids such as ``entity:Payment``, or globs such as ``*:Payment*``)
    whose creation, change or removal needs a higher permission to approve."""

    match: StrictStr = Field(
        min_length=1,
        description="A node id (`entity:Payment`) or an `fnmatch` glob on node ids "
        "(`entity:Pay*`, `*:Payment*`).",
    )
    permission: PermissionLevel = Field(
        default=PermissionLevel.MAINTAIN,
        description="Approvers' minimum permission when the plan creates, changes, renames or "
        "removes a matching element.",
    )


class PolicySettings(_Model):
    forbid_removals: StrictBool = Field(
        default=False,
        description="Violation: the plan removes elements from the manifest (`toRemove`).",
    )
    forbid_not_applied: StrictBool = Field(
        default=False,
        description="Violation: the adapter predicts that settings the plan states will not "
        "take effect (the plan's `notApplied` warnings).",
    )
    required_approvals: StrictInt = Field(
        default=1,
        ge=1,
        le=20,
        description="Requirement: distinct approvers needed when the plan has changes.",
    )
    updates_need_permission: PermissionLevel | None = Field(
        default=None,
        description="Requirement: approvers' minimum permission when the plan updates or "
        "renames existing elements (`toUpdate`, conflicts).",
    )
    max_nodes: StrictInt | None = Field(
        default=None, ge=1, description="Violation: the plan executes more nodes than this."
    )
    # A plain string is ``{"match": <string>, "permission": "maintain"}``.
    protected_elements: tuple[StrictStr | ProtectedElement, ...] = Field(
        default=(),
        description="Requirement: elements whose creation, change, rename or removal needs "
        "a higher permission to approve: node ids or globs, or `{match, permission}` objects.",
    )

    owners: tuple[Annotated[StrictStr, StringConstraints(pattern=OWNER_PATTERN)], ...] = Field(
        default=(),
        description="Requirement: only these people approve the project's plans (`@login`; "
        "a team `@org/team` is named, not resolved). Unset: the CODEOWNERS entry for the "
        "project's folder, if any. Read from the base branch.",
    )

    def protected_rules(self) -> tuple[ProtectedElement, ...]:
        return tuple(
            ProtectedElement(match=p) if isinstance(p, str) else p for p in self.protected_elements
        )


def load_policy(raw: dict[str, Any] | None, *, config_path: Path | None) -> PolicySettings:
    """Validate the config's ``policy`` object; errors are located in the config file."""
    try:
        return PolicySettings.model_validate(raw or {})
    except ValidationError as exc:
        # pydantic names the union member it tried (``str``, ``ProtectedElement``) in ``loc``.
        problem = first_problem(
            exc, prefix=("policy",), union_tags={"str", ProtectedElement.__name__}
        )
        line = col = None
        if config_path is not None:
            # The file changed under us: report without a position.
            with contextlib.suppress(SourceError):
                line, col = load_document(config_path).locate(problem.loc, key=problem.unknown_key)
        raise ConfigError(
            str(problem),
            path=config_path or "averos.config.json",
            line=line,
            column=col,
            hint="see docs/how-to/policy.md (keys: forbidRemovals, forbidNotApplied, "
            "requiredApprovals, updatesNeedPermission, maxNodes, protectedElements, owners)",
        ) from None
