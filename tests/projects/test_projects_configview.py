"""Discovery's view of a config agrees with `load_config`, the one loader, on every shape:
the ordinary file it reads itself and the unusual ones it hands over."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from averos_ci.config import load_config
from averos_ci.errors import AverosCIError
from averos_ci.projects.configview import _from_run_config, config_view

CASES = {
    "defaults": {},
    "ordinary": {"adapter": "mock", "manifestPath": "m.yaml", "workspaceRoot": "generated"},
    "every folder": {"workspaceRoot": "w", "logsDir": "l/x", "statePath": "s/state.json"},
    "dots": {"workspaceRoot": "./a/../b/./c", "manifestPath": "../outside.yaml"},
    "absolute": {"workspaceRoot": "/tmp/averos-abs-ws", "statePath": "/x/y/s.json"},
    "through a symlink": {"workspaceRoot": "link/app", "manifestPath": "link/../m.yaml"},
    "github settings": {"github": {"project": "admin", "stateBranch": "s"}},
    "Averos string forms": {"development": "true", "maxAttempts": "3", "workspaceRoot": "g"},
    "unknown key": {"description": "shared with another tool", "workspaceRoot": "g"},
    "averos-only key": {"llmProvider": "ollama"},
    "sensitive rules": {"sensitive": ["entity:*/token"]},
    "local tarball": {"localTgz": "averos.tgz"},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_view_equals_the_one_loader(tmp_path: Path, case: str) -> None:
    home = tmp_path / "apps" / "a"
    home.mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (home / "link").symlink_to(tmp_path / "elsewhere")
    path = home / "averos.config.json"
    path.write_text(json.dumps(CASES[case]), encoding="utf-8")
    view = config_view(os.path.realpath(path))
    assert view == _from_run_config(load_config(path))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"maxAttempts": 0}', "maxAttempts"),
        ('{"adpter": "mock"}', "unknown config key 'adpter'"),
        ('{"a": 1, "a": 2}', "duplicate key 'a'"),
        ("{", "config"),
        ('{"sensitive": ["no-slash"]}', "/sensitive/0"),
    ],
)
def test_a_bad_config_raises_what_load_config_raises(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "averos.config.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(AverosCIError) as expected:
        load_config(path)
    with pytest.raises(AverosCIError) as got:
        config_view(str(path))
    assert message in str(got.value)
    assert str(got.value) == str(expected.value)
