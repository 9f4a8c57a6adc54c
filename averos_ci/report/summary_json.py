"""``summary.json``: the RunnerSummary plus ``formatVersion``, written atomically."""

from __future__ import annotations

import json
from pathlib import Path

from averos_ci._fs import atomic_write_text
from averos_ci.execute.summary import RunnerSummary


def write_summary_json(path: Path, summary: RunnerSummary, *, adapter: str | None = None) -> None:
    atomic_write_text(path, json.dumps(summary.to_file_json(adapter=adapter), indent=2) + "\n")
