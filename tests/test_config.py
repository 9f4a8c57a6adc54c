"""``averos.config.json``: unknown keys warn, wrong types fail with a location, paths resolve
against the config file's directory; CLI flags win."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from averos_ci.config import CONFIG_FILE_NAME, load_config
from averos_ci.errors import ConfigError
from tests.conftest import EXAMPLE_DIR

EXAMPLE_MANIFEST = EXAMPLE_DIR / "todoapp.manifest.yaml"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "app").mkdir(parents=True)
    (root / "app" / "todo.manifest.yaml").write_text(EXAMPLE_MANIFEST.read_text())
    return root


def write_config(root: Path, text: str) -> Path:
    path = root / CONFIG_FILE_NAME
    path.write_text(text)
    return path


def test_relative_paths_resolve_against_the_config_directory(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_config(
        project,
        json.dumps(
            {
                "manifestPath": "app/todo.manifest.yaml",
                "statePath": "../shared/state.json",
                "logsDir": "logs",
                "workspaceRoot": ".",
                "checkpointPath": "/abs/checkpoints.json",
            }
        ),
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    cfg = load_config(config)
    assert cfg.manifest_path == (project / "app" / "todo.manifest.yaml").resolve()
    assert cfg.state_path == (tmp_path / "shared" / "state.json").resolve()
    assert cfg.logs_dir == (project / "logs").resolve()
    assert cfg.workspace_root == project.resolve()
    assert cfg.checkpoint_path == Path("/abs/checkpoints.json")
    assert cfg.config_path == config.resolve()
    assert cfg.warnings == ()


def test_defaults_are_relative_to_the_config_directory(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_config(project, "{}")
    monkeypatch.chdir(tmp_path)
    cfg = load_config(config)
    assert cfg.state_path == project.resolve() / ".averos" / "state.json"
    assert cfg.workspace_root == project.resolve() / "app"  # a subfolder, never the root
    assert cfg.max_attempts == 1
    assert cfg.mode.value == "strict"


def test_example_config_loads() -> None:
    cfg = load_config(EXAMPLE_DIR / "averos.config.json")
    assert cfg.manifest_path == EXAMPLE_MANIFEST.resolve()
    assert cfg.max_attempts == 2
    assert cfg.timeout_ms == 1_800_000
    assert cfg.warnings == ()


def test_cli_flags_win_and_resolve_against_cwd(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_config(project, json.dumps({"manifestPath": "app/todo.manifest.yaml"}))
    monkeypatch.chdir(tmp_path)
    cfg = load_config(config).with_overrides(manifest_path=Path("other.yaml"), state_path=None)
    assert cfg.manifest_path == (tmp_path / "other.yaml").resolve()
    assert cfg.state_path == project.resolve() / ".averos" / "state.json"


def test_config_manifest_is_used_by_plan(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = write_config(
        project,
        json.dumps({"manifestPath": "app/todo.manifest.yaml", "statePath": "state/none.json"}),
    )
    monkeypatch.chdir(tmp_path)
    assert run_cli(["plan", "--config", str(config), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["applicationName"] == "ToDoApp"
    monkeypatch.chdir(project)  # found in CWD without --config
    assert run_cli(["plan", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["applicationName"] == "ToDoApp"


def test_unknown_key_is_a_located_warning(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(
        project, '{\n  "manifestPath": "app/todo.manifest.yaml",\n  "colour": "blue"\n}\n'
    )
    cfg = load_config(config)
    assert cfg.warnings == (f"{config.resolve()}:3:3: warning CFG-01 unknown config key 'colour'",)
    assert run_cli(["plan", "--config", str(config)]) == 0
    out, err = capsys.readouterr()
    assert f"{config.resolve()}:3:3: warning CFG-01 unknown config key 'colour'" in err
    assert "planHash" in out


@pytest.mark.parametrize(
    ("key", "meant"),
    [("maxAtempts", "maxAttempts"), ("adpter", "adapter"), ("manifestPth", "manifestPath")],
)
def test_a_misspelt_key_is_a_located_error(
    project: Path, key: str, meant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ignoring a near miss of a known key would silently change what runs (issue 23)."""
    config = write_config(
        project, f'{{\n  "manifestPath": "app/todo.manifest.yaml",\n  "{key}": "x"\n}}\n'
    )
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    assert caught.value.location == f"{config.resolve()}:3:3"
    assert run_cli(["plan", "--config", str(config)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"error: {config.resolve()}:3:3: unknown config key {key!r}\n")
    assert f"hint: did you mean {meant!r}?" in err


@pytest.mark.parametrize(
    ("text", "line", "col", "pointer"),
    [
        ('{\n  "maxAttempts": "three"\n}\n', 2, 18, "/maxAttempts"),
        ('{\n  "mode": "sometimes"\n}\n', 2, 11, "/mode"),
        ('{\n  "timeoutMs": 0\n}\n', 2, 16, "/timeoutMs"),
        ('{\n  "maxAttempts": 1000\n}\n', 2, 18, "/maxAttempts"),
        ('{\n  "adapterOptions": [1]\n}\n', 2, 21, "/adapterOptions"),
        ('{"manifestPath": 7}', 1, 18, "/manifestPath"),
    ],
    ids=["int-as-word", "mode", "timeout-zero", "attempts-too-many", "options-list", "path-number"],
)
def test_wrong_type_exits_2_with_location(
    project: Path, capsys: pytest.CaptureFixture[str], text: str, line: int, col: int, pointer: str
) -> None:
    config = write_config(project, text)
    with pytest.raises(ConfigError) as info:
        load_config(config)
    assert (info.value.line, info.value.column) == (line, col)
    assert info.value.message.startswith(f"{pointer}: ")
    assert run_cli(["plan", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {config.resolve()}:{line}:{col}: {pointer}: ")
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"{", "invalid JSON"),
        (b"[]", "must be a mapping"),
        (b"", "empty"),
        (b'{"a": 1, "a": 2}', "duplicate key"),
        (b"\xff", "UTF-8"),
    ],
    ids=["syntax", "list", "empty", "duplicate", "binary"],
)
def test_unreadable_config_exits_2(
    project: Path, capsys: pytest.CaptureFixture[str], content: bytes, words: str
) -> None:
    config = project / CONFIG_FILE_NAME
    config.write_bytes(content)
    assert run_cli(["plan", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {config.resolve()}")
    assert words in err


def test_missing_explicit_config_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.json"
    assert run_cli(["plan", "--config", str(missing)]) == 2
    assert f"error: {missing}" in capsys.readouterr().err


def test_another_adapter_on_the_command_line_gets_no_adapter_options() -> None:
    """``--adapter mock`` on the example (whose options are angular-schematics'): the mock
    does not receive ``templateCache``; the same adapter keeps the file's options."""
    cfg = load_config(EXAMPLE_DIR / "averos.config.json")
    assert cfg.adapter_options == {"templateCache": True}
    assert cfg.with_overrides(adapter="mock").adapter_options == {}
    assert cfg.with_overrides(adapter="angular-schematics").adapter_options == {
        "templateCache": True
    }
