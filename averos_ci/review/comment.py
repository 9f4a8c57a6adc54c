"""The sticky plan comment: one per (pull request, project).

Found by a hidden marker on its first line and trusted only when authored by the token's own
identity. Its hidden metadata records the plan shown (planHash, head sha) and *pointers* to the
approvals seen; whether an approval counts is always re-checked against GitHub. Its body is
built from sections (:mod:`averos_ci.review.sections`); the status block is rewritten in place
(:func:`restamp`) when approvals come.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from averos_ci._markdown import code, escape

MARKER_RE = re.compile(r"\A<!-- averos-ci:plan project=(\S+) -->")
META_RE = re.compile(r"^<!-- averos-ci:meta ([A-Za-z0-9_=-]+) -->$", re.M)
RESULT_MARKER = "<!-- averos-ci:result project={project} -->"
STATUS_OPEN = "<!-- averos-ci:status -->"
STATUS_CLOSE = "<!-- /averos-ci:status -->"
_STATUS_RE = re.compile(re.escape(STATUS_OPEN) + r".*?" + re.escape(STATUS_CLOSE), re.S)
APPROVE_COMMAND = "/averos approve"
PIN_CHARS = 12  # the shortest planHash prefix that pins a plan in an approval
COMPUTING = "Computing the code change…"


def approve_line(plan_hash: str) -> str:
    """The exact approval command for ``plan_hash``, as a block to copy."""
    prefix = "".join(c for c in plan_hash if c in "0123456789abcdef")[:PIN_CHARS]
    return f"```\n{APPROVE_COMMAND} {prefix}\n```"


def marker(project: str) -> str:
    return f"<!-- averos-ci:plan project={project} -->"


@dataclass(frozen=True)
class ApprovalRef:
    """A pointer to a comment or review that was a valid approval when it was seen."""

    kind: str  # "comment" | "review"
    id: int
    user: str
    plan_hash: str
    head_sha: str

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "id": self.id,
            "user": self.user,
            "planHash": self.plan_hash,
            "headSha": self.head_sha,
        }

    @classmethod
    def from_json(cls, data: Any) -> ApprovalRef | None:
        try:
            ref = cls(
                kind=str(data["kind"]),
                id=int(data["id"]),
                user=str(data["user"]),
                plan_hash=str(data["planHash"]),
                head_sha=str(data["headSha"]),
            )
        except (KeyError, TypeError, ValueError):
            return None
        return ref if ref.kind in ("comment", "review") else None


@dataclass(frozen=True)
class PlanMeta:
    project: str
    plan_hash: str
    head_sha: str
    has_changes: bool
    applicable: bool = True
    approvals: tuple[ApprovalRef, ...] = field(default=())
    # When the plan for this head was first published (GitHub's clock, from the comment
    # itself): a comment approval counts only if written after it (averos_ci.github.headtime).
    head_at: str | None = None
    # The base state the plan was computed against (its ``baseStateHash``) and when this
    # plan was first published for this head (GitHub's clock): a plain approving review
    # counts only if submitted after it (averos_ci.review.approvals.plain_review_refusal).
    base_state: str | None = None
    plan_at: str | None = None
    # The policy verdict shown with the plan (averos_ci.policy): violated rules and the
    # approval requirements. Display only: the apply re-evaluates the recomputed plan.
    policy: dict[str, Any] | None = None
    # A regenerating adapter's plan is posted at once without its code change (``pending``:
    # the patch job is computing it, nothing can approve it yet); the complete job then
    # shows the full plan, whose planHash covers the code change, with ``semantic_hash``
    # the plan it completes (averos_ci.github.complete_flow).
    pending: bool = False
    semantic_hash: str | None = None
    # The plan's change counts (create, update, remove, conflicts) for the pull request's
    # summary of many projects (averos_ci.review.summary). Display only.
    counts: dict[str, int] | None = None

    def encode(self) -> str:
        data = {
            "v": 1,
            "project": self.project,
            "planHash": self.plan_hash,
            "headSha": self.head_sha,
            "hasChanges": self.has_changes,
            "applicable": self.applicable,
            "approvals": [a.to_json() for a in self.approvals],
        }
        if self.head_at is not None:
            data["headAt"] = self.head_at
        if self.base_state is not None:
            data["baseState"] = self.base_state
        if self.plan_at is not None:
            data["planAt"] = self.plan_at
        if self.policy is not None:
            data["policy"] = self.policy
        if self.pending:
            data["pending"] = True
        if self.semantic_hash is not None:
            data["semanticHash"] = self.semantic_hash
        if self.counts is not None:
            data["counts"] = self.counts
        raw = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
        return f"<!-- averos-ci:meta {base64.urlsafe_b64encode(raw).decode()} -->"

    @classmethod
    def decode(cls, body: str) -> PlanMeta | None:
        match = META_RE.search(body)
        if not match:
            return None
        try:
            data = json.loads(base64.urlsafe_b64decode(match.group(1)))
            approvals = tuple(
                a for a in (ApprovalRef.from_json(x) for x in data["approvals"]) if a is not None
            )
            return cls(
                project=str(data["project"]),
                plan_hash=str(data["planHash"]),
                head_sha=str(data["headSha"]),
                has_changes=bool(data["hasChanges"]),
                applicable=bool(data.get("applicable", True)),
                approvals=approvals,
                head_at=str(data["headAt"]) if data.get("headAt") else None,
                base_state=str(data["baseState"]) if data.get("baseState") else None,
                plan_at=str(data["planAt"]) if data.get("planAt") else None,
                policy=data["policy"] if isinstance(data.get("policy"), dict) else None,
                pending=data.get("pending") is True,
                semantic_hash=str(data["semanticHash"]) if data.get("semanticHash") else None,
                counts=_counts(data.get("counts")),
            )
        except (binascii.Error, ValueError, KeyError, TypeError):
            return None

    def with_approval(self, ref: ApprovalRef) -> PlanMeta:
        kept = tuple(a for a in self.approvals if (a.kind, a.id) != (ref.kind, ref.id))
        return replace(self, approvals=(*kept, ref))

    def current_approvals(self) -> tuple[ApprovalRef, ...]:
        return tuple(
            a
            for a in self.approvals
            if a.plan_hash == self.plan_hash and a.head_sha == self.head_sha
        )


def _counts(raw: object) -> dict[str, int] | None:
    if not isinstance(raw, dict):
        return None
    return {str(k): v for k, v in raw.items() if isinstance(v, int) and not isinstance(v, bool)}


@dataclass(frozen=True)
class StickyComment:
    id: int
    body: str
    meta: PlanMeta | None


def find_sticky(
    comments: Iterable[dict[str, Any]], *, project: str, bot_login: str
) -> StickyComment | None:
    """The first comment with this project's marker authored by ``bot_login``; others ignored."""
    for c in comments:
        body = c.get("body") or ""
        user = (c.get("user") or {}).get("login")
        match = MARKER_RE.match(body)
        if not match or match.group(1) != project or user != bot_login:
            continue
        if not isinstance(c.get("id"), int):
            continue
        meta = PlanMeta.decode(body)
        if meta is not None and meta.project != project:
            meta = None
        return StickyComment(id=int(c["id"]), body=body, meta=meta)
    return None


