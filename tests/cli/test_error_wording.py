"""How syntax and path errors read on the command line (issue 23, item 7): located where the
mistake is, in a person's words, with a hint, one ``error`` per line, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from tests.conftest import EXAMPLE_DIR

MANIFEST = EXAMPLE_DIR / "todoapp.manifest.yaml"


@pytest.fixture(autouse=True)
def _empty_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")


def plan_err(manifest: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert run_cli(["plan", "--manifest", str(manifest)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    return err


def test_an_unclosed_flow_mapping_is_reported_where_it_opened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = MANIFEST.read_text().splitlines(keepends=True)
    assert lines[108].rstrip().endswith("targetEntity: ToDoTask }")  # line 109
    lines[108] = lines[108].replace(" }\n", "\n")
    bad = tmp_path / "m.yaml"
    bad.write_text("".join(lines))
    err = plan_err(bad, capsys)
    assert err.startswith(
        f"{bad}:109:9: error SYN-05 invalid YAML: the '{{' opened here is not closed "
        "(at 110:9: expected ',' or '}', but got '{')\n  hint: close it with '}'"
    ), err


def test_a_yaml_indentation_error_says_so_with_a_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "m.yaml"
    bad.write_text("applicationName: X\nentities:\n  - name: a\n   foo: 1\n")
    err = plan_err(bad, capsys)
    assert err.startswith(f"{bad}:4:4: error SYN-05 invalid YAML: bad indentation"), err
    assert "<block" not in err  # the parser's own words are not the message
    assert "\n  hint: indent the keys of one mapping by the same number of spaces" in err


def test_an_unclosed_json_brace_names_the_brace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "m.json"
    bad.write_text('{\n  "applicationName": "X",\n  "a": {"b": 1\n  "c": 2\n}\n')
    err = plan_err(bad, capsys)
    assert err.startswith(
        f"{bad}:4:3: error SYN-05 invalid JSON: Expecting ',' delimiter "
        "(inside the '{' opened at 3:8)\n  hint: "
    ), err


def test_a_finding_is_not_prefixed_with_a_second_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = plan_err(tmp_path / "nope.yaml", capsys)
    assert err.startswith(f"{tmp_path / 'nope.yaml'}:1:1: error SYN-01 manifest not found\n")
    assert "error: " not in err


def test_a_command_line_path_gets_no_config_file_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["validate", str(tmp_path / "nope.yaml")]) == 2
    out, err = capsys.readouterr()
    assert "hint: check the path" in out + err
    assert "config file" not in out + err
    assert run_cli(["plan", "--config", str(tmp_path / "nope.json")]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {tmp_path / 'nope.json'}: config file not found\nhint: check the path\n"


def test_a_config_manifest_path_is_located_with_the_config_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "averos.config.json"
    config.write_text('{\n  "adapter": "mock",\n  "manifestPath": "app/todo.yaml"\n}\n')
    assert run_cli(["plan", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: {config}:3:19: manifestPath: no such file {tmp_path / 'app/todo.yaml'}\n"
        "hint: manifestPath is relative to the config file's folder\n"
    )
