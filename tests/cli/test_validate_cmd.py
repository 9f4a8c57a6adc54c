"""``averos-ci validate``: exit codes and the three output formats (issue 2)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from tests.conftest import require_tool
from tests.manifest.manifest_samples import EXAMPLE_MANIFEST, GOLDEN_MANIFEST, GOOD_YAML

BAD_TYPE = GOOD_YAML.replace("useCaseType: CRUD", "useCaseType: Everything")  # 36:18 CON-08


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    path = tmp_path / "bad.manifest.yaml"
    path.write_text(BAD_TYPE)
    return path


@pytest.fixture
def good(tmp_path: Path) -> Path:
    path = tmp_path / "good.manifest.yaml"
    path.write_text(GOOD_YAML)
    return path


@pytest.mark.parametrize("path", [GOLDEN_MANIFEST, EXAMPLE_MANIFEST], ids=["golden", "example"])
def test_real_manifests_exit_0(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["validate", str(path)]) == 0
    out, err = capsys.readouterr()
    assert " error " not in out
    assert "1 file(s) valid: 0 error(s)" in err


def test_text_format(bad: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["validate", str(bad)]) == 2
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == f"{bad}:36:18: error CON-08 unknown useCaseType 'Everything'"
    assert lines[1].startswith("  hint: one of ")
    assert "1 file(s) invalid: 1 error(s), 0 warning(s)" in err


def test_json_format(bad: Path, good: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["validate", "--format", "json", str(good), str(bad)]) == 2
    out, _ = capsys.readouterr()
    doc = json.loads(out)
    assert doc["formatVersion"] == 1
    assert doc["valid"] is False
    assert doc["files"] == [str(good), str(bad)]
    assert (doc["errors"], doc["warnings"]) == (1, 0)
    [issue] = doc["issues"]
    assert issue["severity"] == "error"
    assert issue["code"] == "CON-08"
    assert (issue["file"], issue["line"], issue["column"]) == (str(bad), 36, 18)
    assert issue["pointer"] == "/useCases/0/useCaseType"
    assert issue["hint"].startswith("one of ")


def test_json_format_valid(good: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["validate", "--format", "json", str(good)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["valid"] is True
    assert doc["issues"] == []


def test_json_format_for_unreadable_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.yaml"
    path.write_bytes(b"applicationName: \xff\n")
    assert run_cli(["validate", "--format", "json", str(path)]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert [(i["code"], i["line"], i["column"]) for i in doc["issues"]] == [("SYN-03", 1, 18)]


def test_github_format(bad: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["validate", "--format", "github", str(bad)]) == 2
    out = capsys.readouterr().out
    assert out.splitlines() == [
        f"::error file={bad},line=36,col=18,title=CON-08::unknown useCaseType 'Everything'"
        " (hint: one of CRUD, Create_Entity, Search_Entity)"
    ]


def test_github_is_the_default_under_github_actions(
    bad: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert run_cli(["validate", str(bad)]) == 2
    out = capsys.readouterr().out
    assert out.startswith(f"::error file={bad},line=36,col=18,title=CON-08::")
    # an explicit --format still wins
    assert run_cli(["validate", "--format", "text", str(bad)]) == 2
    assert capsys.readouterr().out.startswith(f"{bad}:36:18: error CON-08 ")


def test_github_warning_and_property_escaping(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "a,b:c.manifest.yaml"
    path.write_text(
        GOOD_YAML.replace("applicationName: ShopApp", "applicationName: ShopApp\nnote%: x")
    )
    assert run_cli(["validate", "--format", "github", str(path)]) == 0
    out = capsys.readouterr().out
    escaped = str(path).replace(":", "%3A").replace(",", "%2C")
    assert out.splitlines() == [
        f"::warning file={escaped},line=2,col=1,title=SYN-12::unknown key 'note%25' is ignored"
        " (hint: check the spelling against the Averos manifest format)"
    ]


def test_no_path_validates_the_configs_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        run_cli(["validate", "--config", str(EXAMPLE_MANIFEST.parent / "averos.config.json")]) == 0
    )
    project = tmp_path / "project"
    project.mkdir()
    (project / "averos.config.json").write_text('{"manifestPath": "app/bad.manifest.yaml"}')
    (project / "app").mkdir()
    (project / "app" / "bad.manifest.yaml").write_text(BAD_TYPE)
    capsys.readouterr()
    assert run_cli(["validate", "--config", str(project / "averos.config.json")]) == 2
    out = capsys.readouterr().out
    assert f"{project / 'app' / 'bad.manifest.yaml'}:36:18: error CON-08" in out


def test_multiple_files_report_every_file(
    tmp_path: Path, bad: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.json"
    other.write_text("[]")
    assert run_cli(["validate", str(bad), str(other)]) == 2
    out, err = capsys.readouterr()
    assert f"{bad}:36:18: error CON-08" in out
    assert f"{other}:1:1: error SYN-08" in out
    assert "2 file(s) invalid: 2 error(s)" in err


@pytest.mark.parametrize(
    "args",
    [["--format", "xml"], ["--max-bytes", "0"], ["--bogus"]],
    ids=["bad-format", "max-bytes-0", "unknown-option"],
)
def test_usage_errors_exit_2(
    good: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code = run_cli(["validate", *args, str(good)])
    err = capsys.readouterr().err
    assert "internal error" not in err
    assert code == 2


def test_usage_errors_never_show_a_traceback(
    good: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["validate", "--format", "xml", str(good)]) != 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert "xml" in err


def _console(name: str) -> str:
    return require_tool(name, install="pip install -e . puts the console scripts on PATH")


@pytest.mark.parametrize("script", ["averos-ci", "averos"])
def test_console_scripts_in_a_subprocess(
    script: str, bad: Path, good: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "GITHUB_ACTIONS": "false"}
    ok = subprocess.run(
        [_console(script), "validate", str(good)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    bad_run = subprocess.run(
        [_console(script), "validate", str(bad)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert bad_run.returncode == 2
    assert f"{bad}:36:18: error CON-08" in bad_run.stdout
    assert "Traceback" not in bad_run.stdout + bad_run.stderr


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (b"applicationName: [x\n", "SYN-05"),
        (b"\xfe\xff\x00a", "SYN-03"),
        (b"a: &x 1\nb: *x\n", "SYN-07"),
        (b"- 1\n", "SYN-08"),
    ],
    ids=["syntax", "utf16", "anchor", "list"],
)
def test_hostile_files_in_a_subprocess(tmp_path: Path, content: bytes, code: str) -> None:
    path = tmp_path / "m.manifest.yaml"
    path.write_bytes(content)
    run = subprocess.run(
        [_console("averos-ci"), "validate", str(path)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 2
    assert f" error {code} " in run.stdout
    assert "Traceback" not in run.stdout + run.stderr


def _limit_memory() -> None:  # an unbounded read would fail the child instead of the machine
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_max_bytes_bounds_what_is_read(tmp_path: Path) -> None:
    """A real 4 GiB manifest (sparse: no disk used) under a 1 GiB memory limit: refused by size
    with SYN-02, never read whole."""
    big = tmp_path / "huge.manifest.json"
    with big.open("wb") as f:
        f.write(b'{"applicationName": "x", "description": "')
        f.truncate(4 << 30)
    run = subprocess.run(
        [_console("averos-ci"), "validate", "--max-bytes", "100", str(big)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limit_memory,
    )
    assert run.returncode == 2, run.stderr
    assert f"{big}:1:1: error SYN-02 manifest is {4 << 30} bytes, over the 100-byte limit" in (
        run.stdout
    )
    assert "Traceback" not in run.stdout + run.stderr


def test_a_device_is_refused_before_reading() -> None:
    run = subprocess.run(
        [_console("averos-ci"), "validate", "--max-bytes", "100", "/dev/zero"],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limit_memory,
    )
    assert run.returncode == 2, run.stderr
    assert "/dev/zero:1:1: error SYN-01 manifest is not a regular file" in run.stdout


def test_no_path_and_no_config_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run_cli(["validate"]) == 2
    err = capsys.readouterr().err
    assert f"error: {tmp_path / 'averos.config.json'}: config file not found" in err
    assert "Traceback" not in err
