"""The routes table: which flow each command takes for each event, and every command —
``patch``, ``complete`` and ``gate`` included — entering through :func:`run_github`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.errors import ExitCode, InputError
from averos_ci.forge.events import MODELS, load_event
from averos_ci.github import COMMANDS, run_github
from averos_ci.github.patch_flow import TokenInPatchJob
from averos_ci.github.routes import AUTO, JOBS, ROUTES, route
from tests.github.gh_world import EVENTS


def _event(name: str, file: str, tmp_path: Path, *, body: str | None = None) -> object:
    path = EVENTS / file
    if body is not None:  # the same comment, saying something else
        data = json.loads(path.read_text())
        data["comment"]["body"] = body
        path = tmp_path / file
        path.write_text(json.dumps(data))
    return load_event(name, path)


@pytest.mark.parametrize(
    ("command", "name", "file", "body", "flow"),
    [
        ("plan", "pull_request", "pull_request.opened.json", None, "_plan_pull_request"),
        ("plan", "merge_group", "merge_group.checks_requested.json", None, "_check_merge_group"),
        ("approve", "issue_comment", "issue_comment.created.json", None, "_approve"),
        ("approve", "issue_comment", "issue_comment.created.json", "/averos plan", "_replan"),
        ("approve", "pull_request_review", "pull_request_review.submitted.json", None, "_approve"),
        ("apply", "push", "push.json", None, "_apply_merge"),
        ("apply", "workflow_dispatch", "workflow_dispatch.json", None, "_apply_dispatch"),
        ("apply", "issue_comment", "issue_comment.created.json", None, "_apply_on_approval"),
        ("auto", "issue_comment", "issue_comment.created.json", None, "_approve"),
        ("auto", "push", "push.json", None, "_apply_merge"),
        ("auto", "merge_group", "merge_group.checks_requested.json", None, "_check_merge_group"),
    ],
)
def test_each_command_and_event_takes_its_route(
    command: str, name: str, file: str, body: str | None, flow: str, tmp_path: Path
) -> None:
    taken = route(command, _event(name, file, tmp_path, body=body))  # type: ignore[arg-type]
    assert taken is not None and taken.flow.__name__ == flow


@pytest.mark.parametrize(
    ("command", "name", "file"),
    [("plan", "push", "push.json"), ("apply", "pull_request", "pull_request.opened.json")],
)
def test_a_command_refuses_an_event_it_has_no_route_for(
    command: str, name: str, file: str, tmp_path: Path
) -> None:
    assert route(command, _event(name, file, tmp_path)) is None  # type: ignore[arg-type]


def test_every_supported_event_has_an_auto_route_that_exists() -> None:
    """A new event is a row in the table: ``auto`` must reach a route for each."""
    for model in set(MODELS.values()):
        command = AUTO[model]  # type: ignore[index]
        assert any(r.event is model for r in ROUTES[command]), model


def test_the_commands_are_the_routes_the_jobs_and_auto() -> None:
    assert set(COMMANDS) == {*ROUTES, *JOBS, "auto"}


def test_an_unknown_command_is_an_input_error() -> None:
    with pytest.raises(InputError, match="unknown command 'deploy'") as info:
        run_github("deploy")
    assert info.value.exit_code == ExitCode.INVALID


def test_patch_enters_through_the_table(tmp_path: Path) -> None:
    """``patch`` is a route too: its own refusal (a token in the job) comes out of run_github."""
    environ = {
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(EVENTS / "pull_request.opened.json"),
        "GITHUB_REPOSITORY": "octo/app",
        "GITHUB_TOKEN": "ghs_not_for_the_patch_job",
    }
    with pytest.raises(TokenInPatchJob):
        run_github("patch", environ=environ, out=tmp_path / "out.json")
    assert not (tmp_path / "out.json").exists()
