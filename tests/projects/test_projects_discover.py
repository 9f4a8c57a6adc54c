"""Discovery: every averos.config.json outside ignored and generated paths, or the list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.errors import AverosCIError
from averos_ci.projects import discover_projects
from bench._monorepo import git, make_monorepo, write_project


def test_discovers_every_project_and_skips_decoys(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    names = make_monorepo(repo, 4)
    found = discover_projects(repo)
    assert [p.name for p in found] == names
    p0 = found[0]
    assert p0.config == "apps/p000/averos.config.json"
    assert p0.manifest == "apps/p000/app.manifest.yaml"
    # node_modules, the git-ignored scratch/ and apps/p000/generated/ hold configs too
    assert all("node_modules" not in p.config for p in found)
    assert not any(p.config.startswith(("scratch/", "apps/p000/generated/")) for p in found)


def test_untracked_project_counts_and_root_project_is_default(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_monorepo(repo, 1)
    write_project(repo, "apps/new", 7)  # not committed yet, not ignored
    write_project(repo, ".", 8, workspaceRoot=".")
    names = [p.name for p in discover_projects(repo)]
    assert names == ["apps/new", "apps/p000", "default"]


def test_github_project_setting_names_the_project(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_monorepo(repo, 2)
    write_project(repo, "apps/p001", 1, github={"project": "admin"})
    assert [p.name for p in discover_projects(repo)] == ["admin", "apps/p000"]


def test_two_configs_with_one_name_are_refused(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_monorepo(repo, 2)
    write_project(repo, "apps/p001", 1, github={"project": "apps/p000"})
    with pytest.raises(AverosCIError, match="two projects are named 'apps/p000'") as exc:
        discover_projects(repo)
    assert exc.value.hint and "github.project" in exc.value.hint


def test_without_git_every_config_outside_node_modules(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write_project(root, "a", 1)
    write_project(root, "b/node_modules/x", 2)
    assert [p.name for p in discover_projects(root)] == ["a"]


def test_explicit_list_with_when_modified(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_monorepo(repo, 3)
    (repo / "averos-ci.yaml").write_text(
        "formatVersion: 1\n"
        "projects:\n"
        "  - name: portal\n"
        "    config: apps/p001/averos.config.json\n"
        "    whenModified: ['../../libs/shared/**', '/docs/*.md']\n"
        "  - config: apps/p002/averos.config.json\n",
        encoding="utf-8",
    )
    found = discover_projects(repo)
    assert [p.name for p in found] == ["apps/p002", "portal"]
    assert found[1].when_modified == ("libs/shared/**", "docs/*.md")


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("projects:\n  - config: apps/p001/averos.config.json\n    when: []\n", ":3:5", "/when"),
        ("projects:\n  - config: nope/averos.config.json\n", ":2:13", "not a config file"),
        ("projects:\n  - config: ../../etc/passwd\n", ":2:13", "not a config file"),
        ("formatVersion: 9\nprojects: []\n", ":1:16", "/formatVersion"),
        ("projects:\n  - name: 'a b'\n    config: apps/p001/averos.config.json\n", ":2", "a b"),
        (
            "projects:\n  - config: apps/p001/averos.config.json\n"
            "    whenModified: ['../../../x']\n",
            ":2:5",
            "leaves the repository",
        ),
    ],
)
def test_bad_list_is_a_located_error(tmp_path: Path, text: str, where: str, message: str) -> None:
    repo = tmp_path / "repo"
    make_monorepo(repo, 2)
    (repo / "averos-ci.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(AverosCIError) as exc:
        discover_projects(repo)
    assert exc.value.exit_code == 2
    assert message in str(exc.value), str(exc.value)
    assert f"averos-ci.yaml{where}" in str(exc.value), str(exc.value)
    assert exc.value.hint


def test_broken_config_is_located(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_monorepo(repo, 2)
    (repo / "apps/p001/averos.config.json").write_text(json.dumps({"mode": 3}), encoding="utf-8")
    with pytest.raises(AverosCIError, match=r"apps/p001/averos.config.json:1:\d+: /mode"):
        discover_projects(repo)
    git(repo, "status")  # the repository is untouched and usable


def test_symlinked_config_leading_outside_is_no_project(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_monorepo(repo, 1)
    write_project(tmp_path, "outside", 5)
    (repo / "apps/evil").mkdir()
    (repo / "apps/evil/averos.config.json").symlink_to(tmp_path / "outside/averos.config.json")
    assert [p.name for p in discover_projects(repo)] == ["apps/p000"]
