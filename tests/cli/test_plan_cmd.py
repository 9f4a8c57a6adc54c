"""``averos-ci plan``: formats, --out, --detailed-exitcode, invalid manifests and state files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from averos_ci.config import default_config
from averos_ci.execute.adapters.identity import execution_identity
from averos_ci.plan import compute_plan
from averos_ci.plan.planner import sha256_json
from averos_ci.state import AppliedState, FileStateStore
from tests.conftest import copy_example
from tests.plan.plan_samples import EXAMPLE_MANIFEST

BAD = "applicationName: ShopApp\nentities:\n  - name: order\n"  # CON-02 at 3:11


@pytest.fixture(autouse=True)
def _empty_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)  # no averos.config.json, no .averos/ state: nothing leaks in


@pytest.fixture
def own_state(tmp_path: Path) -> Path:
    """A state file recording the example manifest as applied."""
    manifest = compute_plan(manifest_path=EXAMPLE_MANIFEST, state=None).manifest
    path = tmp_path / "state" / "state.json"
    FileStateStore(path).save(
        AppliedState.first(manifest=manifest, manifest_hash=sha256_json(manifest), node_states={})
    )
    return path


def plan(*args: str) -> int:
    return run_cli(["plan", "--manifest", str(EXAMPLE_MANIFEST), *args])


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_formats_show_the_plan_hash(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert plan("--format", fmt) == 0
    out = capsys.readouterr().out
    execution = execution_identity(default_config())  # no config file: the defaults
    expected = compute_plan(manifest_path=EXAMPLE_MANIFEST, state=None, execution=execution).plan
    assert expected.plan_hash in out
    member = {  # text and markdown group members under their entity (issue 14)
        "text": "    + status: enumeration (New,Active,Closed)  [add-simple-member]",
        "markdown": "  - `+` status: enumeration (New,Active,Closed)",
        "json": '"id":"simple-field:ToDoTask:status"',
    }
    assert member[fmt] in out
    if fmt == "json":
        doc = json.loads(out)
        assert doc["planHash"] == expected.plan_hash
        assert len(doc["nodes"]) == len(expected.nodes)
    elif fmt == "markdown":
        assert out.count("<details>") == out.count("</details>") > 0
    else:
        assert "    + status: enumeration (New,Active,Closed)  [add-simple-member]" in out
        assert f"Plan: {len(expected.nodes)} to create, 0 to update" in out


def test_default_format_is_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert plan() == 0
    assert capsys.readouterr().out.startswith("averos-ci plan for ToDoApp\nplanHash: ")


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_out_writes_the_file_and_nothing_on_stdout(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "deep" / "dir" / f"plan.{fmt}"
    assert plan("--format", fmt, "--out", str(target)) == 0
    out, _ = capsys.readouterr()
    assert out == ""
    assert plan("--format", fmt) == 0
    assert target.read_text(encoding="utf-8") == capsys.readouterr().out
    assert sorted(p.name for p in target.parent.iterdir()) == [target.name]  # no temp files


def test_detailed_exitcode(
    own_state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert plan("--detailed-exitcode", "--state", str(own_state)) == 0
    assert "0 to create, 0 to update" in capsys.readouterr().out
    assert plan("--detailed-exitcode", "--state", str(tmp_path / "absent.json")) == 4  # changes
    assert plan("--state", str(tmp_path / "absent.json")) == 0
    bad = tmp_path / "bad.manifest.yaml"
    bad.write_text(BAD)
    capsys.readouterr()
    assert run_cli(["plan", "--manifest", str(bad), "--detailed-exitcode"]) == 2  # invalid
    err = capsys.readouterr().err
    assert f"{bad}:3:11: error CON-02 " in err


def test_detailed_exitcode_with_a_type_change_is_4_a_replacement(
    own_state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    changed = tmp_path / "changed.manifest.yaml"
    changed.write_text(
        EXAMPLE_MANIFEST.read_text().replace(
            "mname: dueDate\n        memberType: date", "mname: dueDate\n        memberType: string"
        )
    )
    assert (
        run_cli(
            ["plan", "--manifest", str(changed), "--state", str(own_state), "--detailed-exitcode"]
        )
        == 4  # issue 21: once a conflict (5), now a replacement that applies
    )
    out, err = capsys.readouterr()
    assert "  entity:ToDoTask\n    -/+ dueDate  (forces replacement: memberType" in out
    assert '        ~ memberType: "date" → "string"' in out
    assert "cannot be applied" not in err


def test_invalid_manifest_exits_2_with_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.manifest.yaml"
    bad.write_text(BAD)
    assert run_cli(["plan", "--manifest", str(bad)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert f"{bad}:3:11: error CON-02 " in err
    assert "Traceback" not in err


def test_missing_manifest_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.yaml"
    assert run_cli(["plan", "--manifest", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{missing}:1:1: error SYN-01 manifest not found\n  hint: check the path")
    assert "config file" not in err  # given on the command line: no config-file hint


def test_max_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    size = EXAMPLE_MANIFEST.stat().st_size
    assert plan("--max-bytes", str(size)) == 0
    assert plan("--max-bytes", str(size - 1)) == 2
    assert "SYN-02" in capsys.readouterr().err


def test_manifest_warnings_go_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "warn.manifest.yaml"
    manifest.write_text("applicationName: ShopApp\ncolour: red\n")
    assert run_cli(["plan", "--manifest", str(manifest), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    json.loads(out)
    assert f"{manifest}:2:1: warning SYN-12 " in err


def test_plan_with_the_example_config(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # A copy: README's first command leaves a state file next to the example.
    example = copy_example(tmp_path / "todoapp")
    config = example / "averos.config.json"
    assert run_cli(["plan", "--config", str(config), "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["applicationName"] == "ToDoApp"
    assert plan["counts"]["create"] == len(plan["nodes"])


def test_no_config_and_no_manifest_flag_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["plan"]) == 2
    err = capsys.readouterr().err
    assert "averos.config.json" in err
    assert "Traceback" not in err


VALID_STATE = {
    "formatVersion": 2,
    "manifest": {},
    "manifestHash": "x",
    "serial": 1,
    "lineage": "l",
    "builtAt": "2026-01-01T00:00:00.000Z",
    "nodeStates": {},
}

BAD_STATES: list[tuple[str, bytes, str]] = [
    ("corrupt", b"{not json", "corrupt"),
    ("truncated", json.dumps(VALID_STATE).encode()[:40], "truncated"),
    ("non-utf8", b'{"formatVersion": 2, "x": "\xff"}', "UTF-8"),
    ("empty", b"", "corrupt"),
    ("list", b"[1, 2]", "JSON object"),
    (
        "no-format-version",
        json.dumps({**VALID_STATE, "formatVersion": None}).encode(),
        "formatVersion",
    ),
    (
        "string-format-version",
        json.dumps({**VALID_STATE, "formatVersion": "2"}).encode(),
        "formatVersion",
    ),
    ("future-format-version", json.dumps({**VALID_STATE, "formatVersion": 99}).encode(), "newer"),
    ("zero-format-version", json.dumps({**VALID_STATE, "formatVersion": 0}).encode(), "version 0"),
    ("serial-is-text", json.dumps({**VALID_STATE, "serial": "one"}).encode(), "/serial"),
    ("manifest-is-list", json.dumps({**VALID_STATE, "manifest": []}).encode(), "/manifest"),
    (
        "missing-lineage",
        json.dumps({k: v for k, v in VALID_STATE.items() if k != "lineage"}).encode(),
        "/lineage",
    ),
    ("unknown-key", json.dumps({**VALID_STATE, "surprise": 1}).encode(), "/surprise"),
]


@pytest.mark.parametrize(("content", "words"), [pytest.param(c, w, id=i) for i, c, w in BAD_STATES])
def test_unusable_state_file_exits_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, words: str
) -> None:
    state = tmp_path / "state.json"
    state.write_bytes(content)
    assert plan("--state", str(state)) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"error: {state}")
    assert words in err
    assert "hint: " in err
    assert "Traceback" not in err and "internal error" not in err


def test_state_path_that_is_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert plan("--state", str(tmp_path)) == 2
    assert f"error: {tmp_path}" in capsys.readouterr().err


def test_state_of_a_manifest_that_no_longer_validates_is_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hand-edited state whose manifest lacks keys must be refused, not crash the planner."""
    state = tmp_path / "state.json"
    state.write_text(json.dumps({**VALID_STATE, "manifest": {"entities": {}}}))
    code = plan("--state", str(state))
    err = capsys.readouterr().err
    assert "internal error" not in err, err
    assert code == 2


@pytest.mark.parametrize("where", ["directory", "under-a-file"])
def test_unwritable_out_is_a_user_error(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "blocker"
    if where == "directory":
        blocker.mkdir()
        target = blocker
    else:
        blocker.write_text("x")
        target = blocker / "plan.json"
    code = plan("--out", str(target))
    err = capsys.readouterr().err
    assert "internal error" not in err
    assert code == 2
    assert str(target) in err
