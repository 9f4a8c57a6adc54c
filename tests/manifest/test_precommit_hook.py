"""Issue 2: the ``averos-validate`` hook, run by the real pre-commit, the way a user runs it:
a ``.pre-commit-config.yaml`` naming this repository at a commit, then ``pre-commit run``.

The config pins ``rev`` to the committed HEAD (an immutable reference, as ``init`` writes a
release tag): the test checks the hook definition and the package exactly as they are
committed (in CI the two are the same). pre-commit installs the hook's environment once into
the session's ``PRE_COMMIT_HOME`` (shared with the conflict-markers hook test: the same
repository and rev) and reuses it for every run, as it does for a user;
pip's download cache is the averos-ci cache folder's (content-addressed: only downloads are
saved, every install is made anew).
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, git, pre_commit_env, unavailable
from tests.manifest.manifest_samples import GOOD_YAML

BAD_JSON = """\
{
  "applicationName": "ShopApp",
  "useCases": [{"name": "OrderCRUD", "ename": "Order", "useCaseType": "Everything"}]
}
"""


def _pre_commit_or_skip() -> list[str]:
    if importlib.util.find_spec("pre_commit") is None or shutil.which("git") is None:
        unavailable("pre-commit (a test extra) or git is not installed")
    if not (REPO_ROOT / ".git").exists():
        unavailable("the repository root is not a git checkout")
    return [sys.executable, "-m", "pre_commit"]


@pytest.mark.precommit
@pytest.mark.slow
def test_averos_validate_hook_with_real_pre_commit(
    git_dir: Path, tmp_path: Path, pre_commit_home: Path
) -> None:
    pre_commit = _pre_commit_or_skip()
    (git_dir / "app.manifest.yaml").write_text(GOOD_YAML)
    (git_dir / "bad.manifest.json").write_text(BAD_JSON)
    (git_dir / "notes.yaml").write_text("not: [a manifest\n")  # outside the hook's `files`
    (git_dir / "averos.config.json").write_text(  # a config typo plan refuses: so does the hook
        '{\n  "manifestPath": "app.manifest.yaml",\n  "adapter": "angular-schematic"\n}\n'
    )
    head = git(REPO_ROOT, "rev-parse", "HEAD").strip()
    (git_dir / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {REPO_ROOT}\n    rev: {head}\n"
        "    hooks:\n      - id: averos-validate\n",
        encoding="utf-8",
    )
    git(git_dir, "add", ".")
    git(git_dir, "commit", "-q", "-m", "manifests")
    # the session's store (shared with the conflict-markers hook test: one install)
    env = pre_commit_env(tmp_path / "cache", pre_commit_home)
    env.pop("GITHUB_ACTIONS", None)

    def run(*files: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*pre_commit, "run", "averos-validate", "--color", "never", "--files", *files],
            cwd=git_dir,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )

    good = run("app.manifest.yaml")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "validate Averos manifests" in good.stdout
    assert "Passed" in good.stdout

    bad = run("bad.manifest.json")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "Failed" in bad.stdout
    assert "bad.manifest.json:3:71: error CON-08 unknown useCaseType 'Everything'" in bad.stdout
    assert "Traceback" not in bad.stdout + bad.stderr

    config = run("averos.config.json")
    assert config.returncode == 1, config.stdout + config.stderr
    assert "unknown adapter 'angular-schematic'" in config.stdout
    assert "did you mean 'angular-schematics'?" in config.stdout

    skipped = run("notes.yaml")
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr
    assert "Skipped" in skipped.stdout
    # one store, one environment: pre-commit installed the hook once and reused it
    envs = list(pre_commit_home.glob("repo*/py_env-*"))
    assert len(envs) == 1, envs
