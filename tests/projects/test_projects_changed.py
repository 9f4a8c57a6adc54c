"""`projects --changed`: a local git diff (merge base → head) over each project's files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from averos_ci.projects import changed_projects, discover_projects
from bench._monorepo import git, make_monorepo, touch


@pytest.fixture(scope="module")
def hundred(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """100 projects on main; branch `feature` touches 3 of them (manifest, config, manifest)
    plus files of no project; main moves on afterwards with a change to a 4th project."""
    repo = tmp_path_factory.mktemp("mono") / "repo"
    make_monorepo(repo, 100)
    git(repo, "checkout", "-q", "-b", "feature")
    touch(repo, "apps/p007/app.manifest.yaml", "README.md")
    touch(repo, "apps/p042/averos.config.json", "libs/shared/theme.scss")
    touch(repo, "apps/p099/app.manifest.yaml", "apps/p000/generated/src/app.manifest.yaml")
    git(repo, "checkout", "-q", "main")
    touch(repo, "apps/p050/app.manifest.yaml")  # only on main: not the PR's change
    git(repo, "checkout", "-q", "feature")
    return repo


def test_a_change_touching_three_lists_exactly_those(hundred: Path) -> None:
    found = changed_projects(discover_projects(hundred), root=hundred, base="main")
    assert [p.name for p in found] == ["apps/p007", "apps/p042", "apps/p099"]


def test_cli_matrix_and_step_outputs(
    hundred: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = hundred.parent / "github_output"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    monkeypatch.chdir(hundred / "apps")  # any directory of the repository
    code = run_cli(["projects", "--changed", "--base", "main", "--format", "github-matrix"])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert set(outputs) == {"matrix", "projects", "count"}
    matrix = json.loads(outputs["matrix"])
    assert matrix == printed
    # the shape strategy.matrix accepts: {"include": [{key: scalar, ...}, ...]}
    assert list(matrix) == ["include"]
    assert all(isinstance(v, str) for row in matrix["include"] for v in row.values())
    assert [r["project"] for r in matrix["include"]] == ["apps/p007", "apps/p042", "apps/p099"]
    assert matrix["include"][1]["config"] == "apps/p042/averos.config.json"
    assert outputs["count"] == "3"
    assert json.loads(outputs["projects"]) == ["apps/p007", "apps/p042", "apps/p099"]


def test_no_change_is_an_empty_matrix_with_count_zero(
    hundred: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = hundred.parent / "empty_output"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    args = ["projects", "--root", str(hundred), "--changed", "--base", "HEAD", "--head", "HEAD"]
    assert run_cli([*args, "--format", "github-matrix"]) == 0
    assert json.loads(capsys.readouterr().out) == {"include": []}
    assert "count=0\n" in out.read_text()


def test_when_modified_globs_and_renames(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_monorepo(repo, 4)
    (repo / "averos-ci.yaml").write_text(
        "projects:\n"
        "  - {name: portal, config: apps/p001/averos.config.json,"
        " whenModified: ['../../libs/shared/**/*.scss']}\n"
        "  - {name: admin, config: apps/p002/averos.config.json, whenModified: ['/docs/**']}\n"
        "  - {name: ops, config: apps/p003/averos.config.json}\n",
        encoding="utf-8",
    )
    touch(repo, "averos-ci.yaml", message="list")
    base = git(repo, "rev-parse", "HEAD").strip()
    touch(repo, "libs/shared/deep/x.scss", "libs/shared/y.txt")
    projects = discover_projects(repo)
    assert [p.name for p in changed_projects(projects, root=repo, base=base)] == ["portal"]
    git(repo, "mv", "apps/p003/app.manifest.yaml", "apps/p003/moved.yaml")
    git(repo, "commit", "-q", "-m", "rename")
    assert [p.name for p in changed_projects(projects, root=repo, base=base)] == [
        "ops",
        "portal",
    ]


def test_bad_revision_is_exit_2_with_hint(
    hundred: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(["projects", "--root", str(hundred), "--changed", "--base", "no-such-rev"])
    err = capsys.readouterr().err
    assert code == 2
    assert "git merge-base failed" in err and "no-such-rev" in err
    assert "hint: " in err and "fetch-depth: 0" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--changed"], "--changed needs --base"),
        (["--base", "main"], "--base is only used with --changed"),
        (["--format", "yaml"], "yaml"),
    ],
)
def test_usage_errors_exit_2(
    hundred: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert run_cli(["projects", "--root", str(hundred), *args]) == 2
    assert message in capsys.readouterr().err


def test_text_and_json_formats(hundred: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["projects", "--root", str(hundred)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 100 and lines[42] == "apps/p042\tapps/p042/averos.config.json"
    assert run_cli(["projects", "--root", str(hundred), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[3] == {
        "name": "apps/p003",
        "config": "apps/p003/averos.config.json",
        "directory": "apps/p003",
        "manifest": "apps/p003/app.manifest.yaml",
        "whenModified": [],
    }


def test_unrelated_history_is_exit_2_with_fetch_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    make_monorepo(repo, 2)
    git(repo, "checkout", "-q", "--orphan", "other")
    touch(repo, "apps/p001/app.manifest.yaml", message="unrelated")
    assert run_cli(["projects", "--root", str(repo), "--changed", "--base", "main"]) == 2
    err = capsys.readouterr().err
    assert "'main' and 'HEAD' have no common ancestor here" in err
    assert "fetch-depth: 0" in err
