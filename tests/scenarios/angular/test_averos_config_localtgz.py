"""An Averos user's config, as the Averos documentation writes it, runs the ToDo example
with the real schematics; ``localTgz`` installs @wiforge/averos from an `npm pack` tarball
with the registry out of reach (and watched: it must not be asked at all)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from averos_ci.config import load_config
from averos_ci.planning import apply

pytestmark = [pytest.mark.angular, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "todoapp" / "todoapp.manifest.yaml"


@pytest.fixture
def watched_registry() -> Iterator[tuple[str, list[bytes]]]:
    """A 127.0.0.1 port that records every connection and answers none (npm's proxy)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    hits: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(1)
                try:
                    hits.append(conn.recv(200))
                except OSError:
                    hits.append(b"")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/", hits
    stop.set()
    server.close()
    thread.join(5)


def test_averos_documented_config_with_local_tgz(
    angular_template: Path,
    angular_env: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    watched_registry: tuple[str, list[bytes]],
) -> None:
    registry, hits = watched_registry
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(EXAMPLE, project / "todoapp.manifest.yaml")
    packed = subprocess.run(
        [
            "npm",
            "pack",
            "--ignore-scripts",
            str(angular_template / "node_modules" / "@wiforge" / "averos"),
        ],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
        env={
            **os.environ,
            "npm_config_cache": str(angular_env / "npm"),
            "npm_config_offline": "true",
        },
    )
    tarball = packed.stdout.strip().splitlines()[-1]
    assert tarball.endswith(".tgz") and (project / tarball).is_file()
    # The Averos CLI README's config, plus `development` written as its docs write it.
    (project / "averos.config.json").write_text(
        "{\n"
        '  "workspaceRoot": "workspace",\n'
        '  "manifestPath": "todoapp.manifest.yaml",\n'
        '  "mode": "resilient",\n'
        '  "timeoutMs": "1800000",\n'
        '  "maxAttempts": 1,\n'
        '  "statePath": ".averos/state.json",\n'
        '  "checkpointPath": ".averos/checkpoints.json",\n'
        '  "logsDir": "logs",\n'
        f'  "localTgz": "{tarball}",\n'
        '  "averosVersion": "1.4.1",\n'
        '  "development": "true",\n'
        '  "llmProvider": "ollama",\n'
        '  "ollamaBaseUrl": "http://192.168.1.50:11434",\n'
        '  "ollamaModel": "qwen2.5-coder:7b",\n'
        '  "adapter": "angular-schematics"\n'
        "}\n"
    )
    # npm's cache only (as `npm --offline`), and any request npm would still make goes to the
    # watching port (its cache is keyed by registry URL: the registry itself stays as it is).
    monkeypatch.setenv("npm_config_offline", "true")
    monkeypatch.setenv("npm_config_proxy", registry)
    monkeypatch.setenv("npm_config_https_proxy", registry)
    config = load_config(project / "averos.config.json")
    assert config.development is True and config.timeout_ms == 1_800_000
    assert [w.split(" warning ")[1][:6] for w in config.warnings] == ["CFG-02", "CFG-02"]

    outcome = apply(config)

    assert outcome.summary.success, outcome.summary.failures
    assert hits == [], "npm asked the network"
    ws = project / "workspace"
    package = json.loads((ws / "package.json").read_text())
    assert package["dependencies"]["@wiforge/averos"] == f"file:vendor/{tarball}"
    installed = json.loads((ws / "node_modules/@wiforge/averos/package.json").read_text())
    assert installed["version"] == "1.4.1"
    assert (ws / "src/app/model/to-do-area.ts").is_file()
    for name in ("execution-plan.json", "execution-log.jsonl", "summary.txt"):
        assert (project / "logs" / name).is_file()
