"""What changed in a plan's execution part, key by key, and how the text render shows it."""

from __future__ import annotations

from pathlib import Path

from averos_ci.plan import compute_plan
from averos_ci.plan.execution_diff import MISSING, execution_changes, flatten, show
from averos_ci.plan.render import render_text
from tests.github.gh_world import manifest_variant


def test_changes_are_listed_by_dotted_key() -> None:
    base = {"adapter": "angular-schematics", "adapterOptions": {"registry": "A", "x": [1]}}
    head = {"adapter": "angular-schematics", "adapterOptions": {"registry": "B", "y": {}}}
    changes = {c.key: (c.before, c.after) for c in execution_changes(base, head)}
    assert changes == {
        "adapterOptions.registry": ("A", "B"),
        "adapterOptions.x": ([1], MISSING),
        "adapterOptions.y": (MISSING, {}),
    }
    assert execution_changes(head, head) == []
    assert flatten(head) == {"adapter": "angular-schematics", "adapterOptions.registry": "B",
                             "adapterOptions.y": {}}  # fmt: skip


def test_values_are_one_line_and_cut() -> None:
    assert show("a\nb") == "a b"
    assert show(True) == "true" and show(MISSING) == "(unset)"
    long = show("x" * 500)
    assert long.startswith("x" * 120) and long.endswith("…[+380 chars]")


def test_the_text_render_shows_the_execution_settings(tmp_path: Path) -> None:
    manifest = tmp_path / "m.yaml"
    manifest.write_text(manifest_variant(0), encoding="utf-8")
    execution = {"adapter": "angular-schematics", "adapterOptions": {"registry": "https://b/"}}
    text = render_text(compute_plan(manifest_path=manifest, state=None, execution=execution).plan)
    assert "execution: adapter=angular-schematics, adapterOptions.registry=https://b/\n" in text
    bare = render_text(compute_plan(manifest_path=manifest, state=None).plan)
    assert "execution:" not in bare
