"""Attack: a manifest name ending in a newline (``"Book\\n"``) passed the name rules (Python's
``$`` also matches before a final newline) and became a file name (``book⏎.ts``) and a
schematic argument. Every name rule must match the whole name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from averos_ci.execute.adapters.angular.template.workspace import APP_NAME
from averos_ci.manifest.names import IDENTIFIER, LOCALE_ID, PASCAL

MANIFEST = """\
applicationName: {app}
entities:
  - name: {entity}
    members:
      - name: {member}
        memberType: string
"""


@pytest.mark.parametrize(
    ("app", "entity", "member"),
    [
        ('"ShopApp\\n"', "Book", "title"),
        ("ShopApp", '"Book\\n"', "title"),
        ("ShopApp", "Book", '"title\\n"'),
    ],
    ids=["application", "entity", "member"],
)
def test_a_name_ending_in_a_newline_is_refused(
    tmp_path: Path, app: str, entity: str, member: str, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = tmp_path / "shop.manifest.yaml"
    manifest.write_text(MANIFEST.format(app=app, entity=entity, member=member))
    assert run_cli(["validate", str(manifest)]) == 2
    assert "error" in capsys.readouterr().out


@pytest.mark.parametrize("rule", [PASCAL, IDENTIFIER, LOCALE_ID, APP_NAME])
def test_every_name_rule_matches_the_whole_name(rule: re.Pattern[str]) -> None:
    assert rule.match("Book") and not rule.match("Book\n")
