"""State files: versioned, upgraded, written atomically, refused with a located message."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from averos_ci.errors import StateError
from averos_ci.plan import plan_manifest
from averos_ci.plan.canonical import canonical_json
from averos_ci.plan.planner import sha256_json
from averos_ci.state import (
    STATE_FORMAT_VERSION,
    AppliedState,
    FileStateStore,
    MemoryStateStore,
    NodeState,
    state_hash,
)
from averos_ci.state.model import EMPTY_STATE_HASH, upgrade
from tests.plan.plan_samples import example_raw, normalized


@pytest.fixture(scope="module")
def manifest() -> dict[str, object]:
    return normalized(example_raw())


def _state(manifest: dict[str, object]) -> AppliedState:
    return AppliedState(
        manifest=manifest,
        manifest_hash=sha256_json(manifest),
        serial=3,
        lineage="lineage-1",
        built_at="2026-01-02T03:04:05.000Z",
        node_states={
            "application:ToDoApp": NodeState(
                args_hash="ab" * 32, applied_at="2026-01-02T03:04:05.000Z"
            )
        },
    )


def test_save_and_load_round_trip(tmp_path: Path, manifest: dict[str, object]) -> None:
    path = tmp_path / "nested" / ".averos" / "state.json"
    store = FileStateStore(path)
    assert store.load() is None
    state = _state(manifest)
    store.save(state)
    assert store.load() == state
    assert FileStateStore(path).load() == state
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["formatVersion"] == STATE_FORMAT_VERSION
    assert doc["nodeStates"]["application:ToDoApp"]["argsHash"] == "ab" * 32
    assert sorted(os.listdir(path.parent)) == ["state.json"]


def test_save_replaces_atomically_and_leaves_no_temp_files(
    tmp_path: Path, manifest: dict[str, object]
) -> None:
    path = tmp_path / "state.json"
    store = FileStateStore(path)
    first = _state(manifest)
    store.save(first)
    inode_before = path.stat().st_ino
    second = first.successor(manifest=manifest, manifest_hash=first.manifest_hash, node_states={})
    store.save(second)
    assert sorted(os.listdir(tmp_path)) == ["state.json"]
    assert path.stat().st_ino != inode_before, "replaced by rename, not rewritten in place"
    loaded = store.load()
    assert loaded == second
    assert loaded is not None and loaded.serial == 4 and loaded.lineage == "lineage-1"
    assert path.read_text(encoding="utf-8") == canonical_json(second.to_wire())


def test_failed_save_keeps_the_old_file(tmp_path: Path, manifest: dict[str, object]) -> None:
    """The write itself fails (the file-size limit is hit mid-write, EFBIG): the old file stays
    intact and no temporary file is left behind."""
    path = tmp_path / "state.json"
    store = FileStateStore(path)
    store.save(_state(manifest))
    before = path.read_bytes()
    bigger = _state(manifest).successor(
        manifest={**manifest, "description": "x" * (4 * len(before))},
        manifest_hash="h",
        node_states={},
    )
    source = tmp_path / "src" / "new.json"
    FileStateStore(source).save(bigger)
    target = tmp_path / "target"
    target.mkdir()
    path = target / "state.json"
    store.path.replace(path)
    child = textwrap.dedent(
        f"""
        import resource, signal, sys
        from pathlib import Path
        import averos_ci.plan  # noqa: F401 (importing averos_ci.state first is circular today)
        from averos_ci.state import FileStateStore
        new = FileStateStore(Path({str(source)!r})).load()
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write(), not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, ({len(before) + 64}, resource.RLIM_INFINITY))
        try:
            FileStateStore(Path({str(path)!r})).save(new)
        except OSError as exc:
            sys.exit(f"save failed: {{exc}}")
        """
    )
    run = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1, run.stderr
    assert "save failed: [Errno 27] File too large" in run.stderr
    assert path.read_bytes() == before
    assert sorted(os.listdir(target)) == ["state.json"]


def test_v1_state_is_upgraded(tmp_path: Path, manifest: dict[str, object]) -> None:
    path = tmp_path / "state.json"
    path.write_text(
        json.dumps(
            {
                "formatVersion": 1,
                "manifest": manifest,
                "manifestHash": "abc",
                "builtAt": "2025-05-05T00:00:00.000Z",
            }
        )
    )
    state = FileStateStore(path).load()
    assert state is not None
    assert state.format_version == STATE_FORMAT_VERSION
    assert state.serial == 1
    assert state.manifest == manifest
    assert state.manifest_hash == "abc"
    assert state.built_at == "2025-05-05T00:00:00.000Z"
    assert state.node_states == {}
    assert state.lineage == str(uuid.uuid5(uuid.NAMESPACE_URL, "averos-ci:abc"))
    # upgrading is deterministic: the same v1 file always gives the same state (and hash)
    assert state_hash(FileStateStore(path).load()) == state_hash(state)
    plan = plan_manifest(manifest, state).plan
    assert not plan.has_changes


def test_upgrade_is_pure_and_leaves_current_versions_alone() -> None:
    current = {"formatVersion": 4, "serial": 7}
    assert upgrade(current) is current
    v1 = {"formatVersion": 1, "manifest": {}, "manifestHash": "h"}
    snapshot = json.dumps(v1, sort_keys=True)
    upgraded = upgrade(v1)
    assert json.dumps(v1, sort_keys=True) == snapshot
    assert upgraded["formatVersion"] == 4
    assert upgraded["adapter"] is None and upgraded["workspace"] is None  # unknown, not guessed
    v2 = {"formatVersion": 2, "serial": 7}
    assert upgrade(v2) == {"formatVersion": 4, "serial": 7, "adapter": None, "workspace": None}
    assert v2 == {"formatVersion": 2, "serial": 7}


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"{", "corrupt or truncated"),
        (b"\x00\xff", "not UTF-8"),
        (b"[]", "JSON object"),
        (b"{}", "formatVersion"),
        (b'{"formatVersion": true}', "formatVersion"),
        (b'{"formatVersion": 99}', "newer than this averos-ci supports"),
        (b'{"formatVersion": 2, "serial": 1}', "invalid at /manifest"),
    ],
    ids=["truncated", "binary", "list", "no-version", "bool-version", "future", "fields"],
)
def test_unusable_files_raise_state_error_naming_the_file(
    tmp_path: Path, content: bytes, words: str
) -> None:
    path = tmp_path / "state.json"
    path.write_bytes(content)
    with pytest.raises(StateError) as info:
        FileStateStore(path).load()
    assert info.value.path == str(path)
    assert words in info.value.message
    assert info.value.exit_code == 2
    assert str(path) in str(info.value)


def test_corrupt_json_is_located(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text('{\n  "formatVersion": 2,\n  "serial": ,\n}')
    with pytest.raises(StateError) as info:
        FileStateStore(path).load()
    assert (info.value.line, info.value.column) == (3, 13)
    assert str(info.value).startswith(f"{path}:3:13: ")


def test_memory_store(manifest: dict[str, object]) -> None:
    store = MemoryStateStore()
    assert store.load() is None
    state = _state(manifest)
    store.save(state)
    assert store.load() is state


def test_state_hash(manifest: dict[str, object]) -> None:
    state = _state(manifest)
    assert state_hash(None) == EMPTY_STATE_HASH
    assert state_hash(state) == state_hash(AppliedState.model_validate(state.to_wire()))
    assert state_hash(state) != state_hash(state.model_copy(update={"serial": 4}))
    assert state_hash(state) != EMPTY_STATE_HASH


def test_first_and_successor(manifest: dict[str, object]) -> None:
    first = AppliedState.first(manifest=manifest, manifest_hash="h", node_states={})
    assert first.serial == 1
    uuid.UUID(first.lineage)
    nxt = first.successor(manifest=manifest, manifest_hash="h2", node_states={})
    assert (nxt.serial, nxt.lineage, nxt.manifest_hash) == (2, first.lineage, "h2")
    other = AppliedState.first(manifest=manifest, manifest_hash="h", node_states={})
    assert other.lineage != first.lineage


def test_failed_replace_leaves_no_temp_file(tmp_path: Path, manifest: dict[str, object]) -> None:
    blocker = tmp_path / "state.json"
    blocker.mkdir()
    (blocker / "keep").write_text("x")  # os.replace cannot replace a non-empty directory
    with pytest.raises(OSError):
        FileStateStore(blocker).save(_state(manifest))
    assert sorted(os.listdir(tmp_path)) == ["state.json"]
    assert sorted(os.listdir(blocker)) == ["keep"]