def status_text(
    meta: PlanMeta,
    approvers: Iterable[str] = (),
    note: str | None = None,
    *,
    outdated: Iterable[str] = (),
    unmet: str | None = None,
    awaited: str | None = None,
) -> str:
    """``outdated``: whose plain approving review no longer counts; ``unmet``: why the
    approvers do not meet the policy's requirements; ``awaited``: whose approval counts
    (markdown, already escaped: the project's owners)."""
    approvers = list(dict.fromkeys(approvers))
    violations = [str(v) for v in (meta.policy or {}).get("violations") or ()]
    if violations:
        status = (
            "⛔ **Policy violated** ("
            + ", ".join(code(v) for v in violations)
            + ") — this plan cannot be applied."
        )
    elif not meta.has_changes:
        status = "✅ **No changes** — nothing to approve."
    elif not meta.applicable:
        status = "⛔ **Conflicts** — this plan cannot be applied; resolve the conflicts first."
    elif meta.pending:
        status = (
            f"⏳ **{COMPUTING}** The plan below is the change to the manifest; the change "
            "to the code is generated in a job without write credentials and added here "
            "when it is ready. It cannot be approved before: an approval covers both."
        )
    elif approvers and unmet:
        names = ", ".join(escape("@" + a) for a in approvers)
        status = f"⏳ **Approved by {names}, but {escape(unmet)}.**"
    elif approvers:
        names = ", ".join(escape("@" + a) for a in approvers)  # shown, not pinged
        status = f"✅ **Approved** by {names} for this plan and head."
    elif awaited:
        status = f"⏳ **Awaiting approval** from {awaited}."
    else:
        status = "⏳ **Awaiting approval.**"
    stale = [escape("@" + a) for a in dict.fromkeys(outdated)]
    if stale and meta.has_changes:
        status += (
            f"\n\nOutdated approving review(s) by {', '.join(stale)}: the plan changed since "
            "they were submitted; approve again."
        )
    if note:
        status += "\n\n" + note
    return f"{STATUS_OPEN}\n{status}\n{STATUS_CLOSE}"


def restamp(body: str, meta: PlanMeta, status: str) -> str:
    """The same comment with new metadata and status; the plan itself is kept as posted."""
    body = META_RE.sub(lambda _: meta.encode(), body, count=1)
    return _STATUS_RE.sub(lambda _: status, body, count=1)


def parse_command(body: str | None) -> tuple[bool, str | None]:
    """``/averos approve [planHash-prefix]`` on a line of its own; nothing else is executed.

    Returns (is_command, optional hash prefix). The body is matched, never interpreted.
    """
    for line in (body or "").splitlines()[:20]:
        words = line.strip().split()
        if words[:2] == ["/averos", "approve"]:
            if len(words) == 2:
                return True, None
            if len(words) == 3 and re.fullmatch(r"[0-9a-f]{7,64}", words[2]):
                return True, words[2]
            return True, "!invalid"
    return False, None
