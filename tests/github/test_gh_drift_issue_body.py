"""A large drift (a merged change that deleted ``src/app`` of a big application) keeps the
drift issue inside GitHub's 65,536 characters with its "since" record and its commands: an
issue GitHub clipped lost its "since" (reset every run) and was rewritten on every run."""

from __future__ import annotations

from pathlib import Path

from averos_ci.forge.api import clip_body
from averos_ci.github.drift_flow import DriftCheck, _since, render_issue
from averos_ci.state.drift import DriftReport, render_drift


def test_a_large_drift_keeps_the_issue_whole() -> None:
    missing = {
        f"src/app/pages/page-{n:04d}.component.ts": (f"use-case:UseCase{n:04d}",)
        for n in range(1500)
    }
    report = DriftReport(Path("/ws"), ".averos/state.json", checked=1600, missing=missing)
    check = DriftCheck(
        project="shop",
        commit="a" * 40,
        config="apps/shop/averos.config.json",
        state_branch="averos-state",
        drift=report,
        unapplied=None,
        drift_text=render_drift(report, "markdown"),
    )
    assert len(check.drift_text) > 65_536  # what a real large drift writes
    since = ("2026-12-07T00:00:00Z", "b" * 40, "https://github.com/o/r/actions/runs/1")
    body = render_issue(check, since=since)
    assert clip_body(body) == body  # not clipped: its end (the commands) is there
    assert "averos-ci drift --config" in body and "more line(s)" in body
    assert _since(body) == since
