"""edit_manifest: a JSON Patch keeps a YAML manifest's comments; bad input is a tool error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mcp import ClientSession

from tests.conftest import git
from tests.mcp.conftest import COMMENTED, drive, error_of

STATUS = {
    "memberNature": "simple",
    "ename": "ToDoTask",
    "mname": "status",
    "memberType": "enumeration",
    "listOfEnumValues": "open,done",
}


def _commented(repo: Path) -> Path:
    path = repo / "apps" / "todo.manifest.yaml"
    path.parent.mkdir()
    path.write_text(COMMENTED)
    return path


def test_a_patch_keeps_comments_and_returns_the_plan(repo: Path) -> None:
    path = _commented(repo)

    async def script(s: ClientSession) -> object:
        patch = [
            {"op": "test", "path": "/applicationName", "value": "ToDoApp"},
            {"op": "add", "path": "/entities/0/members/-", "value": STATUS},
            {"op": "replace", "path": "/defaultLanguageCode", "value": "fr"},
        ]
        return await s.call_tool(
            "edit_manifest", {"path": "apps/todo.manifest.yaml", "patch": patch}
        )

    result = drive(repo, script)
    assert not result.is_error, result.content
    text = path.read_text()
    for comment in (
        "# The ToDo application: a comment the edit must keep\n",
        "applicationName: ToDoApp  # trailing comment\n",
        "  # the tasks\n",
        "      - {memberNature: simple, ename: ToDoTask, mname: title, memberType: string}\n",
        '    apiHost: "localhost"\n',
    ):
        assert comment in text
    assert "defaultLanguageCode: fr\n" in text
    assert "        mname: status\n        memberType: enumeration\n" in text
    out = result.structured_content
    assert out["changed"] is True and out["path"] == "apps/todo.manifest.yaml"
    assert "+defaultLanguageCode: fr" in out["diff"]
    added = [c["id"] for c in out["plan"]["diff"]["toAdd"]]
    assert "simple-field:ToDoTask:status" in added
    assert len(out["plan"]["planHash"]) == 64


def test_json_keeps_its_indentation(repo: Path) -> None:
    path = repo / "todo.manifest.json"
    data = {"applicationName": "ToDoApp", "defaultLanguageCode": "en", "entities": []}
    path.write_text(json.dumps(data, indent=4) + "\n")

    async def script(s: ClientSession) -> object:
        patch = [{"op": "copy", "from": "/applicationName", "path": "/description"}]
        return await s.call_tool("edit_manifest", {"path": "todo.manifest.json", "patch": patch})

    result = drive(repo, script)
    assert not result.is_error, result.content
    assert path.read_text() == json.dumps({**data, "description": "ToDoApp"}, indent=4) + "\n"


def test_bad_input_is_a_tool_error_and_the_server_keeps_answering(repo: Path) -> None:
    path = _commented(repo)
    outside = repo.parent / "elsewhere.manifest.yaml"
    outside.write_text(COMMENTED)
    (repo / "link.manifest.yaml").symlink_to(outside)
    big = repo / "big.manifest.yaml"
    big.write_text(COMMENTED + "#" * (10 * 1024 * 1024) + "\n")

    def edit(target: str, patch: object) -> dict[str, object]:
        return {"path": target, "patch": patch}

    async def script(s: ClientSession) -> object:
        calls = [
            edit("apps/todo.manifest.yaml", [{"op": "remove", "path": "/entities/7"}]),
            edit("apps/todo.manifest.yaml", [{"op": "jump", "path": "/x"}]),
            edit(
                "apps/todo.manifest.yaml",
                [{"op": "replace", "path": "/entities/0/members/0/ename", "value": "Nope"}],
            ),
            edit("../elsewhere.manifest.yaml", [{"op": "remove", "path": "/entities"}]),
            edit(str(outside), [{"op": "remove", "path": "/entities"}]),
            edit("link.manifest.yaml", [{"op": "remove", "path": "/entities"}]),
            edit(".git/config", []),
            edit("averos.config.json", []),
            edit("big.manifest.yaml", [{"op": "remove", "path": "/entities"}]),
        ]
        results = [await s.call_tool("edit_manifest", args) for args in calls]
        results.append(await s.call_tool("edit_manifest", {"path": 42, "patch": "nope"}))
        results.append(await s.call_tool("validate", {"path": "apps/todo.manifest.yaml"}))
        return results

    *errors, still = drive(repo, script)
    out = [error_of(r) for r in errors[:9]]
    assert out[0]["message"] == "patch/0: index 7 is out of range (the array has 1)"
    assert out[0]["type"] == "PatchError"
    assert out[1]["message"].startswith("patch/0: unknown op 'jump'")
    invalid = out[2]
    assert invalid["type"] == "ManifestInvalid"
    assert [f["code"] for f in invalid["findings"]] == ["REF-01"]
    assert (invalid["line"], invalid["column"]) == (13, 16)  # where the patched value would be
    for refused in out[3:6]:
        assert refused["type"] == "OutsideRepository"
        assert "outside the repository" in refused["message"]
    assert "inside .git" in out[6]["message"]
    assert "config file" in out[7]["message"]
    assert out[8]["code"] == "SYN-02" and "byte limit" in out[8]["message"]
    assert errors[9].is_error  # arguments that fail the input schema
    assert path.read_text() == COMMENTED and outside.read_text() == COMMENTED  # nothing written
    assert not still.is_error and still.structured_content["valid"] is True
    assert not [p for p in os.listdir(path.parent) if p.endswith(".tmp")]
    assert git(repo, "status", "--porcelain", "--", "todoapp.manifest.yaml") == ""


def test_the_plan_after_an_edit_carries_the_policy_verdict(repo: Path) -> None:
    config = repo / "averos.config.json"
    config.write_text(
        json.dumps({**json.loads(config.read_text()), "policy": {"forbidRemovals": True}})
    )
    git(repo, "commit", "-qam", "forbid removals")
    subprocess.run(
        [sys.executable, "-m", "averos_ci", "run"], cwd=repo, check=True, capture_output=True
    )
    assert (repo / ".averos" / "state.json").exists()

    async def script(s: ClientSession) -> object:
        patch = [{"op": "remove", "path": "/entities/1/members/2"}]
        return await s.call_tool("edit_manifest", {"path": "todoapp.manifest.yaml", "patch": patch})

    result = drive(repo, script)
    assert not result.is_error, result.content
    plan = result.structured_content["plan"]
    assert plan["policy"]["passed"] is False
    assert [v["rule"] for v in plan["policy"]["violations"]] == ["forbidRemovals"]
    assert [c["id"] for c in plan["diff"]["toRemove"]] == ["simple-field:ToDoTask:status"]
