"""``averos-ci mcp`` without the SDK installed: a clear message and exit 2, no traceback."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from averos_ci.cli import run_cli


def test_missing_sdk_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "mcp.server.mcpserver", None)  # import fails
    assert run_cli(["mcp", "--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "needs the 'mcp' package" in err
    assert "pip install 'averos-ci[mcp]'" in err
    assert "Traceback" not in err


def test_help_lists_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["mcp", "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--root", "--config", "--git-name", "--git-email"):
        assert option in out
