"""Finding 3 (Medium), as the attack: a child of the apply (an npm package, a schematic: here
``node -e``) walks ``/proc/<pid>/environ`` of itself and of every ancestor — the composite
action's shell step included — looking for the token. It must find it nowhere."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

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


BASIC = base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()  # git's header form
SECRETS = {"token": TOKEN, "token (basic auth)": BASIC, "state key": STATE_KEY,
           "push token": PUSH_TOKEN}  # fmt: skip


def holders(seen: list[dict[str, Any]]) -> list[tuple[int, str, str]]:
    """(pid, command, which secret) for every process whose environ holds a secret."""
    return [
        (p["pid"], p["comm"], name)
        for p in seen
        for name, secret in SECRETS.items()
        if p["environ"] and secret in p["environ"]
    ]


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
    found = holders(seen)
    assert found == [], f"these processes hold the token in their environment: {found}"
    # the token was used all the same (the API and the state branch push worked)
    assert any(r.path.endswith("/comments") and r.method == "POST" for r in fake.requests)


def test_control_the_probe_finds_a_secret_left_in_an_ancestors_environ(tmp_path: Path) -> None:
    """Positive control, modelled on test_sec_patch_job_token's: the same probe (the listener,
    its ``node -e`` child reading /proc) under a shell step that holds every secret in its
    environment, and a naive Python process that only deletes them from ``os.environ`` (not
    what averos-ci does: ``/proc/<pid>/environ`` keeps the environment a process started with,
    which is why averos-ci re-executes itself without them). The probe finds each secret in
    both; so the empty list above means no process held one, not a probe that cannot see."""
    if shutil.which("node") is None:
        pytest.fail("node is needed to play the adapter's child process")
    probe = tmp_path / "probe.json"
    held_vars = ("GITHUB_TOKEN", "GIT_CONFIG_VALUE_0", "AVEROS_CI_STATE_KEY")
    held_vars += ("AVEROS_CI_PUSH_TOKEN",)
    naive = (
        "import os\n"
        f"for name in {held_vars!r}:\n"
        "    del os.environ[name]\n"
        "from tests.security.proc_probe import Probe\n"
        "class Started:\n"
        "    type = 'NODE_STARTED'\n"
        "Probe().on_event(Started())\n"
    )
    step = tmp_path / "step.sh"
    step.write_text(f'"$PYTHON" {tmp_path / "naive.py"}\n', encoding="utf-8")
    (tmp_path / "naive.py").write_text(naive, encoding="utf-8")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": os.environ["HOME"],
        "PYTHON": sys.executable,
        "PYTHONPATH": str(REPO_ROOT),
        "AVEROS_PROBE_OUT": str(probe),
        "GITHUB_TOKEN": TOKEN,
        "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {BASIC}",
        "AVEROS_CI_STATE_KEY": STATE_KEY,
        "AVEROS_CI_PUSH_TOKEN": PUSH_TOKEN,
    }
    subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(step)],
        env=env,
        check=True,
        timeout=120,
        cwd=tmp_path,
    )
    seen = json.loads(probe.read_text(encoding="utf-8"))
    node, python, shell = seen[:3]
    assert node["comm"] == "node" and shell["comm"] == "bash", seen
    found = holders(seen)
    for process in (python, shell):
        held = sorted(name for pid, _, name in found if pid == process["pid"])
        assert held == sorted(SECRETS), (process["comm"], found)
    assert not [h for h in found if h[0] == node["pid"]], found  # node's own env: scrubbed
