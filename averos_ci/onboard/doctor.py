"""``averos-ci doctor``: a repository's setup checked through the REST API and its workflow
files. Exit 0 only when every check passed; a check the token may not read is "unknown" and
fails the run too unless ``allow_unknown`` (0 must never claim what was not verified)."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from averos_ci.config import CONFIG_FILE_NAME
from averos_ci.errors import InputError
from averos_ci.forge.api import GitHubClient
from averos_ci.forge.settings import load_settings
from averos_ci.onboard import checks
from averos_ci.onboard.bypass import app_bypass
from averos_ci.onboard.checks import Check, Setup, Status
from averos_ci.onboard.repo import default_branch, origin_slug, repository_root
from averos_ci.onboard.settings_api import SettingsReader

FORMAT_VERSION = 1
API_CHECKS = (
    checks.workflow_permissions,
    checks.default_branch_rules,
    app_bypass,
    checks.state_branch_rules,
    checks.apply_environment,
    checks.state_key_secret,
)


@dataclass(frozen=True)
class DoctorReport:
    repository: str
    branch: str
    checks: tuple[Check, ...]

    def exit_code(self, *, allow_unknown: bool = False) -> int:
        bad = {Status.FAIL} if allow_unknown else {Status.FAIL, Status.UNKNOWN}
        return 1 if any(c.status in bad for c in self.checks) else 0

    def to_json(self) -> str:
        data = {
            "formatVersion": FORMAT_VERSION,
            "repository": self.repository,
            "defaultBranch": self.branch,
            "passed": self.exit_code() == 0,
            "checks": [asdict(c) for c in self.checks],
        }
        return json.dumps(data, indent=2) + "\n"

    def to_text(self) -> str:
        out = [f"averos-ci doctor: {self.repository} (default branch '{self.branch}')"]
        for c in self.checks:
            out.append(f"  {c.status.value.upper():<8} {c.id}: {c.detail}")
            if c.fix and c.status is not Status.PASS:
                out.append(f"           fix: {c.fix}")
        counts = {s: sum(c.status is s for c in self.checks) for s in Status}
        out.append(
            f"{counts[Status.PASS]} passed, {counts[Status.FAIL]} failed, "
            f"{counts[Status.UNKNOWN]} cannot be checked with this token"
        )
        return "\n".join(out) + "\n"


def doctor(
    start: Path,
    *,
    token: str | None,
    repository: str | None = None,
    branch: str | None = None,
    api_url: str | None = None,
) -> DoctorReport:
    root = repository_root(start)
    repo = repository or os.environ.get("GITHUB_REPOSITORY") or origin_slug(root)
    if not repo:
        raise InputError(
            "cannot tell which GitHub repository to check ('origin' is not on github.com)",
            hint="pass --repo owner/name",
        )
    if not token:
        raise InputError(
            "no token: set GITHUB_TOKEN (or GH_TOKEN) to a token that may read the "
            "repository's settings",
            hint="a classic token with the 'repo' scope, or a fine-grained one with read "
            "access to Administration, Environments and Secrets",
        )
    setup = _setup(root, default_branch(root, branch))
    url = api_url or os.environ.get("GITHUB_API_URL") or "https://api.github.com"
    with GitHubClient(token=token, repository=repo, api_url=url) as client:
        api = SettingsReader(client)
        found = [check(api, setup) for check in API_CHECKS]
        found.append(checks.token_scopes(api, setup))
    found.append(checks.workflows(setup))
    return DoctorReport(repository=repo, branch=setup.branch, checks=tuple(found))


def _setup(root: Path, branch: str) -> Setup:
    """The state branch and status context of the root config (defaults without one)."""
    path = root / CONFIG_FILE_NAME
    raw: object = {}
    if path.is_file():
        try:
            raw = json.loads(path.read_text(encoding="utf-8")).get("github") or {}
        except (ValueError, AttributeError, UnicodeDecodeError):
            raw = {}
    settings, _ = load_settings(
        raw if isinstance(raw, dict) else {}, config_path=path, repo_root=root
    )
    return Setup(
        root=root,
        branch=branch,
        state_branch=settings.state_branch,
        status_context=settings.status_context,
    )
