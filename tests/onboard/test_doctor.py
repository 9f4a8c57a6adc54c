"""``averos-ci doctor`` against a fake of GitHub's settings endpoints: one test per check, each
with the setting broken and fixed (and, where the token may not read it, unknown)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from averos_ci.onboard import init_repository
from averos_ci.onboard.checks import Status
from averos_ci.onboard.doctor import DoctorReport, doctor
from tests.onboard.settings_fake import (
    HIDDEN,
    REPO,
    TOKEN,
    Settings,
    SettingsFake,
    app_actor,
    classic_protection,
    environment,
    pull_request_rule,
    rule,
    ruleset,
    status_rule,
)

CUSTOM = {"protected_branches": False, "custom_branch_policies": True}


def healthy() -> Settings:
    return Settings(
        can_approve_prs=True,
        rules={
            "main": [pull_request_rule(), status_rule("averos-ci/plan")],
            "averos-state": [rule("deletion"), rule("non_fast_forward")],
        },
        environment=environment(CUSTOM),
        branch_policies=["main"],
        environment_secrets=["AVEROS_STATE_KEY"],
        rulesets={7: ruleset(bypass=[app_actor()])},
    )


@pytest.fixture
def setup_repo(repo: Path) -> Path:
    init_repository(repo, action_repo="acme/averos-ci", adapter="mock")
    return repo


def run(repo: Path, fake: SettingsFake, settings: Settings) -> DoctorReport:
    fake.settings = settings
    return doctor(repo, token=TOKEN, repository=REPO, api_url=fake.url)


def status_of(report: DoctorReport, check_id: str) -> Status:
    return next(c.status for c in report.checks if c.id == check_id)


def test_a_healthy_setup_passes_every_check(setup_repo: Path, settings_fake: SettingsFake) -> None:
    report = run(setup_repo, settings_fake, healthy())
    assert [c.status for c in report.checks] == [Status.PASS] * 8, report.to_text()
    assert report.exit_code() == 0


def test_workflow_permissions(setup_repo: Path, settings_fake: SettingsFake) -> None:
    broken = healthy()
    broken.can_approve_prs = False
    report = run(setup_repo, settings_fake, broken)
    check = next(c for c in report.checks if c.id == "workflow-permissions")
    assert check.status is Status.FAIL and "Allow GitHub Actions to create" in check.fix
    broken.can_approve_prs = HIDDEN
    check = next(c for c in run(setup_repo, settings_fake, broken).checks)
    assert check.status is Status.UNKNOWN and "cannot check (HTTP 403" in check.detail
    assert "verify by hand" in check.detail
    assert status_of(run(setup_repo, settings_fake, healthy()), "workflow-permissions") == "pass"


def test_default_branch_rules(setup_repo: Path, settings_fake: SettingsFake) -> None:
    broken = healthy()
    broken.rules["main"] = [pull_request_rule(), status_rule("ci/tests")]  # not averos-ci/plan
    assert status_of(run(setup_repo, settings_fake, broken), "default-branch") is Status.FAIL
    broken.protection["main"] = HIDDEN  # classic protection may require it: cannot tell
    assert status_of(run(setup_repo, settings_fake, broken), "default-branch") is Status.UNKNOWN
    fixed = healthy()  # through classic branch protection instead of a ruleset
    fixed.rules["main"] = []
    fixed.protection["main"] = classic_protection(
        required_status_checks={
            "strict": False,
            "contexts": ["averos-ci/plan"],
            "checks": [{"context": "averos-ci/plan", "app_id": None}],
        },
        required_pull_request_reviews={
            "dismiss_stale_reviews": True,
            "require_code_owner_reviews": False,
            "required_approving_review_count": 1,
        },
    )
    assert status_of(run(setup_repo, settings_fake, fixed), "default-branch") is Status.PASS


def test_app_bypass(setup_repo: Path, settings_fake: SettingsFake) -> None:
    broken = healthy()
    broken.rulesets[7] = ruleset(bypass=[])  # nobody may push the generated commit
    report = run(setup_repo, settings_fake, broken)
    check = next(c for c in report.checks if c.id == "app-bypass")
    assert check.status is Status.FAIL and "'protect main'" in check.detail
    assert "Bypass list" in check.fix and "protected-branches.md" in check.fix
    broken.rulesets[7] = ruleset(bypass=[app_actor("pull_request")])  # only when merging PRs
    assert status_of(run(setup_repo, settings_fake, broken), "app-bypass") is Status.FAIL
    broken.rulesets[7] = ruleset(bypass=None)  # the list is shown to admins only
    check = next(c for c in run(setup_repo, settings_fake, broken).checks if c.id == "app-bypass")
    assert check.status is Status.UNKNOWN and "verify by hand" in check.detail
    broken.rulesets[7] = HIDDEN
    check = next(c for c in run(setup_repo, settings_fake, broken).checks if c.id == "app-bypass")
    assert check.status is Status.UNKNOWN and "cannot check (HTTP 403" in check.detail
    classic = healthy()  # classic protection: no App gets through its required checks
    classic.protection["main"] = classic_protection(
        required_status_checks={"strict": False, "contexts": ["averos-ci/plan"], "checks": []}
    )
    check = next(c for c in run(setup_repo, settings_fake, classic).checks if c.id == "app-bypass")
    assert check.status is Status.FAIL and "ruleset" in check.fix
    fixed = run(setup_repo, settings_fake, healthy())
    assert status_of(fixed, "app-bypass") is Status.PASS
    asked = [path for _, path, *_ in settings_fake.exchanges]
    assert f"/repos/{REPO}/rulesets/7" in asked and f"/repos/{REPO}/rules/branches/main" in asked


def test_state_branch_rules(setup_repo: Path, settings_fake: SettingsFake) -> None:
    broken = healthy()
    broken.rules["averos-state"] = [pull_request_rule(), rule("deletion")]
    report = run(setup_repo, settings_fake, broken)
    check = next(c for c in report.checks if c.id == "state-branch")
    assert check.status is Status.FAIL and "pull_request" in check.detail
    broken.rules["averos-state"] = []  # nothing stops a deletion or a force push
    assert status_of(run(setup_repo, settings_fake, broken), "state-branch") is Status.FAIL
    assert status_of(run(setup_repo, settings_fake, healthy()), "state-branch") is Status.PASS


def test_apply_environment(setup_repo: Path, settings_fake: SettingsFake) -> None:
    broken = healthy()
    broken.environment = None
    assert status_of(run(setup_repo, settings_fake, broken), "apply-environment") is Status.FAIL
    broken.environment = environment(None)  # every branch may deploy
    assert status_of(run(setup_repo, settings_fake, broken), "apply-environment") is Status.FAIL
    broken.environment = environment(CUSTOM)
    broken.branch_policies = ["*"]
    assert status_of(run(setup_repo, settings_fake, broken), "apply-environment") is Status.FAIL
    broken.environment = HIDDEN
    assert status_of(run(setup_repo, settings_fake, broken), "apply-environment") == "unknown"
    assert status_of(run(setup_repo, settings_fake, healthy()), "apply-environment") == "pass"


def test_state_key_secret(setup_repo: Path, settings_fake: SettingsFake) -> None:
    broken = healthy()
    broken.environment_secrets = []
    broken.repository_secrets = ["AVEROS_STATE_KEY"]  # every branch's workflow reads it
    report = run(setup_repo, settings_fake, broken)
    check = next(c for c in report.checks if c.id == "state-key")
    assert check.status is Status.FAIL and "repository secret" in check.detail
    broken.repository_secrets = []
    assert status_of(run(setup_repo, settings_fake, broken), "state-key") is Status.FAIL
    assert status_of(run(setup_repo, settings_fake, healthy()), "state-key") is Status.PASS


def test_token_scopes(setup_repo: Path, settings_fake: SettingsFake) -> None:
    broken = healthy()
    broken.scopes = "read:org"
    assert status_of(run(setup_repo, settings_fake, broken), "token-scopes") is Status.FAIL
    broken.scopes = None  # GITHUB_TOKEN and fine-grained tokens send no X-OAuth-Scopes
    report = run(setup_repo, settings_fake, broken)
    assert status_of(report, "token-scopes") is Status.UNKNOWN
    assert report.exit_code() == 1 and report.exit_code(allow_unknown=True) == 0
    assert status_of(run(setup_repo, settings_fake, healthy()), "token-scopes") is Status.PASS


def test_workflows(setup_repo: Path, settings_fake: SettingsFake) -> None:
    apply = setup_repo / ".github" / "workflows" / "averos-apply.yml"
    text = apply.read_text(encoding="utf-8")
    apply.write_text(text.replace("fetch-depth: 0", "fetch-depth: 1"), encoding="utf-8")
    report = run(setup_repo, settings_fake, healthy())
    check = next(c for c in report.checks if c.id == "workflows")
    assert check.status is Status.FAIL and "fetch-depth: 0" in check.detail
    apply.write_text(text.replace("statuses: write", "statuses: read"), encoding="utf-8")
    check = next(c for c in run(setup_repo, settings_fake, healthy()).checks if c.id == "workflows")
    assert check.status is Status.FAIL and "statuses: write" in check.detail
    apply.unlink()
    check = next(c for c in run(setup_repo, settings_fake, healthy()).checks if c.id == "workflows")
    assert check.status is Status.FAIL and "no workflow runs apply" in check.detail
    apply.write_text(text, encoding="utf-8")
    assert status_of(run(setup_repo, settings_fake, healthy()), "workflows") is Status.PASS
    # the workflows copied without the local action they run
    local = setup_repo / ".github" / "actions" / "averos-ci" / "action.yml"
    pin = local.read_text(encoding="utf-8")
    local.unlink()
    check = next(c for c in run(setup_repo, settings_fake, healthy()).checks if c.id == "workflows")
    assert check.status is Status.FAIL  # for each of the five workflows init wrote
    assert check.detail.count(".github/actions/averos-ci/action.yml is missing") == 5, check.detail
    local.write_text(pin, encoding="utf-8")
    assert status_of(run(setup_repo, settings_fake, healthy()), "workflows") is Status.PASS


def test_cli_exit_codes_json_and_no_token_printed(
    setup_repo: Path,
    settings_fake: SettingsFake,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(setup_repo)
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GH_TOKEN", raising=False)
    args = ["doctor", "--repo", REPO, "--api-url", settings_fake.url]
    assert run_cli(args) == 2  # no token
    assert "GITHUB_TOKEN" in capsys.readouterr().err
    monkeypatch.setenv("GH_TOKEN", TOKEN)
    assert run_cli(["doctor", "--api-url", settings_fake.url]) == 2  # origin is not on GitHub
    assert "hint: pass --repo owner/name" in capsys.readouterr().err
    monkeypatch.delenv("GH_TOKEN")
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    settings_fake.settings = healthy()
    assert run_cli([*args, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] is True and data["formatVersion"] == 1 and len(data["checks"]) == 8
    settings_fake.settings.scopes = None
    assert run_cli(args) == 1
    out = capsys.readouterr().out
    assert "UNKNOWN" in out and "cannot be checked" in out and TOKEN not in out
    assert run_cli([*args, "--allow-unknown"]) == 0
    settings_fake.settings.can_approve_prs = False
    assert run_cli([*args, "--allow-unknown"]) == 1
    assert "fix: Settings → Actions" in capsys.readouterr().out


def test_a_rate_limited_403_is_an_error_not_an_unknown(
    setup_repo: Path, settings_fake: SettingsFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    from averos_ci.forge.api import GitHubAPIError

    settings_fake.settings = healthy()
    original = settings_fake._route

    def limited(method: str, path: str) -> tuple[int, object]:
        if path.endswith("/actions/permissions/workflow"):
            settings_fake.extra_headers = {"X-RateLimit-Remaining": "0"}
            return 403, {"message": "API rate limit exceeded", "documentation_url": "x"}
        return original(method, path)

    monkeypatch.setattr(settings_fake, "_route", limited)
    with pytest.raises(GitHubAPIError, match="rate limited"):
        doctor(setup_repo, token=TOKEN, repository=REPO, api_url=settings_fake.url)
