"""The dashboard's public API (``averos_ci.dashboard.__all__``) and the drift record it reads:
what the scheduled drift check writes is what the dashboard reads back."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import averos_ci.dashboard as dashboard
from averos_ci.dashboard.drift import parse_drift
from averos_ci.errors import StateError
from averos_ci.state.drift import DriftReport
from averos_ci.statebranch.drift_record import findings


def test_every_public_name_is_there_once() -> None:
    assert len(set(dashboard.__all__)) == len(dashboard.__all__)
    for name in dashboard.__all__:
        assert getattr(dashboard, name) is not None, name
    assert {"build_dashboard", "drift_path", "DRIFT_RECORDS"} <= set(dashboard.__all__)


def test_a_drift_record_reads_back_as_written(tmp_path: Path) -> None:
    report = DriftReport(
        workspace_root=tmp_path,
        state_path="p/state.json",
        checked=3,
        missing={"a.ts": ("entity:A",)},
        modified=("b.html",),
        deleted=("c.css",),
    )
    found = findings(report, unapplied={"applied": "a" * 64, "defaultBranch": "b" * 64, "toAdd": 2})
    assert found is not None
    raw = json.dumps({"formatVersion": 1, **found, "checkedAt": "2026-12-04T17:00:00Z"})
    record = parse_drift(raw.encode(), where="averos-state:.drift/p.json")
    assert record.drifted and record.checked_at == "2026-12-04T17:00:00Z"
    assert [(f.path, f.change) for f in record.files] == [
        ("a.ts", "missing"),
        ("b.html", "modified"),
        ("c.css", "deleted"),
    ]
    assert record.unapplied is not None and record.unapplied.changes == 2
    assert record.unapplied.applied == "a" * 64 and record.found


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        (b"{", "is not JSON"),
        (b"[]", "is not a JSON object"),
        (b'{"formatVersion": 2, "drifted": true}', "formatVersion 2"),
    ],
)
def test_a_bad_drift_record_is_a_located_error(raw: bytes, needle: str) -> None:
    with pytest.raises(StateError) as err:
        parse_drift(raw, where="averos-state:.drift/p.json")
    assert needle in str(err.value) and "averos-state:.drift/p.json" in str(err.value)
    assert err.value.hint


def test_an_unreadable_folder_is_shown_and_the_others_still_are(
    git_dir: Path, tmp_path: Path
) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=git_dir, check=True, capture_output=True)

    git("checkout", "-q", "--orphan", "averos-state")
    for rel, text in {".drift/broken.json": "{", ".drift/fine.json": "{}"}.items():
        (git_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (git_dir / rel).write_text(text, encoding="utf-8")
    (git_dir / ".drift" / "fine.json").write_text(
        json.dumps({"formatVersion": 1, "checkedAt": "2026-12-04T17:00:00Z", "drifted": False}),
        encoding="utf-8",
    )
    git("add", "-A")
    git("commit", "-q", "-m", "state")
    site = dashboard.build_dashboard(git_dir, out=tmp_path / "site")
    views = {p.name: p for p in site.dashboard.projects}
    assert sorted(views) == ["broken", "fine"]
    assert views["broken"].error is not None and "is not JSON" in views["broken"].error
    assert views["fine"].error is None and not views["fine"].drifted
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "unreadable" in index and "is not JSON" in index
