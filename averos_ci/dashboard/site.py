"""``averos-ci dashboard``: the state branch read (:mod:`.read`), its pages rendered and
written into an output folder — each file atomically, and the pages of projects no longer on
the branch removed — as a static site that needs no script and fetches nothing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from averos_ci._fs import atomic_write_text
from averos_ci.dashboard.model import Dashboard
from averos_ci.dashboard.page import STYLESHEET
from averos_ci.dashboard.pages import index_page, project_file
from averos_ci.dashboard.project_page import project_page
from averos_ci.dashboard.read import read_dashboard
from averos_ci.dashboard.style import CSS
from averos_ci.errors import InputError

STUCK_AFTER = timedelta(minutes=60)  # the example apply job's timeout: by then it is dead


@dataclass(frozen=True)
class DashboardSite:
    out: Path
    dashboard: Dashboard
    pages: tuple[Path, ...]

    @property
    def message(self) -> str:
        d = self.dashboard
        return (
            f"dashboard of {len(d.projects)} project(s) from {d.branch} "
            f"({d.tip[:12]}) written to {self.out / 'index.html'}"
        )


def build_dashboard(
    repo: Path,
    *,
    out: Path,
    branch: str = "averos-state",
    ref: str | None = None,
    remote: str = "origin",
    stuck_after: timedelta = STUCK_AFTER,
    now: datetime | None = None,
) -> DashboardSite:
    """Build the site of the state branch of the clone at ``repo`` into ``out``."""
    if stuck_after <= timedelta(0):
        raise InputError("--stuck-after must be positive", hint="e.g. --stuck-after 60")
    if out.exists() and not out.is_dir():
        raise InputError(f"{out} is not a folder", path=out, hint="pass --out with a folder")
    d = read_dashboard(
        repo, branch=branch, ref=ref, remote=remote, stuck_after=stuck_after, now=now
    )
    pages = {"index.html": index_page(d)}
    pages.update({project_file(p.name): project_page(d, p) for p in d.projects})
    pages[STYLESHEET] = CSS
    written = []
    for rel, content in pages.items():
        atomic_write_text(out / rel, content)
        written.append(out / rel)
    stale = out / "projects"
    for old in stale.glob("*.html"):
        if old not in written:
            old.unlink()
    return DashboardSite(out, d, tuple(written))
