"""What only a person can do in the repository's GitHub settings (``doctor`` checks it)."""

from __future__ import annotations

ENVIRONMENT = "averos-apply"
STATE_KEY_SECRET = "AVEROS_STATE_KEY"
STATE_BRANCH = "averos-state"
STATUS_CONTEXT = "averos-ci/plan"
APP_CLIENT_ID_SECRET = "AVEROS_APP_CLIENT_ID"  # the App that pushes the generated commit
APP_KEY_SECRET = "AVEROS_APP_PRIVATE_KEY"


def settings_checklist(*, branch: str) -> tuple[str, ...]:
    return (
        f"Settings → Environments → New environment '{ENVIRONMENT}'; under 'Deployment branches "
        f"and tags' choose 'Selected branches and tags' and add '{branch}' (pull-request and "
        "other branches must not read its secrets)",
        f"in that environment add the secret '{STATE_KEY_SECRET}' (a random value, e.g. the "
        'output of: python -c "import secrets; print(secrets.token_hex(32))"); it seals the '
        "apply's progress on the state branch",
        "Settings → Actions → General → Workflow permissions: tick 'Allow GitHub Actions to "
        "create and approve pull requests' (the apply opens a pull request with the generated "
        f"application when '{branch}' is protected)",
        f"Settings → Rules → Rulesets (or Branches): on '{branch}' require a pull request and "
        f"the status check '{STATUS_CONTEXT}'",
        f"the same for '{STATE_BRANCH}' but only block deletion and force pushes (averos-ci "
        "pushes state commits to it directly: no pull request or status check rule there)",
        "so that the generated application lands on the protected "
        f"'{branch}' with no extra pull request: create a GitHub App with the repository "
        "permission 'Contents: Read and write' only, install it on this repository, add it to "
        f"the bypass list of '{branch}''s ruleset (mode 'Always'), and in the "
        f"'{ENVIRONMENT}' environment add the secrets '{APP_CLIENT_ID_SECRET}' (its Client "
        f"ID) and '{APP_KEY_SECRET}' (its private key); see "
        "docs/how-to/protected-branches.md",
        "then check it all: GITHUB_TOKEN=<a token with admin read> averos-ci doctor",
    )
