"""The pull request's plan checks the config as the apply's run will (issue 23): a config the
run would refuse fails the plan job (exit 2, located), so it is never approved and then
refused on merge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import make_world

pytestmark = pytest.mark.slow


def test_a_pull_request_whose_config_run_would_refuse_fails_its_plan(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    world = make_world(tmp_path, fake)
    config = json.loads((world.dev / "averos.config.json").read_text(encoding="utf-8"))
    config["adapter"] = "mok"
    text = json.dumps(config, indent=2) + "\n"
    head = world.commit("typo", {"averos.config.json": text}, "adapter typo")
    fake.add_pull(1, author="alice", head_sha=head, head_ref="typo")
    r = world.run("pull_request", world.pr_event("opened", 1), head)
    assert r.code == 2, r.stdout + r.stderr
    line = next(i for i, t in enumerate(text.splitlines(), 1) if '"adapter": "mok"' in t)
    assert f"averos.config.json:{line}:14: unknown adapter 'mok'" in r.stdout + r.stderr
    assert "did you mean 'mock'?" in r.stdout + r.stderr
    found = fake.latest_status(head)
    assert found is not None and found["state"] in {"failure", "error"}
    assert "unknown adapter 'mok'" in found["description"]
