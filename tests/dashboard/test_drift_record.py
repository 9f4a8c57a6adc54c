"""The drift check's record writer (averos_ci.statebranch.drift_record) against a real bare
remote: written outside the project's folder, once per change of findings (``since`` kept),
removed when clean — an unreadable record too —, and a push that lost a race to another job
is rebuilt on the new tip without losing that job's record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.dashboard import build_dashboard
from averos_ci.errors import InputError
from averos_ci.statebranch.drift_record import findings, save_record
from averos_ci.statebranch.landing import Backoff
from averos_ci.statebranch.state_branch import StateBranch
from tests.conftest import git

UNAPPLIED = {"applied": "a" * 64, "defaultBranch": "b" * 64, "toAdd": 1}
FAST = Backoff(first=0.0, cap=0.0, budget=5.0)


def _clone(tmp_path: Path, name: str) -> StateBranch:
    origin = tmp_path / "origin.git"
    if not origin.exists():
        git(tmp_path, "init", "-q", "--bare", str(origin))
        seed = tmp_path / "seed"
        git(tmp_path, "init", "-q", "-b", "averos-state", str(seed))
        (seed / "shop").mkdir()
        (seed / "shop" / "notes.txt").write_text("the project's folder\n", encoding="utf-8")
        git(seed, "add", "-A")
        git(seed, "commit", "-q", "-m", "state")
        git(seed, "push", "-q", str(origin), "averos-state")
    clone = tmp_path / name
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    return StateBranch(clone)


def _save(sb: StateBranch, project: str, found: dict[str, object] | None, at: str) -> str | None:
    return save_record(
        sb, project, found, checked_at=at, commit="c" * 40, run_url=None, backoff=FAST
    )


def _on_origin(sb: StateBranch) -> dict[str, dict[str, object]]:
    tip = sb.fetch()
    listing = sb.repo.git.ls_tree("-r", "--name-only", tip, "--", ".drift")
    return {rel: json.loads(sb.read(tip, rel) or b"") for rel in str(listing).splitlines()}


def test_a_record_is_written_once_per_change_and_removed_when_clean(tmp_path: Path) -> None:
    sb = _clone(tmp_path, "job")
    project_tree = sb.subtree(sb.fetch(), "shop")
    assert _save(sb, "shop", findings(None, unapplied=UNAPPLIED), "2026-12-01T00:00:00Z")
    assert sb.subtree(sb.fetch(), "shop") == project_tree  # the apply's lock is untouched
    tip = sb.fetch()
    # the same findings a day later: nothing committed
    assert _save(sb, "shop", findings(None, unapplied=UNAPPLIED), "2026-12-02T00:00:00Z") is None
    assert sb.fetch() == tip
    # other findings: rewritten, since the first detection
    more = {**UNAPPLIED, "toAdd": 3}
    assert _save(sb, "shop", findings(None, unapplied=more), "2026-12-03T00:00:00Z")
    (record,) = _on_origin(sb).values()
    assert record["since"] == "2026-12-01T00:00:00Z"  # the first detection
    assert record["checkedAt"] == "2026-12-03T00:00:00Z"
    # clean: removed; clean again: nothing to do
    assert _save(sb, "shop", None, "2026-12-04T00:00:00Z")
    assert _on_origin(sb) == {}
    assert _save(sb, "shop", None, "2026-12-05T00:00:00Z") is None


def test_an_unreadable_record_is_removed_when_the_project_is_clean(tmp_path: Path) -> None:
    sb = _clone(tmp_path, "job")
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    tip = sb.fetch()
    assert tip is not None
    assert sb.push(sb.commit_paths(parent=tip, changes={".drift/shop.json": broken}, message="x"))
    site = build_dashboard(Path(sb.repo.working_dir), out=tmp_path / "s")
    (shop,) = site.dashboard.projects
    assert shop.error is not None and "is not JSON" in shop.error
    assert _save(sb, "shop", None, "2026-12-01T00:00:00Z")
    assert _on_origin(sb) == {}


def test_concurrent_jobs_keep_each_others_records(tmp_path: Path) -> None:
    """Job B fetched before job A pushed: B's first push is rejected, B rebuilds on A's tip."""
    a, b = _clone(tmp_path, "a"), _clone(tmp_path, "b")
    b.fetch()
    stale = b.push

    def push_after_a(commit: str) -> bool:  # A lands between B's fetch and B's push
        if not _on_origin(a):
            assert _save(a, "apps/one", findings(None, unapplied=UNAPPLIED), "2026-12-01T00:00Z")
        return stale(commit)

    b.push = push_after_a  # type: ignore[method-assign]
    assert _save(b, "apps/two", findings(None, unapplied=UNAPPLIED), "2026-12-01T00:00:00Z")
    assert sorted(_on_origin(a)) == [".drift/apps/one.json", ".drift/apps/two.json"]
    site = build_dashboard(
        Path(a.repo.working_dir), ref="refs/averos-ci/averos-state", out=tmp_path / "s"
    )
    assert sorted(p.name for p in site.dashboard.projects) == ["apps/one", "apps/two"]


def test_a_project_name_that_leaves_the_records_is_refused(tmp_path: Path) -> None:
    sb = _clone(tmp_path, "job")
    with pytest.raises(InputError):
        _save(sb, "../shop", findings(None, unapplied=UNAPPLIED), "2026-12-01T00:00:00Z")
    assert _on_origin(sb) == {}
