"""A rename's counts with the real Averos schematics (issue 38 item 5): the library's Book
becomes Volume while the user has edited Book's generated model. The plan counts the rename as
renames (never creations) and the moved model's stats are its content change, counted against
``book.ts`` as git's rename detection counts it — not the whole file as added lines. One plan
(one generation of the new manifest); ``plan --diff``'s rename, applied by git, gives the file."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from averos_ci.plan.model import BESIDE_THE_PLAN, ExecutionPlan
from averos_ci.plan.patch_render import git_diff
from averos_ci.plan.render import render_text
from tests.execute.regen.test_regen_angular_rename import NEW, OLD, USER_LINE, _renamed
from tests.scenarios.angular.applied import LIBRARY_WITH_SHELF, ApplyProject, with_user_line

pytestmark = [pytest.mark.angular, pytest.mark.slow]


def _git(cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=cwd, input=stdin, text=True, capture_output=True, check=False
    )


def test_a_renamed_entity_counts_renames_and_its_moved_model_counts_only_its_changes(
    applied_project: ApplyProject, angular_env: Path, tmp_path: Path
) -> None:
    project = applied_project(LIBRARY_WITH_SHELF, tmp_path / "p")
    ws = project / "workspace"
    model = ws / OLD
    model.write_bytes(with_user_line(model.read_bytes().decode(), USER_LINE).encode())
    manifest = project / "library.manifest.yaml"
    manifest.write_text(_renamed(manifest.read_text()))
    out = tmp_path / "plan.json"
    config = str(project / "averos.config.json")
    assert run_cli(["plan", "--config", config, "--out", str(out)]) == 0
    wire = json.loads(out.read_text())

    plan = ExecutionPlan.model_validate({k: v for k, v in wire.items() if k not in BESIDE_THE_PLAN})
    text = render_text(plan)
    assert "> entity:Book → entity:Volume (renamed)  [averos-entity]" in text, text
    renames = wire["summary"]["rename"]
    assert renames > 1 and f", {renames} to rename, " in text  # Volume and its members
    assert "\n    + bookId" not in text and "\n    + volumeId" not in text  # never "created"

    files = wire["codePatch"]["files"]
    renamed = [f for f in files if f["status"] == "renamed"]
    [moved] = [f for f in renamed if f["oldPath"] == OLD]
    assert wire["summary"]["files"]["renamed"] == len(renamed)  # each moved file, counted once
    assert (moved["oldPath"], moved["path"]) == (OLD, NEW)
    # a file the generator moved is a rename whether the user edited it or not: never a
    # deletion and a creation
    created = {f["path"] for f in files if f["status"] == "created"}
    deleted = {f["path"] for f in files if f["status"] == "deleted"}
    assert not {p.replace("book", "volume") for p in deleted} & created, (deleted, created)
    assert not any(f["merged"] for f in renamed if f is not moved)  # nothing of the user's
    diff = git_diff({**wire["codePatch"], "files": [moved]})  # the rename alone
    copy = tmp_path / "copy"
    shutil.copytree(ws, copy, ignore=shutil.ignore_patterns("node_modules", ".angular"))
    assert _git(copy, "init", "-q").returncode == 0
    applied = _git(copy, "apply", "-", stdin=diff)
    assert applied.returncode == 0, applied.stderr
    volume = (copy / NEW).read_text()
    assert not (copy / OLD).exists() and "export class Volume" in volume
    assert volume.count(USER_LINE) == 1
    # git's own count of book.ts (as edited) -> volume.ts: the stats the plan shows
    numstat = _git(tmp_path, "diff", "--no-index", "--numstat", str(model), str(copy / NEW))
    added, removed = map(int, re.split(r"\s+", numstat.stdout.strip())[:2])
    assert (moved["added"], moved["removed"]) == (added, removed), numstat.stdout
    assert removed > 0 and added < len(volume.splitlines())  # not the whole file as added
    assert f"{OLD} → {NEW} (renamed, +{added} -{removed})" in text
    # the whole of ``plan --diff`` applies with git and gives each file the bytes the plan
    # hashed (CRLF and mixed line endings, last lines without newline: the generator's own)
    whole = tmp_path / "whole"
    shutil.copytree(ws, whole, ignore=shutil.ignore_patterns("node_modules", ".angular"))
    assert _git(whole, "init", "-q").returncode == 0
    applied = _git(whole, "apply", "-", stdin=git_diff(wire["codePatch"]))
    assert applied.returncode == 0, applied.stderr
    for f in files:
        target = whole / f["path"]
        digest = hashlib.sha256(target.read_bytes()).hexdigest() if target.exists() else None
        assert digest == f["after"], f["path"]
        assert f["status"] != "renamed" or not (whole / f["oldPath"]).exists()
