"""``averos-ci validate`` without click (the pre-commit hook's fast path, issue 25): the same
output and exit code as through click for every plain call, and click for anything else."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

import averos_ci.cli as cli
from averos_ci.cli import main, plain_validate
from averos_ci.cli.validate import OutputFormat
from tests.manifest.manifest_samples import GOLDEN_MANIFEST, GOOD_YAML

BAD = GOOD_YAML.replace("useCaseType: CRUD", "useCaseType: Everything")
UNKNOWN_KEY = GOOD_YAML.replace("useCaseType: CRUD", "useCaseType: CRUD\n    colour: red")
SHAPE_ERROR = GOOD_YAML.replace("useCaseType: CRUD", "useCaseType: 12")


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    for name, text in (
        ("good.yaml", GOOD_YAML),
        ("bad.yaml", BAD),
        ("unknown.yaml", UNKNOWN_KEY),
        ("shape.yaml", SHAPE_ERROR),
    ):
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "dir").mkdir()
    (tmp_path / "cfg.json").write_text(json.dumps({"manifestPath": "bad.yaml"}))
    return tmp_path


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[object, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    out, err = capsys.readouterr()
    return exited.value.code, out, err


PLAIN = [
    ["validate", "good.yaml"],
    ["validate", "bad.yaml"],
    ["validate", "good.yaml", "bad.yaml", "unknown.yaml"],
    ["validate", "shape.yaml"],
    ["validate", "--format", "json", "bad.yaml", "unknown.yaml"],
    ["validate", "bad.yaml", "--format=github"],
    ["validate", "--format", "text", "bad.yaml"],
    ["validate", "--max-bytes", "10", "good.yaml"],
    ["validate", "--max-bytes=0100000", "good.yaml"],
    ["validate", "missing.yaml"],
    ["validate", "dir"],
    ["validate", "--config", "cfg.json"],
    ["validate", "--config=absent.json"],
    ["validate"],  # no averos.config.json here: a located error, exit 2
    ["validate", str(GOLDEN_MANIFEST)],
]


@pytest.mark.parametrize("argv", PLAIN, ids=" ".join)
@pytest.mark.parametrize("actions", [False, True], ids=["local", "actions"])
def test_a_plain_call_prints_what_click_prints(
    argv: list[str],
    actions: bool,
    files: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if actions:  # --format github by default, and untrusted text neutralised
        monkeypatch.setenv("GITHUB_ACTIONS", "true")
        monkeypatch.setattr(cli, "stop_commands", lambda: None)  # its random frame: elsewhere
    assert plain_validate(argv) is not None
    fast = _run(argv, capsys)
    monkeypatch.setattr(cli, "plain_validate", lambda args: None)
    through_click = _run(argv, capsys)
    assert fast == through_click
    assert fast[0] in (0, 2)


CLICKS = [
    ["validate", "--help"],
    ["validate", "-h", "good.yaml"],
    ["validate", "--format", "xml", "good.yaml"],
    ["validate", "--format", "JSON", "good.yaml"],
    ["validate", "--max-bytes", "0", "good.yaml"],
    ["validate", "--max-bytes", "1e3", "good.yaml"],
    ["validate", "--max-bytes", "-5", "good.yaml"],
    ["validate", "--format", "json", "--format", "text", "good.yaml"],
    ["validate", "--", "good.yaml"],
    ["validate", "-", "good.yaml"],
    ["validate", ""],
    ["validate", "--config"],
    ["validate", "--colour", "good.yaml"],
    ["--version"],
    ["plan", "--help"],
]


@pytest.mark.parametrize("argv", CLICKS, ids=" ".join)
def test_anything_else_is_left_to_click(
    argv: list[str], files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert plain_validate(argv) is None
    code, out, err = _run(argv, capsys)
    assert code in (0, 2), (out, err)


def test_the_plain_options_are_the_commands_options() -> None:
    command = typer.main.get_command(cli.app).commands["validate"]  # type: ignore[attr-defined]
    options = {p.name: p for p in command.params if p.param_type_name == "option"}
    longs = {opt for p in options.values() for opt in p.opts}
    assert longs == set(cli.VALIDATE_OPTIONS)
    assert tuple(f.value for f in OutputFormat) == cli.VALIDATE_FORMATS
    assert options["max_bytes"].default == 10485760 == plain_validate(["validate"])["max_bytes"]  # type: ignore[index]


PROBE = """\
import json, sys
from averos_ci.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    print(json.dumps({"code": exc.code, "modules": sorted(sys.modules)}))
"""


def test_a_valid_manifest_loads_neither_click_nor_pydantic() -> None:
    r = subprocess.run(
        [sys.executable, "-c", PROBE, "validate", str(GOLDEN_MANIFEST)],
        capture_output=True,
        text=True,
        check=False,
    )
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["code"] == 0, r.stderr
    loaded = {m.split(".")[0] for m in out["modules"]}
    for heavy in ("typer", "click", "rich", "pydantic", "pydantic_core", "dataclasses", "ruamel"):
        assert heavy not in loaded, heavy
