"""A config-only change is shown to the reviewer. The plan's ``execution`` part (adapter,
adapterOptions, workspaceRoot …) is in the planHash, so a pull request that points
``adapterOptions.registry`` elsewhere voids earlier approvals. The reviewer who approves the
new plan must see what changed, key by key, against the base branch's config. Escape the
values: they come from the PR."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import World, make_world, manifest_variant

pytestmark = pytest.mark.slow
A, B = "https://registry-a.example/npm/", "https://registry-b.example/npm/"


def config(world: World, **options: Any) -> str:
    data = json.loads((world.dev / "averos.config.json").read_text(encoding="utf-8"))
    data.update(adapter="angular-schematics", adapterOptions=options)
    return json.dumps(data, indent=2) + "\n"


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write")
    w = make_world(tmp_path, fake)
    fake.base_sha = w.commit("main", {"averos.config.json": config(w, registry=A)}, "registry A")
    return w


def plan_comment(world: World, fake: FakeGitHub, number: int, head: str) -> tuple[str, str]:
    r = world.run("pull_request", world.pr_event("opened", number), head)
    assert r.code == 0, r.stdout + r.stderr
    (body,) = [str(c["body"]) for c in fake.bot_comments(number) if "averos-ci:plan" in c["body"]]
    return body, r.summary


def test_a_registry_change_is_shown_in_the_plan_comment(world: World, fake: FakeGitHub) -> None:
    evil = "`x` | [click](https://evil.example) @org/team"
    head = world.commit(
        "feat1",
        {"averos.config.json": config(world, registry=B, collection=evil)},
        "point the registry elsewhere",
    )
    fake.add_pull(1, author="alice", head_sha=head, head_ref="feat1")
    body, summary = plan_comment(world, fake, 1, head)
    assert "Execution settings differ from the base branch" in body, body
    change = f"- `adapterOptions.registry`: `{A}` → `{B}`"
    assert change in body and change in summary, body
    assert "- `adapterOptions.collection`: _unset_ → \\`x\\` \\|" in body, body
    assert "[click](" not in body and "@org" not in body  # escaped, no link, no ping
    assert "| `adapter` | `angular-schematics` |" in body, body


def test_an_unchanged_config_shows_the_settings_only(world: World, fake: FakeGitHub) -> None:
    head = world.commit("feat2", {"todoapp.manifest.yaml": manifest_variant(1)}, "one entry")
    fake.add_pull(2, author="alice", head_sha=head, head_ref="feat2")
    body, _ = plan_comment(world, fake, 2, head)
    assert "differ from the base branch" not in body, body
    assert f"| `adapterOptions.registry` | `{A}` |" in body, body
