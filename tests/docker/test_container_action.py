"""The Dockerfile, built and run the way GitHub runs a container action.

No image registry is needed: the base image is a Debian root filesystem made with debootstrap
(.ci/docker-base, cached under the averos-ci cache folder) and imported with ``docker
import``; the Dockerfile is built against it (its BASE_IMAGE build argument). A private
``dockerd`` (overlay2 storage where the machine allows it, else vfs; no bridge or iptables, its
own socket) runs for the session unless an
engine already answers (DOCKER_HOST, or the default socket); its data-root is kept under the
cache folder (conftest.py's ENGINE), so a warm run rebuilds only the layers whose input
changed. Builds and runs use the host network: the fake GitHub API listens on 127.0.0.1.

The run mirrors a container action step: the job's checkout mounted at /github/workspace (the
working directory), the event at /github/workflow/event.json, the output and job-summary
files under /github/file_commands, GITHUB_* variables pointing there.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from averos_ci.review.comment import PlanMeta
from tests.docker.conftest import docker
from tests.github.gh_fake import BOT, TOKEN, FakeGitHub
from tests.github.gh_world import World, make_world, manifest_variant

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_image_validates_a_manifest(docker_host: str, image: str, tmp_path: Path) -> None:
    (tmp_path / "m.manifest.yaml").write_text(manifest_variant(0), encoding="utf-8")
    r = docker(docker_host, "run", "--rm", "--network", "host", "-v", f"{tmp_path}:/work",
                "-w", "/work", image, "validate", "m.manifest.yaml")  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    assert "valid" in r.stderr


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write")
    return make_world(tmp_path, fake)


def test_container_action_plans_a_pull_request(
    docker_host: str, image: str, world: World, fake: FakeGitHub
) -> None:
    head = world.commit("feat", {"todoapp.manifest.yaml": manifest_variant(2)}, "add two")
    fake.add_pull(7, author="alice", head_sha=head)
    checkout = world.checkout(head)
    host_env = world.job_env("pull_request", world.pr_event("opened", 7), checkout, head)
    runner = Path(host_env["RUNNER_TEMP"])
    env = {
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": "/github/workflow/event.json",
        "GITHUB_REPOSITORY": fake.repo,
        "GITHUB_API_URL": fake.url,
        "GITHUB_SHA": head,
        "GITHUB_REF": "refs/pull/7/merge",
        "GITHUB_WORKSPACE": "/github/workspace",
        "GITHUB_OUTPUT": "/github/file_commands/output",
        "GITHUB_STEP_SUMMARY": "/github/file_commands/summary",
        "GITHUB_RUN_ID": "1",
        "RUNNER_TEMP": "/github/runner_temp",
        "HOME": "/github/home",
        "GITHUB_TOKEN": TOKEN,
    }
    (runner / "home").mkdir()
    (runner / "temp").mkdir()
    args = ["run", "--rm", "--network", "host", "--workdir", "/github/workspace"]
    args += ["-v", f"{checkout}:/github/workspace", "-v", f"{runner}:/github/workflow",
             "-v", f"{runner}:/github/file_commands", "-v", f"{runner / 'home'}:/github/home",
             "-v", f"{runner / 'temp'}:/github/runner_temp",
             # the job's origin remote is a local bare repository: same path inside
             "-v", f"{world.origin}:{world.origin}"]  # fmt: skip
    for key in env:
        args += ["-e", key]  # values from the environment: the token is not on a command line
    r = subprocess.run(["docker", *args, image, "github", "plan"],
                       env={**os.environ, **env, "DOCKER_HOST": docker_host},
                       capture_output=True, text=True, timeout=600)  # fmt: skip
    log = r.stdout + r.stderr
    assert r.returncode == 0, log[-4000:]
    # the runner hides the token GitHub's way (add-mask); it is printed nowhere else
    assert TOKEN not in "\n".join(x for x in log.splitlines() if not x.startswith("::add-mask::"))
    comments = [c for c in fake.bot_comments(7) if "averos-ci:plan" in str(c["body"])]
    assert len(comments) == 1 and comments[0]["user"]["login"] == BOT
    meta = PlanMeta.decode(str(comments[0]["body"]))
    assert meta is not None and meta.head_sha == head and meta.has_changes
    assert fake.latest_status(head)["state"] == "pending"  # type: ignore[index]
    outputs = dict(
        line.split("=", 1)
        for line in (runner / "output").read_text(encoding="utf-8").splitlines()
        if "=" in line
    )
    assert outputs["plan-hash"] == meta.plan_hash and outputs["has-changes"] == "true"
    summary = (runner / "summary").read_text(encoding="utf-8")
    assert meta.plan_hash in summary and TOKEN not in summary
