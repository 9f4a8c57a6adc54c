"""action.yml and the workflows against GitHub's schemas, and zizmor's security audits."""

from __future__ import annotations

import subprocess

from tests.conftest import require_tool
from tests.github.gh_world import REPO_ROOT

WORKFLOWS = sorted(
    [*REPO_ROOT.glob("examples/workflows/*.yml"), *REPO_ROOT.glob(".github/workflows/*.yml")]
)


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)


def test_action_and_workflows_match_the_schemas() -> None:
    require_tool("check-jsonschema", install="a test extra: pip install -e '.[test]'")
    r = _run("check-jsonschema", "--builtin-schema", "vendor.github-actions", "action.yml")
    assert r.returncode == 0, r.stdout + r.stderr
    r = _run(
        "check-jsonschema", "--builtin-schema", "vendor.github-workflows", *map(str, WORKFLOWS)
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_zizmor_offline_is_clean() -> None:
    require_tool("zizmor", install="a test extra: pip install -e '.[test]'")
    r = _run("zizmor", "--offline", "--no-progress", "action.yml", *map(str, WORKFLOWS))
    assert r.returncode == 0, r.stdout + r.stderr


def test_action_passes_inputs_through_env_only() -> None:
    text = (REPO_ROOT / "action.yml").read_text(encoding="utf-8")
    for block in text.split("run: |")[1:]:
        script = block.split("\n    - ")[0]
        assert "${{" not in script, script
    assert "default: ${{ github.token }}" in text
    docker = (REPO_ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert 'ENTRYPOINT ["averos-ci"]' in docker and "safe.directory" in docker
    assert "\nUSER " not in docker and "\nWORKDIR " not in docker
