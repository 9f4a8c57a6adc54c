"""npm, the Angular CLI and the schematics (third-party code) never see credentials."""

from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.execute.adapters.angular._proc import tool_env


def test_tool_env_drops_tokens_and_git_credentials(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    secrets = {
        "GITHUB_TOKEN": "ghs_secret",
        "GH_TOKEN": "ghs_secret",
        "INPUT_GITHUB-TOKEN": "ghs_secret",
        "ACTIONS_RUNTIME_TOKEN": "secret",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "secret",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "http.extraheader",
        "GIT_CONFIG_VALUE_0": "AUTHORIZATION: basic secret",
        "MY_SERVICE_PASSWORD": "secret",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:4873/")
    env = tool_env(tmp_path, registry=None)
    assert not set(secrets) & set(env)
    assert "secret" not in " ".join(env.values())
    assert env["npm_config_registry"] == "http://127.0.0.1:4873/"  # the user's npm setup stays
    assert env["npm_config_cache"] == str(tmp_path / "npm")
    assert env["PATH"]
