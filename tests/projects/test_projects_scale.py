"""Many projects: discovery and `--changed` stay exact on a generated tree, and above GitHub's
256-job cap the matrix is cut into batches that hold every changed project exactly once."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from averos_ci.cli import run_cli
from averos_ci.projects import Project, changed_projects, discover_projects, matrix
from averos_ci.projects.output import MAX_JOBS
from bench._monorepo import git, make_monorepo, touch

MONOREPO = Path(__file__).resolve().parents[2] / "examples" / "workflows" / "averos-monorepo.yml"
COUNT = 600


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """600 projects on main; branch `feature` touches a seeded random 40 of them, through the
    manifest or the config, plus files of no project."""
    repo = tmp_path_factory.mktemp("big") / "repo"
    names = make_monorepo(repo, COUNT)
    git(repo, "checkout", "-q", "-b", "feature")
    picked = sorted(random.Random(40).sample(names, 40))
    paths = [
        f"{name}/{'averos.config.json' if i % 3 == 0 else 'app.manifest.yaml'}"
        for i, name in enumerate(picked)
    ]
    touch(repo, *paths, "README.md", "libs/shared/theme.scss", f"{names[0]}/generated/x.ts")
    return repo, picked


def test_discovery_finds_every_generated_project_and_changed_exactly_the_touched(
    big: tuple[Path, list[str]],
) -> None:
    repo, picked = big
    found = discover_projects(repo)
    assert [p.name for p in found] == [f"apps/p{i:03d}" for i in range(COUNT)]
    assert all(p.manifest == f"{p.directory}/app.manifest.yaml" for p in found)
    assert [p.name for p in changed_projects(found, root=repo, base="main")] == picked


def _projects(count: int) -> list[Project]:
    return [
        Project(
            name=f"apps/p{i:04d}",
            config=f"apps/p{i:04d}/averos.config.json",
            directory=f"apps/p{i:04d}",
            manifest=None,
        )
        for i in range(count)
    ]


@pytest.mark.parametrize("count", [1, 255, 256, 257, 300, 5000])
def test_the_split_matrix_holds_every_project_exactly_once(count: int) -> None:
    projects = _projects(count)
    entries = matrix(projects)["include"]
    assert 1 <= len(entries) <= MAX_JOBS
    names = [n for e in entries for n in e["project"].split(" ")]
    configs = [c for e in entries for c in e["config"].split("\n")]
    assert names == [p.name for p in projects]  # each once, in name order
    assert configs == [p.config for p in projects]
    sizes = [len(e["config"].split("\n")) for e in entries]
    assert max(sizes) - min(sizes) <= 1  # spread evenly: no job waits on a long tail
    if count <= MAX_JOBS:  # one project a job: the shape every workflow already reads
        assert entries == [{"project": p.name, "config": p.config} for p in projects]
    else:  # as few jobs as the cap allows: 300 -> 150 jobs of 2, 5,000 -> 250 of 20
        assert max(sizes) == -(-count // MAX_JOBS)


def test_the_example_workflow_reads_only_keys_every_entry_has() -> None:
    """Every matrix job of the monorepo example takes the discover job's matrix and reads no
    key a split entry lacks; the action gets the entry's config list whole."""
    jobs = YAML(typ="safe").load(MONOREPO.read_text(encoding="utf-8"))["jobs"]
    matrix_jobs = {n: j for n, j in jobs.items() if "matrix" in j.get("strategy", {})}
    assert set(matrix_jobs) == {"plan", "patch", "complete", "approve", "apply"}
    for size in (3, 300, 5000):
        keys = [set(e) for e in matrix(_projects(size))["include"]]
        for name, job in matrix_jobs.items():
            assert job["strategy"]["matrix"] == "${{ fromJSON(needs.discover.outputs.matrix) }}"
            used = set(re.findall(r"\bmatrix\.([A-Za-z_-]+)", json.dumps(job)))
            assert used and all(used <= k for k in keys), (name, used)
            action = next(s for s in job["steps"] if "config" in s.get("with", {}))
            assert action["with"]["config"] == "${{ matrix.config }}"


def test_cli_max_jobs_batches_the_step_outputs(
    big: tuple[Path, list[str]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    repo, picked = big
    out = repo.parent / "github_output"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    args = ["projects", "--root", str(repo), "--changed", "--base", "main"]
    assert run_cli([*args, "--format", "github-matrix", "--max-jobs", "16"]) == 0
    printed = json.loads(capsys.readouterr().out)
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert json.loads(outputs["matrix"]) == printed
    assert len(printed["include"]) == 14  # 40 projects, at most 16 jobs: batches of 3 (and 2)
    assert [n for e in printed["include"] for n in e["project"].split(" ")] == picked
    assert outputs["count"] == "40" and json.loads(outputs["projects"]) == picked


@pytest.mark.parametrize("value", ["0", "257"])
def test_max_jobs_outside_github_s_cap_is_exit_2(
    big: tuple[Path, list[str]], value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = big
    assert run_cli(["projects", "--root", str(repo), "--max-jobs", value]) == 2
    err = capsys.readouterr().err
    assert f"--max-jobs must be between 1 and 256, not {value}" in err and "hint:" in err
