"""``averos-ci dashboard`` over a state branch made by real applies (conftest.py): the model
it reads, the pages it writes, the escaping of the branch's strings, its exit codes."""

from __future__ import annotations

import json
import subprocess
from datetime import timedelta
from html import escape
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from averos_ci.dashboard import ClaimStatus, build_dashboard
from averos_ci.dashboard.pages import project_file
from tests.dashboard.conftest import (
    ABANDONED,
    ATTACK,
    ATTACK_APPROVER,
    REASON,
    RUNNING,
    STUCK,
    StateWorld,
)

pytestmark = pytest.mark.xdist_group("dashboard")


def _show(clone: Path, ref: str, path: str) -> dict[str, object]:
    out = subprocess.run(
        ["git", "show", f"{ref}:{path}"], cwd=clone, check=True, capture_output=True, text=True
    ).stdout
    data: dict[str, object] = json.loads(out)
    return data


def test_the_model_holds_what_the_applies_wrote(state_world: StateWorld, tmp_path: Path) -> None:
    site = build_dashboard(state_world.clone, out=tmp_path / "site")
    d = site.dashboard
    assert [p.name for p in d.projects] == sorted(["default", STUCK, RUNNING, ABANDONED, ATTACK])
    default = next(p for p in d.projects if p.name == "default")
    state = _show(state_world.clone, "averos-state", "default/state.json")
    assert default.manifest_hash == state["manifestHash"]
    assert default.serial == state["serial"]
    # two applies, in order, each of its merge commit; the last one is the applied one
    applies = [r for r in default.runs if r.action == "apply"]
    assert [r.sha for r in applies] == list(state_world.merges)
    assert default.last_apply is not None and default.last_apply.sha == state_world.merges[1]
    assert all(r.duration_ms is not None and r.finished_at is not None for r in applies)
    assert len({r.plan_hash for r in applies}) == 2
    # each run record names who approved it (PR #1: bob, PR #2: carol)
    assert [r.approver for r in applies] == ["bob", "carol"]
    # every apply and the drift record are commits of this folder
    assert len(default.commits) >= 3
    assert default.drifted and {f.change for f in default.drift.files} == {"missing", "modified"}
    # the drift check's record lives outside the project's folder (its apply lock)
    record = _show(state_world.clone, "averos-state", ".drift/default.json")
    assert record["project"] == "default" and default.drift.since == record["since"]
    claims = {p.name: p.claim.status for p in d.projects if p.claim is not None}
    assert claims == {
        STUCK: ClaimStatus.STUCK,
        RUNNING: ClaimStatus.RUNNING,
        "default": ClaimStatus.FAILED,  # PR #3's apply failed at a node
    }
    assert default.claim is not None and default.claim.checkpoints["FAILED"] == 1
    assert [p.name for p in d.drifted] == ["default"]
    (abandoned,) = (p for p in d.projects if p.failures)
    assert abandoned.name == ABANDONED and abandoned.failures[0].reason == REASON


def test_the_pages_show_projects_claims_drift_and_history(
    state_world: StateWorld, tmp_path: Path
) -> None:
    site = build_dashboard(state_world.clone, out=tmp_path / "site")
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    d = site.dashboard
    default = next(p for p in d.projects if p.name == "default")
    assert default.manifest_hash is not None
    for p in d.projects:  # every project links to its page, which exists
        assert f'href="{escape(project_file(p.name))}"' in index
        assert (tmp_path / "site" / project_file(p.name)).is_file()
    assert f"<code>{default.manifest_hash[:12]}</code>" in index
    assert f"<code>{state_world.merges[1][:12]}</code>" in index
    claims = index.split('id="claims"')[1].split('id="drift"')[0]
    assert "stuck" in claims and "running" in claims and STUCK in claims and RUNNING in claims
    assert "2026-01-02 03:04 UTC" in claims  # the stuck claim's last progress
    drift = index.split('id="drift"')[1].split('id="failures"')[0]
    assert ">default</a>" in drift and STUCK not in drift
    failures = index.split('id="failures"')[1]
    assert f">{ABANDONED}</a>" in failures and escape(REASON) in failures
    assert "apply failed (1 node(s)); progress kept" in failures
    page = (tmp_path / "site" / project_file("default")).read_text(encoding="utf-8")
    applied = page.split('id="applied"')[1].split('id="claim"')[0]
    for run in default.runs:
        assert f"<code>{run.plan_hash[:12]}</code>" in applied
    assert "carol" in applied and "bob" in applied  # the approver column
    assert "carol" in index.split('id="projects"')[1].split('id="claims"')[0]
    assert "src/app/todo-task.ts" in page and "missing" in page
    assert 'href="../index.html"' in page and 'href="../style.css"' in page
    # accessible: a language, one h1, captions and scoped headers on every table
    for html in (index, page):
        assert '<html lang="en">' in html and html.count("<h1>") == 1
        assert html.count("<table>") == html.count("<caption>")
        assert html.count("<table>") > 0 and 'scope="col"' in html
        assert "<script" not in html and "http://" not in html


