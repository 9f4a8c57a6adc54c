"""The tutorial's GitHub steps (docs/tutorial/first-pull-request.md, steps 5 to 8) against
the fake GitHub API, so the first page a user follows cannot rot: a pull request gets the plan
comment and a pending status; a write user other than the author comments the approve line
the comment shows (the form step 6 quotes), which is acknowledged and turns the status green;
the merge applies; the state branch holds the state and a run record, which
``averos-ci state show`` (step 8) prints from a clone. The local steps run in
tests/docs/test_tutorial.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_steps import approve, merge_and_apply, open_pr, status, sticky
from tests.github.gh_world import make_world

TUTORIAL = REPO_ROOT / "docs" / "tutorial" / "first-pull-request.md"
APPROVE_LINE = re.compile(r"^/averos approve [0-9a-f]{12,}$", re.M)


def step(text: str, number: int) -> str:
    """The text of the tutorial's step ``number`` (its ``## N.`` section)."""
    start = text.index(f"\n## {number}. ")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def test_the_tutorials_pull_request_steps_run_against_the_api(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    text = TUTORIAL.read_text(encoding="utf-8")
    [shown] = APPROVE_LINE.findall(step(text, 6))  # the line step 6 tells the approver to write
    assert "pending" in step(text, 5) and "success" in step(text, 6)
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake)

    # 5. a pull request: the plan comment (with the line to copy) and a pending status
    head = open_pr(world, 1, "feat1", 1)
    body, _ = sticky(fake, 1)
    line = world.approve_command(1)
    assert APPROVE_LINE.fullmatch(line) and len(line) == len(shown)
    assert line in body
    assert status(fake, head)["state"] == "pending"

    # 6. bob (write, not the author, pushed nothing) comments that line: 👍 and success
    approve(world, 1, "bob", head)
    assert any(content == "+1" for _, content in fake.reactions)
    assert status(fake, head)["state"] == "success"

    # 7. the merge: the apply runs the approved plan and comments the result on the PR
    applied = merge_and_apply(world, "feat1", 1)
    assert applied.code == 0, applied.stdout + applied.stderr
    assert len(fake.bot_comments(1)) >= 2  # the plan comment and the result

    # 8. the state branch: the state and a run record, shown by `averos-ci state show`
    files = world.state_files()
    assert "default/state.json" in files
    assert any(p.startswith("default/runs/") for p in files)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    subprocess.run(["git", "pull", "-q", "origin", "main"], cwd=world.dev, check=True)
    shown = subprocess.run(
        [sys.executable, "-m", "averos_ci", "state", "show"],
        cwd=world.dev,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "state: serial 1" in shown.stdout and "pull request #1" in shown.stdout, shown.stdout
