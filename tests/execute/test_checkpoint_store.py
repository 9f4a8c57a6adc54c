"""FileCheckpointStore: journal format, torn tail tolerated, corruption refused, plan binding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.errors import StateError
from averos_ci.execute import (
    CheckpointStatus,
    ExecutionCheckpoint,
    FileCheckpointStore,
    MemoryCheckpointStore,
)

PLAN = "a" * 64


def cp(node_id: str, status: CheckpointStatus = CheckpointStatus.SUCCESS) -> ExecutionCheckpoint:
    return ExecutionCheckpoint(node_id=node_id, status=status, updated_at="2026-01-01T00:00:00Z")


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "state" / "checkpoints.json"


def filled(path: Path) -> FileCheckpointStore:
    store = FileCheckpointStore(path)
    store.begin(plan_hash=PLAN, run_id="run-1")
    store.save(cp("x", CheckpointStatus.RUNNING))
    store.save(cp("x"))
    store.save(cp("y", CheckpointStatus.FAILED))
    store.close()
    return store


def test_round_trip_keeps_the_latest_record_per_node(path: Path) -> None:
    log = filled(path).read()
    assert log.plan_hash == PLAN and log.run_ids == ["run-1"]
    assert {k: v.status for k, v in log.checkpoints.items()} == {
        "x": CheckpointStatus.SUCCESS, "y": CheckpointStatus.FAILED}  # fmt: skip
    header = json.loads(path.read_text().splitlines()[0])
    assert header["formatVersion"] == 1 and header["planHash"] == PLAN


def test_torn_trailing_record_is_ignored_and_cut_before_appending(path: Path) -> None:
    filled(path)
    with path.open("ab") as f:
        f.write(b'{"runId":"run-1","checkpoint":{"nodeId":"z","sta')
    store = FileCheckpointStore(path)
    assert set(store.load()) == {"x", "y"}
    store.begin(plan_hash=PLAN, run_id="run-2")
    store.save(cp("z"))
    store.close()
    assert set(FileCheckpointStore(path).load()) == {"x", "y", "z"}
    assert all(json.loads(line) for line in path.read_text().splitlines())


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda lines: [lines[0], b"{not json", *lines[1:]], id="garbage-line"),
        pytest.param(lambda lines: [lines[0], b"[1, 2]", *lines[1:]], id="not-an-object"),
        pytest.param(lambda lines: [b'{"hello": 1}', *lines[1:]], id="bad-header"),
        pytest.param(
            lambda lines: [lines[0], b'{"checkpoint": {"nodeId": 3}}', *lines[1:]], id="bad-record"
        ),
        pytest.param(lambda lines: [b"\xff\xfe", *lines[1:]], id="not-utf8"),
    ],
)
def test_corruption_before_the_last_line_is_a_clear_error(path: Path, damage: object) -> None:
    filled(path)
    lines = path.read_bytes().splitlines()
    path.write_bytes(b"\n".join(damage(lines)) + b"\n")  # type: ignore[operator]
    with pytest.raises(StateError) as info:
        FileCheckpointStore(path).load()
    message = str(info.value)
    assert "checkpoint file" in message and str(path) in message and "hint:" in message


def test_newer_format_version_is_refused(path: Path) -> None:
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"formatVersion": 99, "kind": "averos-ci/checkpoints",
                                "planHash": PLAN}) + "\n")  # fmt: skip
    with pytest.raises(StateError, match="format version 99"):
        FileCheckpointStore(path).load()


@pytest.mark.parametrize("store_kind", ["file", "memory"])
def test_bound_to_one_plan(path: Path, store_kind: str) -> None:
    store = FileCheckpointStore(path) if store_kind == "file" else MemoryCheckpointStore()
    store.begin(plan_hash=PLAN, run_id="r1")
    store.save(cp("x"))
    store.close()
    with pytest.raises(StateError, match=r"another plan|belong to plan"):
        store.begin(plan_hash="b" * 64, run_id="r2")
    store.clear()
    assert store.load() == {}
    store.begin(plan_hash="b" * 64, run_id="r3")
    store.close()


def test_clear_removes_the_file(path: Path) -> None:
    store = filled(path)
    store.clear()
    assert not path.exists()
    assert store.read().plan_hash is None


@pytest.mark.parametrize(
    "tail",
    [
        pytest.param(b'{"runId":"run-1","checkpoint":{"nodeId":"z"', id="no-newline"),
        pytest.param(b'{"runId":"run-1","chec\x00\x00\x00\x00\n', id="nul-torn-last-line"),
        pytest.param(b"\x00" * 4096, id="zero-padding"),
    ],
)
def test_crash_tails_are_tolerated(path: Path, tail: bytes) -> None:
    filled(path)
    with path.open("ab") as f:
        f.write(tail)
    assert set(FileCheckpointStore(path).load()) == {"x", "y"}


def test_closed_file_has_no_padding(path: Path) -> None:
    filled(path)
    raw = path.read_bytes()
    assert b"\x00" not in raw and raw.endswith(b"\n")
    assert len(raw.splitlines()) == 5  # header, run, 3 records
