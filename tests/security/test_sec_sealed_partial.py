"""The seal covers the partial workspace, file by file, not only the claim and checkpoints.

An interrupted apply leaves the files it generated under ``<project>/partial-workspace/``;
a re-run restores them into its checkout, and the commit-back may then commit them. With a
state key, a state-branch writer who changes a sealed file, adds one, or edits the list of
deletions gets the resume refused, naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import World, make_world
from tests.scenarios.github.test_gh_edges import WritingAdapter, run_in_process
from tests.security._attack import approved_merge, plant_on_state_branch
from tests.security.test_sec_claim_run import FAILING
from tests.security.test_sec_sealed_progress import KEY

pytestmark = pytest.mark.slow
PARTIAL = "default/partial-workspace"
GENERATED = f"{PARTIAL}/files/workspace/gen/application_ToDoApp.txt"


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write")
    w = make_world(tmp_path, fake)
    w.extra_env["AVEROS_CI_STATE_KEY"] = KEY
    return w


def interrupted(world: World, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> str:
    """An apply that generated files, then failed: its run id."""
    _, merge = approved_merge(world, fake)
    result, _ = run_in_process(world, monkeypatch, merge, WritingAdapter(fail_at=FAILING))
    assert getattr(result, "exit_code", None) == 1, str(result)
    assert world.last_run_id is not None
    files = world.state_files()
    assert GENERATED in files and f"{PARTIAL}/deleted.json" in files, sorted(files)
    return merge


TAMPERINGS = {
    "a sealed file changed": {GENERATED: "export const pwned = true;\n"},
    "a file added": {f"{PARTIAL}/files/workspace/src/backdoor.ts": "export const x = 1;\n"},
    "the deletions edited": {f"{PARTIAL}/deleted.json": '["todoapp.manifest.yaml"]\n'},
}


@pytest.mark.parametrize("tampering", sorted(TAMPERINGS))
def test_a_tampered_partial_workspace_is_not_resumed(
    world: World, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch, tampering: str
) -> None:
    merge = interrupted(world, fake, monkeypatch)
    run_id = world.last_run_id
    assert run_id is not None
    plant_on_state_branch(world, TAMPERINGS[tampering])
    r = world.run("push", world.push_event(merge), merge, rerun_of=run_id)
    out = r.stdout + r.stderr
    assert r.code == 1, out
    (path,) = TAMPERINGS[tampering]
    assert f"files differ from what was sealed ({path.removeprefix('default/')})" in out, out
    assert "resuming" not in out and "default/state.json" not in world.state_files(), out


def test_an_untouched_partial_workspace_is_restored(
    world: World, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    merge = interrupted(world, fake, monkeypatch)
    result, checkout = run_in_process(
        world, monkeypatch, merge, WritingAdapter(), rerun_of=world.last_run_id
    )
    assert getattr(result, "success", False), str(result)
    assert result.resumed
    assert (checkout / "workspace/gen/application_ToDoApp.txt").is_file()
