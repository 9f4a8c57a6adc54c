"""``validate --config`` checks the config as ``plan`` does (issue 38 item 7): a config that
``plan`` refuses fails ``validate`` (the pre-commit hook) too, with the same located error,
the same did-you-mean and exit 2, whether the manifest is named or read from the config."""

from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.cli import main, run_cli
from tests.cli.test_config_check import BAD, write_bad
from tests.conftest import copy_example


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_example(tmp_path / "project")


def plain(args: list[str]) -> int:
    """``averos-ci validate ...`` as the hook runs it (the path that builds no click tree)."""
    with pytest.raises(SystemExit) as exited:
        main(args)
    return int(exited.value.code or 0)


@pytest.mark.parametrize("named", [False, True], ids=["from-config", "manifest-named"])
@pytest.mark.parametrize("case", sorted(BAD))
def test_validate_refuses_the_config_plan_refuses(
    project: Path,
    case: str,
    named: bool,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = write_bad(project, case)
    monkeypatch.chdir(project)
    manifest = ["todoapp.manifest.yaml"] if named else []
    assert run_cli(["plan", "--config", str(config)]) == 2
    plan_err = capsys.readouterr().err
    _, column, message, hint = BAD[case]
    line = 2 if case == "manifest" else 4
    for validate in (plain, run_cli):  # without click (the hook) and through click
        assert validate(["validate", *manifest, "--config", str(config)]) == 2
        out, err = capsys.readouterr()
        assert err == plan_err  # the same words, place, hint and exit code as plan's
        assert err.startswith(f"error: {config}:{line}:{column}: {message}"), err
        assert hint in err.splitlines()[-1] and err.splitlines()[-1].startswith("hint: ")
        assert out == "" and "file(s) valid" not in err


def test_the_misnamed_adapter_of_the_issue(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``"adapter": "angular-schematic"``: "1 file(s) valid", exit 0, before the fix."""
    config = project / "typo.config.json"
    config.write_text(
        '{\n  "manifestPath": "todoapp.manifest.yaml",\n  "adapter": "angular-schematic"\n}\n'
    )
    monkeypatch.chdir(project)
    assert plain(["validate", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {config}:3:14: unknown adapter 'angular-schematic'"), err
    assert "hint: did you mean 'angular-schematics'?" in err


def test_a_good_config_still_validates_its_manifest(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    assert plain(["validate", "--config", "averos.config.json"]) == 0
    assert "1 file(s) valid" in capsys.readouterr().err
    assert plain(["validate"]) == 0  # ./averos.config.json, checked the same way
    assert "1 file(s) valid" in capsys.readouterr().err


def test_a_named_config_is_checked_as_a_config_with_its_manifest(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pre-commit hook passes staged files: a staged ``averos*.config.json`` is checked as
    plan checks it (not read as a manifest), and its manifest is validated with it."""
    monkeypatch.chdir(project)
    typo = project / "averos.typo.config.json"
    typo.write_text(
        '{\n  "manifestPath": "todoapp.manifest.yaml",\n  "adapter": "angular-schematic"\n}\n'
    )
    for validate in (plain, run_cli):
        assert validate(["validate", "averos.typo.config.json"]) == 2
        err = capsys.readouterr().err
        assert "unknown adapter 'angular-schematic'" in err
        assert "did you mean 'angular-schematics'?" in err
        assert validate(["validate", "averos.config.json"]) == 0
        out, err = capsys.readouterr()
        assert "1 file(s) valid" in out + err  # the config's manifest, validated with it
