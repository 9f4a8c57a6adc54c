"""With the real Averos schematics: a one-member change shows, in the plan comment, the lines
it changes in the entity's model file — the diff a reviewer approves with the full planHash."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from averos_ci.config import load_config
from averos_ci.forge.settings import GITHUB_COMMENT_LIMIT
from averos_ci.planning import FileState, plan_project
from averos_ci.review.comment import PlanMeta
from averos_ci.review.sections import CommentParts, render_comment
from tests.scenarios.angular.applied import LIBRARY_WITH_SHELF, ApplyProject
from tests.scenarios.angular.applied import applied_project as applied_project  # the fixture

pytestmark = [pytest.mark.angular, pytest.mark.slow]

LABEL = "{ memberNature: simple, ename: Shelf, mname: label, memberType: string }"
FLOOR = "{ memberNature: simple, ename: Shelf, mname: floorName, memberType: string }"


def test_a_one_member_change_shows_the_changed_lines_of_the_model_file(
    applied_project: ApplyProject, angular_env: Path, tmp_path: Path
) -> None:
    project = applied_project(LIBRARY_WITH_SHELF, tmp_path / "library")
    manifest = project / "library.manifest.yaml"
    text = manifest.read_text(encoding="utf-8")
    indent = re.search(rf"^( *- ){re.escape(LABEL)}$", text, re.M)
    assert indent is not None
    manifest.write_text(
        text.replace(indent.group(0), f"{indent.group(0)}\n{indent.group(1)}{FLOOR}")
    )
    cfg = load_config(project / "averos.config.json")
    planned = plan_project(cfg, FileState(cfg.state_path), code_patch="always", check=True)
    plan = planned.plan
    assert planned.patch is not None and plan.code_patch is not None
    meta = PlanMeta("default", plan.plan_hash, "a" * 40, True)
    body = render_comment(CommentParts(meta=meta, plan=plan), max_chars=GITHUB_COMMENT_LIMIT)
    assert len(body) <= GITHUB_COMMENT_LIMIT
    model = "src/app/model/shelf.ts"
    changed = {f["path"]: f for f in plan.code_patch["files"]}
    assert model in changed and changed[model]["status"] == "changed"
    block = re.search(
        rf"^`{re.escape(model)}` \(changed[^\n]*\n\n(`{{3,}})diff\n(.*?)\n\1$", body, re.M | re.S
    )
    assert block is not None, body[-6000:]
    added = [x for x in block.group(2).splitlines() if x.startswith("+") and "floorName" in x]
    assert added, block.group(2)
    assert block.group(2) == changed[model]["diff"].rstrip("\n")  # the hashed diff, as it is
