"""The container tests' engine and image (see test_container_action.py's docstring)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from averos_ci.execute.adapters.angular.options import cache_root
from tests.conftest import REPO_ROOT, require_tool, unavailable
from tests.github.conftest import fake

__all__ = ["HOST_CACHE", "docker", "docker_host", "fake", "image"]

IMAGE = "averos-ci:container-test"
BASE = "averos-ci-base:bookworm"
# Resolved at import, with the real $HOME (each test gets an empty one).
HOST_CACHE = cache_root(None)
BASE_TARBALL = HOST_CACHE / "docker" / "bookworm-python.tar"


def docker(host: str, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DOCKER_HOST": host}
    return subprocess.run(["docker", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)  # fmt: skip


@pytest.fixture(scope="session")
def docker_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    require_tool("docker", install="apt-get install docker.io")
    configured = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    if docker(configured, "info", timeout=60).returncode == 0:  # a running engine (a CI runner)
        yield configured
        return
    require_tool("dockerd", install="apt-get install docker.io")
    if os.geteuid() != 0:
        unavailable("a private dockerd needs root (or set DOCKER_HOST to a running engine)")
    # A short path: the socket path must fit in sun_path (108 bytes).
    root = Path(tmp_path_factory.mktemp("dockerd"))
    host = f"unix://{root}/docker.sock"
    log = (root / "dockerd.log").open("wb")
    proc = subprocess.Popen(
        ["dockerd", "--iptables=false", "--ip6tables=false", "--bridge=none",
         "--storage-driver=vfs", "--data-root", str(root / "data"),
         "--exec-root", str(root / "exec"), "--pidfile", str(root / "dockerd.pid"),
         "--host", host],
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while docker(host, "info", timeout=30).returncode != 0:
            if proc.poll() is not None or time.monotonic() > deadline:
                text = (root / "dockerd.log").read_text(errors="replace")[-3000:]
                unavailable(f"dockerd did not start: {text}")
            time.sleep(0.5)
        yield host
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        # dockerd leaves its network namespace mounted under exec/: unmount before removal
        mounts = Path("/proc/self/mounts").read_text(encoding="utf-8").splitlines()
        for point in sorted((m.split()[1] for m in mounts if f" {root}/" in m), reverse=True):
            subprocess.run(["umount", "-l", point], capture_output=True, check=False)
        shutil.rmtree(root / "data", ignore_errors=True)  # vfs layers: a few GB


@pytest.fixture(scope="session")
def image(docker_host: str) -> str:
    if not BASE_TARBALL.is_file():
        require_tool("debootstrap", install="apt-get install debootstrap")
        made = subprocess.run(["bash", str(REPO_ROOT / ".ci" / "docker-base"), str(BASE_TARBALL)],
                              capture_output=True, text=True, timeout=1800)  # fmt: skip
        if made.returncode != 0:
            unavailable(f"the base image could not be made: {made.stderr[-3000:]}")
    # Imported once per tarball: a new import is a new parent image, which would void the
    # engine's build cache (the apt layer with Node.js takes minutes on vfs).
    stat = BASE_TARBALL.stat()
    base = f"{BASE}-{int(stat.st_mtime)}-{stat.st_size}"
    if docker(docker_host, "image", "inspect", base, timeout=60).returncode != 0:
        imported = docker(docker_host, "import", str(BASE_TARBALL), base)
        assert imported.returncode == 0, imported.stderr
    built = docker(docker_host, "build", "--network", "host", "--build-arg",
                   f"BASE_IMAGE={base}", "-t", IMAGE, str(REPO_ROOT), timeout=2400)  # fmt: skip
    assert built.returncode == 0, (built.stdout + built.stderr)[-4000:]
    return IMAGE
