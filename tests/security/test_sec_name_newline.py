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
from tests.manifest.manifest_samples import GOOD_YAML

# the valid sample manifest, one name at a time ending in a newline
NAMES = {
    "application": ("applicationName: ShopApp\n", 'applicationName: "ShopApp\\n"\n'),
    "entity": ("  - name: Customer\n", '  - name: "Customer\\n"\n'),
    "member": ("        mname: email\n", '        mname: "email\\n"\n'),
}


@pytest.mark.parametrize("which", sorted(NAMES))
def test_a_name_ending_in_a_newline_is_refused(
    tmp_path: Path, which: str, capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad = NAMES[which]
    assert good in GOOD_YAML
    manifest = tmp_path / "shop.manifest.yaml"
    manifest.write_text(GOOD_YAML.replace(good, bad, 1))
    assert run_cli(["validate", str(manifest)]) == 2
    out = capsys.readouterr().out
    assert "\\n" in out and "error CON-0" in out, out  # the name, located, refused


@pytest.mark.parametrize("rule", [PASCAL, IDENTIFIER, LOCALE_ID, APP_NAME])
def test_every_name_rule_matches_the_whole_name(rule: re.Pattern[str]) -> None:
    assert rule.match("Book") and not rule.match("Book\n")
