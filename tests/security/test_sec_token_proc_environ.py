"""Finding 3 (Medium), as the attack: a child of the apply (an npm package, a schematic: here
``node -e``) walks ``/proc/<pid>/environ`` of itself and of every ancestor — the composite
action's shell step included — looking for the token. It must find it nowhere."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.github.gh_fake import TOKEN, FakeGitHub
from tests.github.gh_world import REPO_ROOT, World, make_world, manifest_variant

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc"),
]


STATE_KEY = "state-key-0123456789abcdef"
PUSH_TOKEN = "ghs_pushTOKENoftheAPP0123456789"


def action_run_script() -> str:
    action = YAML(typ="safe").load((REPO_ROOT / "action.yml").read_text(encoding="utf-8"))
    (step,) = [s for s in action["runs"]["steps"] if s.get("id") == "run"]
    return str(step["run"])


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    if shutil.which("node") is None:
        pytest.fail("node is needed to play the adapter's child process")
    fake.roles.update(alice="write", bob="write")
    return make_world(tmp_path, fake, fork_jobs=False)  # reads the /proc of its ancestors


def test_no_ancestor_of_an_adapter_child_holds_the_token(world: World, fake: FakeGitHub) -> None:
    config = json.loads((world.dev / "averos.config.json").read_text(encoding="utf-8"))
    config["listeners"] = ["tests.security.proc_probe:Probe"]
    head = world.commit(
        "feat1",
        {"todoapp.manifest.yaml": manifest_variant(1), "averos.config.json": json.dumps(config)},
        "one entry, with the probe",
    )
    fake.add_pull(1, author="alice", head_sha=head, head_ref="feat1")
    # the plan checks the config as the apply's run does, listeners included: every job of
    # this world can import the probe (in a real repository it is installed or in the tree)
    world.extra_env["PYTHONPATH"] = str(REPO_ROOT)
    assert world.run("pull_request", world.pr_event("opened", 1), head).code == 0
    ok = fake.add_comment(1, user="bob", body=world.approve_command(1))
    assert world.run("issue_comment", world.comment_event(1, ok), head).outputs["approved"]
    merge = world.merge("feat1")
    fake.merge(1, merge)

    # the apply job, run exactly as the composite action's step runs it: the runner starts
    # bash with the step's `env:` (GITHUB_TOKEN among it) on the step's script
    checkout = world.checkout(merge)
    env = world.job_env("push", world.push_event(merge), checkout, merge)
    runner = Path(env["RUNNER_TEMP"])
    tool = runner / "averos-ci-venv" / "bin" / "averos-ci"
    tool.parent.mkdir(parents=True)
    tool.write_text(
        f"#!{sys.executable}\nimport sys\nfrom averos_ci.cli import main\nsys.exit(main())\n",
        encoding="utf-8",
    )
    tool.chmod(0o755)
    script = runner / "step.sh"
    script.write_text(action_run_script(), encoding="utf-8")
    probe = runner / "probe.json"
    env.update(
        AVEROS_COMMAND="auto",
        AVEROS_CONFIG="",
        AVEROS_PROBE_OUT=str(probe),
        PYTHONPATH=str(REPO_ROOT),
        GITHUB_ACTIONS="true",
        AVEROS_CI_STATE_KEY=STATE_KEY,  # the state-key input: as secret as the token
        AVEROS_CI_PUSH_TOKEN=PUSH_TOKEN,  # the push-token input (the App's), likewise
    )
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "succeeded" in proc.stdout, proc.stdout

    seen = json.loads(probe.read_text(encoding="utf-8"))
    assert len(seen) >= 3, seen  # node, the averos-ci process, and what started it
    parent = seen[1]
    assert parent["environ"] is not None, parent  # readable: same user, as on a runner
    basic = base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
    holders = [
        (p["pid"], p["comm"])
        for p in seen
        if p["environ"] and any(s in p["environ"] for s in (TOKEN, basic, STATE_KEY, PUSH_TOKEN))
    ]
    assert holders == [], f"these processes hold the token in their environment: {holders}"
    # the token was used all the same (the API and the state branch push worked)
    assert any(r.path.endswith("/comments") and r.method == "POST" for r in fake.requests)
