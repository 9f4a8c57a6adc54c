"""Averos's configs as its documentation writes them: string booleans and numbers (with a
located warning naming the canonical form), averosVersion/localTgz, the LLM keys."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from io import BytesIO
from pathlib import Path

import pytest

from averos_ci.config import CONFIG_FILE_NAME, load_config
from averos_ci.errors import ConfigError
from averos_ci.execute.adapters import adapter_options
from averos_ci.execute.adapters.angular.options import parse_options
from averos_ci.execute.adapters.angular.template.bootstrap import local_tarball
from tests.conftest import EXAMPLE_DIR

# The config of Averos's CLI README, with `development` as its docs write it.
AVEROS_DOC_CONFIG = """\
{
  "workspaceRoot":   "workspace",
  "manifestPath":    "todoapp.manifest.yaml",
  "mode":            "resilient",
  "timeoutMs":       "600000",
  "maxAttempts":     1,
  "statePath":       ".averos/state.json",
  "checkpointPath":  ".averos/checkpoints.json",
  "logsDir":         "logs",
  "localTgz":        "vendor/wiforge-averos-1.4.1.tgz",
  "averosVersion":   "1.4.1",
  "development":     "true",
  "llmProvider":     "ollama",
  "ollamaBaseUrl":   "http://192.168.1.50:11434",
  "ollamaModel":     "qwen2.5-coder:7b",
  "localLlmBaseUrl": "http://localhost:1234",
  "localLlmModel":   "qwen",
  "llmTimeoutMs":    300000
}
"""


def write(root: Path, text: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "todoapp.manifest.yaml").write_text((EXAMPLE_DIR / "todoapp.manifest.yaml").read_text())
    path = root / CONFIG_FILE_NAME
    path.write_text(text)
    return path


def test_averos_documented_config_loads_with_canonical_form_warnings(tmp_path: Path) -> None:
    path = write(tmp_path, AVEROS_DOC_CONFIG)
    cfg = load_config(path)
    assert cfg.development is True and cfg.timeout_ms == 600_000
    assert cfg.averos_version == "1.4.1"
    assert cfg.local_tgz == (tmp_path / "vendor/wiforge-averos-1.4.1.tgz").resolve()
    assert len(cfg.warnings) == 2  # no CFG-01 for the LLM keys
    timeout, development = cfg.warnings
    assert timeout.startswith(f"{path}:5:22: warning CFG-02 'timeoutMs'")
    assert '"timeoutMs": 600000' in timeout
    assert development.startswith(f"{path}:12:22: warning CFG-02 'development'")
    assert '"development": true' in development


def test_the_documented_config_runs_the_todo_example(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        AVEROS_DOC_CONFIG.replace('"llmTimeoutMs"', '"adapter": "mock",\n  "llmTimeoutMs"'),
    )
    proc = subprocess.run(
        [sys.executable, "-m", "averos_ci", "run", f"--config={path}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "CFG-02" in proc.stderr and "CFG-01" not in proc.stderr
    assert json.loads((tmp_path / "logs/summary.json").read_text())["succeeded"] == 33


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("development", '"yes"', "valid boolean"),
        ("development", '"True"', "valid boolean"),
        ("timeoutMs", '"10s"', "valid integer"),
        ("maxAttempts", '"-1"', "valid integer"),
        ("concurrency", '"2"', "valid integer"),  # not an Averos key: no string form
    ],
)
def test_other_strings_stay_errors(tmp_path: Path, key: str, value: str, message: str) -> None:
    path = write(tmp_path, f'{{\n  "{key}": {value}\n}}\n')
    with pytest.raises(ConfigError, match=message) as info:
        load_config(path)
    assert (info.value.line, info.value.column) == (2, len(key) + 7)


def test_averos_keys_reach_the_angular_adapter_and_adapter_options_win(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        json.dumps(
            {
                "adapter": "angular-schematics",
                "averosVersion": "1.4.0",
                "localTgz": "pkg.tgz",
                "adapterOptions": {"averosVersion": "1.4.1"},
            }
        ),
    )
    options = adapter_options(load_config(path))
    assert options == {"averosVersion": "1.4.1", "localTgz": str(tmp_path / "pkg.tgz")}
    assert parse_options(options).local_tgz == str(tmp_path / "pkg.tgz")


def pack(path: Path, name: str, version: str) -> Path:
    data = json.dumps({"name": name, "version": version}).encode()
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("package/package.json")
        info.size = len(data)
        tar.addfile(info, BytesIO(data))
    return path


def test_local_tgz_version_and_template_key(tmp_path: Path) -> None:
    from averos_ci.execute.adapters.angular.template.bootstrap import BootstrapSpec

    tgz = pack(tmp_path / "wiforge-averos-1.5.0.tgz", "@wiforge/averos", "1.5.0")
    options = parse_options({"localTgz": str(tgz)})
    tarball = local_tarball(options)
    assert tarball is not None and tarball.version == "1.5.0"
    spec = BootstrapSpec.from_options(options, app_name="ToDoApp", language="en")
    plain = BootstrapSpec.from_options(parse_options({}), app_name="ToDoApp", language="en")
    assert spec.averos_version == "1.5.0"
    assert spec.key_fields()["localTgz"] == tarball.sha256[:16]
    assert "localTgz" not in plain.key_fields()  # registry templates keep their keys
    rebuilt = pack(tmp_path / "other.tgz", "@wiforge/averos", "1.5.0")
    rebuilt.write_bytes(rebuilt.read_bytes() + b"\0" * 512)
    again = BootstrapSpec.from_options(
        parse_options({"localTgz": str(rebuilt)}), app_name="ToDoApp", language="en"
    )
    assert again.key_fields()["localTgz"] != spec.key_fields()["localTgz"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"localTgz": "{tgz}", "averosVersion": "1.4.1"}, "does not match"),
        ({"localTgz": "{other}"}, "not the collection"),
        ({"localTgz": "{missing}"}, "no such file"),
        ({"localTgz": "{garbage}"}, "not an npm package tarball"),
    ],
)
def test_local_tgz_errors(tmp_path: Path, options: dict[str, str], message: str) -> None:
    files = {
        "tgz": pack(tmp_path / "a.tgz", "@wiforge/averos", "1.5.0"),
        "other": pack(tmp_path / "b.tgz", "left-pad", "1.0.0"),
        "missing": tmp_path / "nope.tgz",
        "garbage": tmp_path / "garbage.tgz",
    }
    files["garbage"].write_bytes(b"not a tarball")
    resolved = {k: v.format(**{n: str(p) for n, p in files.items()}) for k, v in options.items()}
    with pytest.raises(ConfigError, match=message) as info:
        local_tarball(parse_options(resolved))
    assert info.value.hint