def test_attack_markup_in_the_branch_is_shown_as_text(
    state_world: StateWorld, tmp_path: Path
) -> None:
    build_dashboard(state_world.clone, out=tmp_path / "site")
    pages = [p.read_text(encoding="utf-8") for p in (tmp_path / "site").rglob("*.html")]
    everything = "\n".join(pages)
    assert escape(ATTACK) in everything and escape(ATTACK_APPROVER) in everything
    assert ATTACK not in everything and ATTACK_APPROVER not in everything
    assert "<script" not in everything and "<img" not in everything
    # and no file escaped the site through the folder's `/`
    names = [p.relative_to(tmp_path / "site").as_posix() for p in (tmp_path / "site").rglob("*")]
    assert all(n in ("index.html", "style.css", "projects") or n.startswith("projects/")
               for n in names), names  # fmt: skip


def test_a_shorter_threshold_makes_the_running_claim_stuck_too(
    state_world: StateWorld, tmp_path: Path
) -> None:
    d = build_dashboard(
        state_world.clone, out=tmp_path / "site", stuck_after=timedelta(microseconds=1)
    ).dashboard
    assert [p.name for p in d.claims(ClaimStatus.STUCK)] == [STUCK, RUNNING]
    assert [p.name for p in d.claims(ClaimStatus.FAILED)] == ["default"]
    assert d.claims(ClaimStatus.RUNNING) == []


def test_cli_builds_the_site_and_rebuilding_drops_pages_of_gone_projects(
    state_world: StateWorld, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    gone = out / "projects" / "gone-00000000.html"
    gone.parent.mkdir(parents=True)
    gone.write_text("old", encoding="utf-8")
    code = run_cli(["dashboard", "--repo", str(state_world.clone), "--out", str(out)])
    assert code == 0
    assert "dashboard of 5 project(s) from averos-state" in capsys.readouterr().out
    assert (out / "index.html").is_file() and (out / "style.css").is_file()
    assert not gone.exists()
    # a given ref: the state branch after the two applies held one project only
    tip = state_world.applied_tip
    code = run_cli(["dashboard", "--repo", str(state_world.clone), "--ref", tip, "--out", str(out)])
    assert code == 0 and "dashboard of 1 project(s)" in capsys.readouterr().out
    assert sorted(p.name for p in (out / "projects").iterdir()) == [
        Path(project_file("default")).name
    ]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ([], "no state branch in"),
        (["--ref", "no-such-ref"], "'no-such-ref' not found"),
        (["--stuck-after", "0"], "--stuck-after"),
    ],
)
def test_bad_input_exits_2_with_a_hint(
    git_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    needle: str,
) -> None:
    code = run_cli(["dashboard", "--repo", str(git_dir), "--out", str(tmp_path / "s"), *args])
    err = capsys.readouterr().err
    assert code == 2, err
    assert needle in err
    assert not (tmp_path / "s").exists()


def test_a_folder_that_is_not_a_repository_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(["dashboard", "--repo", str(tmp_path / "nowhere"), "--out", str(tmp_path)])
    assert code == 2
    assert "hint:" in capsys.readouterr().err
