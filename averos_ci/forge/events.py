"""GitHub event payloads (``$GITHUB_EVENT_PATH``): only the fields the flow reads.

A malformed payload is an :class:`EventError` naming the file and the JSON pointer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from averos_ci._validation import first_problem
from averos_ci.errors import InputError

EVENT_MAX_BYTES = 25 * 1024 * 1024


class EventError(InputError):
    """The event payload cannot be used (exit 2)."""


class _Payload(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class User(_Payload):
    login: str


class Repo(_Payload):
    full_name: str
    default_branch: str | None = None


class Ref(_Payload):
    sha: str
    ref: str
    repo: Repo | None = None  # null when the fork was deleted


class PullRequest(_Payload):
    number: int
    state: str | None = None
    user: User
    head: Ref
    base: Ref
    merged: bool | None = None
    merged_at: str | None = None
    merge_commit_sha: str | None = None
    html_url: str | None = None

    def is_fork(self, repository: str) -> bool:
        return self.head.repo is None or self.head.repo.full_name != repository


class Comment(_Payload):
    id: int
    body: str | None = None
    user: User
    created_at: str | None = None
    updated_at: str | None = None


class IssuePR(_Payload):
    url: str | None = None


class Issue(_Payload):
    number: int
    user: User
    pull_request: IssuePR | None = None


class Review(_Payload):
    id: int
    state: str
    commit_id: str | None = None
    user: User | None = None  # null for a deleted ("ghost") account
    body: str | None = None
    submitted_at: str | None = None


class PullRequestEvent(_Payload):
    action: str
    number: int | None = None
    pull_request: PullRequest
    repository: Repo
    sender: User | None = None  # who opened the PR or pushed the head (``synchronize``)


class IssueCommentEvent(_Payload):
    action: str
    issue: Issue
    comment: Comment
    repository: Repo


class PullRequestReviewEvent(_Payload):
    action: str
    review: Review
    pull_request: PullRequest
    repository: Repo


class PushEvent(_Payload):
    ref: str
    after: str
    before: str | None = None
    repository: Repo


class Owner(_Payload):
    login: str


class HeadRepo(_Payload):
    full_name: str
    owner: Owner


class WorkflowRun(_Payload):
    event: str
    head_sha: str
    head_branch: str | None = None
    head_repository: HeadRepo | None = None
    # who triggered the run (a re-run keeps it; ``triggering_actor`` is the re-runner): for a
    # ``pull_request`` run, who pushed the head
    actor: User | None = None


class WorkflowRunEvent(_Payload):
    """``workflow_run`` after the unprivileged plan of a fork PR: the fork-comment pattern."""

    action: str
    workflow_run: WorkflowRun
    repository: Repo


class WorkflowDispatchEvent(_Payload):
    """``workflow_dispatch``: a manual run; the apply workflow's ``project`` input re-runs the
    catch-up of that project (:mod:`averos_ci.github.apply_flow`)."""

    ref: str
    inputs: dict[str, Any] | None = None
    repository: Repo


class ScheduleEvent(_Payload):
    """``schedule``: a cron run of the default branch (the drift check,
    :mod:`averos_ci.github.drift_flow`)."""

    schedule: str | None = None
    repository: Repo | None = None


class MergeGroup(_Payload):
    head_sha: str
    head_ref: str
    base_ref: str
    base_sha: str | None = None  # newer payloads carry it; else the base branch is fetched


class MergeGroupEvent(_Payload):
    """``merge_group`` (``checks_requested``): a merge queue asks for the required checks."""

    action: str
    merge_group: MergeGroup
    repository: Repo


Event = (
    PullRequestEvent
    | IssueCommentEvent
    | PullRequestReviewEvent
    | PushEvent
    | WorkflowRunEvent
    | WorkflowDispatchEvent
    | MergeGroupEvent
    | ScheduleEvent
)

MODELS: dict[str, type[_Payload]] = {
    "pull_request": PullRequestEvent,
    "pull_request_target": PullRequestEvent,
    "issue_comment": IssueCommentEvent,
    "pull_request_review": PullRequestReviewEvent,
    "push": PushEvent,
    "workflow_run": WorkflowRunEvent,
    "workflow_dispatch": WorkflowDispatchEvent,
    "merge_group": MergeGroupEvent,
    "schedule": ScheduleEvent,
}


def load_event(name: str, path: str | Path) -> Event:
    """Parse ``$GITHUB_EVENT_PATH`` for the event ``name`` (``$GITHUB_EVENT_NAME``)."""
    model = MODELS.get(name)
    if model is None:
        raise EventError(
            f"unsupported event {name!r}", hint=f"run on one of: {', '.join(sorted(MODELS))}"
        )
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise EventError(
            f"cannot read the event payload: {exc.strerror}",
            path=path,
            hint="GITHUB_EVENT_PATH must name the event JSON file",
        ) from None
    if len(raw) > EVENT_MAX_BYTES:
        raise EventError("event payload is too large", path=path)
    try:
        data: Any = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise EventError("event payload is not UTF-8", path=path) from None
    except json.JSONDecodeError as exc:
        raise EventError(
            f"event payload is not JSON: {exc.msg}", path=path, line=exc.lineno, column=exc.colno
        ) from None
    try:
        event = model.model_validate(data)
    except ValidationError as exc:
        raise EventError(
            str(first_problem(exc)),
            path=path,
            hint=f"this does not look like a {name!r} event payload",
        ) from None
    assert isinstance(
        event,
        PullRequestEvent
        | IssueCommentEvent
        | PullRequestReviewEvent
        | PushEvent
        | WorkflowRunEvent
        | WorkflowDispatchEvent
        | MergeGroupEvent
        | ScheduleEvent,
    )
    return event
