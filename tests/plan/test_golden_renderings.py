"""Issue 14: the markdown and text renderings reviewers read, byte for byte.

Two cases: the library app's pull request (apiPort, two translation texts, a new member) and
the real ToDo export against an older state of it. Regenerate after an intended change with
``AVEROS_CI_UPDATE_GOLDENS=1 pytest tests/plan/test_golden_renderings.py`` and read the diff of
``tests/plan/golden/*.md|txt`` like code.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import pytest

from averos_ci.cli import run_cli
from averos_ci.config import default_config
from averos_ci.execute.adapters.identity import execution_identity
from averos_ci.plan import ExecutionPlan
from averos_ci.plan.render import render_markdown, render_text
from averos_ci.state import FileStateStore
from tests.plan.plan_samples import applied, golden_raw, plan_of
from tests.plan.test_diff_buckets import _member, _named

GOLDEN_DIR = Path(__file__).parent / "golden"
DATA = Path(__file__).parent / "data"
LIBRARY_BASE = DATA / "library.base.manifest.yaml"
LIBRARY_HEAD = DATA / "library.head.manifest.yaml"


def _yaml(path: Path) -> dict[str, Any]:
    from ruamel.yaml import YAML

    data: dict[str, Any] = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
    return data


def library_plan() -> ExecutionPlan:
    return plan_of(_yaml(LIBRARY_HEAD), applied(_yaml(LIBRARY_BASE)))


def older_todo(raw: dict[str, Any]) -> dict[str, Any]:
    """The real ToDo export as it was before a (fictional) pull request."""
    old = copy.deepcopy(raw)
    todo = _named(old["entities"], "ToDo")
    todo["members"] = [m for m in todo["members"] if m.get("mname") != "name"]  # added since
    _member(old, "ToDo", "toDoStatus")["listOfEnumValues"] = "PENDING,DONE"  # a conflict
    _named(old["serviceConfigurations"], "SubTaskServiceConfiguration")["apiPort"] = 3330
    en = _named(old["languages"], "en", "languageCode")
    _named(en["translationEntries"], "todo.subtasks", "localeID")["localeValue"] = "Subtasks"
    old["languages"] = [lang for lang in old["languages"] if lang["languageCode"] != "ar"]
    dummy = _named(old["authentication"], "DummyAuthProvider")
    _named(dummy["config"], "testConfig", "key")["value"] = "an-old-secret"
    old["blankPages"].append(
        {
            "name": "LegacyPage",
            "updateRouteMenu": True,
            "targetMenu": "side",
            "targetSpace": "public",
        }
    )
    return old


def todo_plan() -> ExecutionPlan:
    head = golden_raw()
    return plan_of(head, applied(older_todo(head)))


CASES = [
    pytest.param(library_plan, "library", id="library"),
    pytest.param(todo_plan, "todoapp-update", id="todoapp-update"),
]


def _check(name: str, text: str) -> None:
    golden = GOLDEN_DIR / name
    if os.environ.get("AVEROS_CI_UPDATE_GOLDENS") == "1":
        golden.write_bytes(text.encode("utf-8"))
    assert golden.exists(), f"missing {golden}: run with AVEROS_CI_UPDATE_GOLDENS=1"
    assert text.encode("utf-8") == golden.read_bytes(), (
        f"{name} differs from its golden; if intended, regenerate with AVEROS_CI_UPDATE_GOLDENS=1"
    )


@pytest.mark.parametrize(("make", "stem"), CASES)
def test_markdown_is_byte_identical_to_golden(make: Any, stem: str) -> None:
    _check(f"{stem}.plan.md", render_markdown(make()))


@pytest.mark.parametrize(("make", "stem"), CASES)
def test_text_is_byte_identical_to_golden(make: Any, stem: str) -> None:
    _check(f"{stem}.plan.txt", render_text(make()))


def test_library_rendering_shows_the_values_reviewers_approve() -> None:
    """What issue 14 measured as missing, now in both renderings."""
    plan = library_plan()
    text, markdown = render_text(plan), render_markdown(plan)
    for expected in (
        "~ apiPort: 3000 → 3100",
        '~ book.title: "Titre" → "Titre (v2)"',
        '~ book.title: "Title" → "Book title"',
        "+ summary: textarea",
    ):
        assert expected in text
    assert "\\~ apiPort: 3000 → 3100" in markdown
    assert '`~` book.title: "Titre" → "Titre (v2)"' in markdown
    assert "`+` summary: textarea" in markdown
    # grouped by element: the member under its entity, each entry under its language
    lines = text.splitlines()
    assert lines[lines.index("    + summary: textarea  [add-simple-member]") - 1] == "  entity:Book"
    fr = lines.index("  translation:fr")
    assert lines[fr + 1].startswith('    ~ book.title: "Titre"')
    assert plan.counts.create == 1 and plan.counts.update == 3


def test_todo_rendering_masks_the_provider_config() -> None:
    plan = todo_plan()
    for text in (render_text(plan), render_markdown(plan)):
        assert "an-old-secret" not in text and "testConfigurationValue" not in text
        assert "config: (sensitive) → (sensitive) (entries changed: testConfig)" in text


def test_cli_renders_the_same_text_and_markdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    state = tmp_path / "state.json"
    FileStateStore(state).save(applied(_yaml(LIBRARY_BASE)))
    for fmt, render in (("text", render_text), ("markdown", render_markdown)):
        code = run_cli(
            ["plan", "--manifest", str(LIBRARY_HEAD), "--state", str(state), "--format", fmt]
        )
        out, err = capsys.readouterr()
        assert code == 0, err
        # the CLI plans with the execution settings of its (default) config
        execution = execution_identity(default_config())
        head = plan_of(_yaml(LIBRARY_HEAD), applied(_yaml(LIBRARY_BASE)), execution=execution)
        assert out == render(head)
        assert "\x1b[" not in out  # no colours into a pipe
