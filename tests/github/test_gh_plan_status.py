"""The reason a failed plan puts on its ``averos-ci/plan`` status (one line, from the error)."""

from __future__ import annotations

from averos_ci.errors import ConfigError
from averos_ci.forge.api import GitHubAPIError
from averos_ci.manifest.issues import Issue, ManifestInvalid, Severity
from averos_ci.review.plan_status import failure_reason


def test_invalid_manifest_names_the_first_finding() -> None:
    issue = Issue(
        severity=Severity.ERROR,
        code="CON-02",
        message="entity name 'order' is not PascalCase",
        file="app.manifest.yaml",
        line=3,
        column=11,
        pointer="/entities/0/name",
    )
    reason = failure_reason(ManifestInvalid([issue]))
    assert reason.startswith("invalid manifest: app.manifest.yaml:3:11: error CON-02 ")
    assert "\n" not in reason


def test_user_errors_give_their_first_line_without_the_hint() -> None:
    exc = ConfigError("/github/x: bad", path="averos.config.json", hint="fix it")
    assert failure_reason(exc) == "plan failed: averos.config.json: /github/x: bad"
    assert failure_reason(GitHubAPIError("GET /x: 502", status=502)).startswith("plan failed: ")


def test_a_bug_is_an_internal_error_and_leaks_no_message() -> None:
    assert failure_reason(RuntimeError("secret detail")) == (
        "internal error (RuntimeError); see the job log"
    )
    assert failure_reason(KeyboardInterrupt()) == "plan interrupted"
