"""The structured output of every tool: its ``outputSchema`` is generated from these models."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Finding(Out):
    severity: str
    code: str
    message: str
    file: str
    line: int
    column: int
    pointer: str
    hint: str | None = None


class ValidateOut(Out):
    valid: bool
    file: str
    errors: int
    warnings: int
    findings: list[Finding]


class PlanOut(Out):
    manifest: str
    against: str
    planHash: str
    applicable: bool
    hasChanges: bool
    counts: dict[str, int]
    diff: dict[str, Any]
    changedNodes: list[dict[str, str]]
    text: str
    drift: dict[str, Any] | None
    policy: dict[str, Any] | None  # the config's policy verdict (None: no policy section)
    warnings: list[str]
    # per changed file: path, status, +added -removed, merged, conflict (None: the adapter does
    # not regenerate, so the plan carries no code patch)
    codePatch: list[dict[str, Any]] | None = None


class ExplainOut(Out):
    kind: str  # "finding" or "node"
    code: dict[str, Any] | None
    node: dict[str, Any] | None
    phases: list[str]


class EditOut(Out):
    path: str
    changed: bool
    diff: str
    warnings: list[dict[str, Any]]
    plan: PlanOut


class PullRequestRef(Out):
    number: int | None
    url: str | None


class ProposeOut(Out):
    branch: str
    base: str
    commit: str
    files: list[str]
    pullRequest: PullRequestRef


class StatusOut(Out):
    project: str
    config: str | None
    localState: dict[str, Any] | None
    stateBranch: dict[str, Any] | None
    drift: dict[str, Any] | None
    plan: dict[str, Any] | None
    planError: str | None
    pullRequests: dict[str, Any]
