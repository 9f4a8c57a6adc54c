"""Register an adapter for a test the way an installed distribution does: a
``*.dist-info/entry_points.txt`` in a folder put first on ``sys.path``, read by the one
registry through ``importlib.metadata`` (there is no other list to patch)."""

from __future__ import annotations

from pathlib import Path

import pytest


def register_adapter(monkeypatch: pytest.MonkeyPatch, site: Path, name: str, target: str) -> None:
    """Adapter ``name`` -> ``target`` (``module:factory``) for the rest of the test."""
    info = site / f"{name.replace('-', '_')}_adapter-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-adapter\nVersion: 0\n")
    (info / "entry_points.txt").write_text(f"[averos_ci.adapters]\n{name} = {target}\n")
    monkeypatch.syspath_prepend(str(site))
