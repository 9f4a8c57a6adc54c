"""The container tests' engine and image (see test_container_action.py's docstring)."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from averos_ci.execute.adapters.angular.options import cache_root
from tests.conftest import REPO_ROOT, require_tool, unavailable

__all__ = ["HOST_CACHE", "docker", "docker_host", "image"]

IMAGE = "averos-ci:container-test"
BASE_REPO = "averos-ci-base"
# Resolved at import, with the real $HOME (each test gets an empty one).
HOST_CACHE = cache_root(None)
BASE_TARBALL = HOST_CACHE / "docker" / "bookworm-python.tar"
# A private dockerd's data-root (data/), pidfile and lock, kept between runs: a warm run
# reuses the base import and the image's cached layers (the apt layer takes minutes on vfs).
ENGINE = HOST_CACHE / "docker" / "engine"
# The private dockerd's storage drivers, tried in this order. overlay2 shares the image's
# layers; vfs works everywhere but copies the whole image into every container and every
# build step. AVEROS_CI_DOCKER_STORAGE names one driver instead (the other is never tried).
STORAGE_DRIVERS = ("overlay2", "vfs")


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
    # Socket, exec-root and log in a short path: the socket path must fit in sun_path (108 bytes).
    run = Path(tmp_path_factory.mktemp("dockerd"))
    with _engine_home(run) as home, _dockerd(run, home) as host:
        yield host
        if home == ENGINE:
            _prune(host)


@contextmanager
def _engine_home(run: Path) -> Iterator[Path]:
    """The folder of the engine's data-root and pidfile: ENGINE, locked for the whole session
    (one dockerd per data-root), or a private one under `run` (deleted after) when another
    session holds ENGINE. Not waiting: the other session keeps it until its last test."""
    ENGINE.mkdir(parents=True, exist_ok=True)
    with (ENGINE / "lock").open("a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pass
        else:
            if not _alive(ENGINE / "dockerd.pid"):
                yield ENGINE
                return
            # else: the dockerd of a killed session still runs on it
    try:
        yield run
    finally:
        shutil.rmtree(run / "data", ignore_errors=True)  # the image's layers: a few GB


def _alive(pidfile: Path) -> bool:
    try:
        os.kill(int(pidfile.read_text(encoding="utf-8")), 0)
    except (FileNotFoundError, ValueError, ProcessLookupError):
        return False
    return True


@contextmanager
def _dockerd(run: Path, home: Path) -> Iterator[str]:
    """The first storage driver of STORAGE_DRIVERS with which dockerd starts and builds."""
    forced = os.environ.get("AVEROS_CI_DOCKER_STORAGE")
    failures: list[str] = []
    for driver in (forced,) if forced else STORAGE_DRIVERS:
        with _engine(run, home, driver) as host:
            if host is None or not _builds(host, run):
                failures.append(f"{driver}: {_log_tail(run, driver)}")
                continue
            if driver != "vfs":  # what an earlier run's vfs engine left: gigabytes
                shutil.rmtree(home / "data" / "vfs", ignore_errors=True)
                shutil.rmtree(home / "data" / "image" / "vfs", ignore_errors=True)
            yield host
            return
    unavailable("dockerd did not start with any storage driver:\n" + "\n".join(failures))


def _log_tail(run: Path, driver: str) -> str:
    return (run / f"dockerd-{driver}.log").read_text(errors="replace")[-1500:]


def _builds(host: str, run: Path) -> bool:
    """The driver makes a layer: a one-file image from scratch (a driver may start and still
    fail at its first mount, as overlay2 on some nested file systems)."""
    context = run / "probe"
    context.mkdir(exist_ok=True)
    (context / "Dockerfile").write_text("FROM scratch\nCOPY probe /probe\n", encoding="utf-8")
    (context / "probe").write_text("probe\n", encoding="utf-8")
    built = docker(host, "build", "-q", "-t", "averos-ci-probe:latest", str(context), timeout=120)
    docker(host, "image", "rm", "averos-ci-probe:latest", timeout=60)
    return built.returncode == 0


@contextmanager
def _engine(run: Path, home: Path, driver: str) -> Iterator[str | None]:
    """A dockerd on ``driver``: its host, or None when it did not start."""
    host = f"unix://{run}/docker.sock"
    (run / "docker.sock").unlink(missing_ok=True)  # an engine that did not start may leave it
    log = (run / f"dockerd-{driver}.log").open("wb")
    proc = subprocess.Popen(
        ["dockerd", "--iptables=false", "--ip6tables=false", "--bridge=none",
         f"--storage-driver={driver}", "--data-root", str(home / "data"),
         "--exec-root", str(run / "exec"), "--pidfile", str(home / "dockerd.pid"),
         "--host", host],
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while docker(host, "info", timeout=30).returncode != 0:
            if proc.poll() is not None or time.monotonic() > deadline:
                yield None
                return
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
        # dockerd leaves its network namespace mounted under exec/ (and container and layer
        # mounts under the data-root): unmount them before anything is removed or reused
        mounts = Path("/proc/self/mounts").read_text(encoding="utf-8").splitlines()
        points = (m.split()[1] for m in mounts if f" {run}/" in m or f" {home}/" in m)
        for point in sorted(points, reverse=True):
            subprocess.run(["umount", "-l", point], capture_output=True, check=False)


def _prune(host: str) -> None:
    """Keeps the persisted engine to the current base import and image (with the layers of
    its build cache): each run's new source layers would otherwise pile up."""
    bases = docker(host, "image", "ls", "--format", "{{.Repository}}:{{.Tag}}", BASE_REPO)
    keep = {_base_tag()} if BASE_TARBALL.is_file() else set()
    for tag in set(bases.stdout.split()) - keep:
        docker(host, "image", "rm", tag, timeout=600)
    docker(host, "container", "prune", "--force", timeout=600)
    pruned = docker(host, "image", "prune", "--force", timeout=1800)
    assert pruned.returncode == 0, pruned.stderr


def _base_tag() -> str:
    """The base image's tag, named after its tarball: imported once per tarball (a new import
    is a new parent image, which would void the engine's build cache)."""
    stat = BASE_TARBALL.stat()
    return f"{BASE_REPO}:bookworm-{int(stat.st_mtime)}-{stat.st_size}"


@pytest.fixture(scope="session")
def image(docker_host: str) -> str:
    if not BASE_TARBALL.is_file():
        require_tool("debootstrap", install="apt-get install debootstrap")
        made = subprocess.run(["bash", str(REPO_ROOT / ".ci" / "docker-base"), str(BASE_TARBALL)],
                              capture_output=True, text=True, timeout=1800)  # fmt: skip
        if made.returncode != 0:
            unavailable(f"the base image could not be made: {made.stderr[-3000:]}")
    base = _base_tag()
    if docker(docker_host, "image", "inspect", base, timeout=60).returncode != 0:
        imported = docker(docker_host, "import", str(BASE_TARBALL), base)
        assert imported.returncode == 0, imported.stderr
    built = docker(docker_host, "build", "--network", "host", "--build-arg",
                   f"BASE_IMAGE={base}", "-t", IMAGE, str(REPO_ROOT), timeout=2400)  # fmt: skip
    assert built.returncode == 0, (built.stdout + built.stderr)[-4000:]
    return IMAGE
