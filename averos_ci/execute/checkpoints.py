"""CheckpointStore: durable per-node progress, bound to one planHash (File journal + Memory).

The file is an append-only JSON-lines journal::

    {"formatVersion":1,"kind":"averos-ci/checkpoints","planHash":"…","createdAt":"…"}
    {"run":{"runId":"…","startedAt":"…"}}
    {"runId":"…","checkpoint":{"nodeId":"…","status":"SUCCESS",…}}
    {"completed":{"runId":"…","at":"…"}}

``completed`` is written (fsync'd) after a fully successful run, before the state is saved
and the file deleted: a journal that says ``completed`` but belongs to another plan is left
over from a crash in between, and is discarded by the next run.

The header is created atomically (temp file + fsync + rename). Records are appended, one
``pwrite`` each, into space zero-filled ahead of time (1 MiB at a time, its size fsync'd
once), so that making a terminal record (SUCCESS/FAILED/SKIPPED) durable is a data-only
``fdatasync`` before the runner moves on; the padding is cut off when the store is closed.
A crash can only tear the *last* record: an incomplete last line (no newline, or NUL
padding) or an unparsable last line is ignored on load and cut off before the next append.
A bad line anywhere else is corruption and a :class:`StateError`. RUNNING records are not
synced on their own: losing one only turns "interrupted" into "never started", and both
are re-run on resume.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from averos_ci._fs import atomic_write_text, fsync_dir
from averos_ci._validation import first_problem
from averos_ci.errors import StateError
from averos_ci.execute.averos_checkpoints import AVEROS_UNBOUND, averos_checkpoints
from averos_ci.execute.contracts import CheckpointStatus, ExecutionCheckpoint
from averos_ci.state.model import now_iso

CHECKPOINT_FORMAT_VERSION = 1
CHECKPOINT_KIND = "averos-ci/checkpoints"
_CHUNK = 1024 * 1024
_datasync = getattr(os, "fdatasync", os.fsync)  # macOS has no fdatasync
_HINT = "delete the checkpoint file (or pass --replan) to start the run over"


class _CheckpointLine(BaseModel):
    """A checkpoint record read and validated in one step: a resume reads thousands."""

    model_config = ConfigDict(extra="ignore")  # its runId is not kept
    checkpoint: ExecutionCheckpoint


@dataclass
class CheckpointLog:
    """What a store holds: the plan it is bound to, the runs and the latest record per node."""

    plan_hash: str | None = None
    run_ids: list[str] = field(default_factory=list)
    checkpoints: dict[str, ExecutionCheckpoint] = field(default_factory=dict)
    completed: bool = False  # the run finished successfully; only clean-up may be missing


class CheckpointStore(Protocol):
    def read(self) -> CheckpointLog: ...
    def load(self) -> dict[str, ExecutionCheckpoint]: ...
    def begin(self, *, plan_hash: str, run_id: str) -> None: ...
    def save(self, checkpoint: ExecutionCheckpoint) -> None: ...
    def complete(self) -> None: ...
    def clear(self) -> None: ...
    def close(self) -> None: ...


class MemoryCheckpointStore:
    def __init__(self) -> None:
        self.log = CheckpointLog()
        self._lock = threading.Lock()

    def read(self) -> CheckpointLog:
        with self._lock:
            return CheckpointLog(
                self.log.plan_hash,
                list(self.log.run_ids),
                dict(self.log.checkpoints),
                self.log.completed,
            )

    def load(self) -> dict[str, ExecutionCheckpoint]:
        return self.read().checkpoints

    def begin(self, *, plan_hash: str, run_id: str) -> None:
        with self._lock:
            if self.log.plan_hash not in (None, AVEROS_UNBOUND, plan_hash):
                raise StateError("checkpoints belong to another plan", hint=_HINT)
            self.log.plan_hash = plan_hash
            self.log.run_ids.append(run_id)

    def save(self, checkpoint: ExecutionCheckpoint) -> None:
        with self._lock:
            self.log.checkpoints[checkpoint.node_id] = checkpoint

    def complete(self) -> None:
        with self._lock:
            self.log.completed = True

    def clear(self) -> None:
        with self._lock:
            self.log = CheckpointLog()

    def close(self) -> None:
        pass


class FileCheckpointStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None
        self._end = 0  # where the next record goes
        self._allocated = 0  # file size: records are written into zero-filled space
        self._closed = False
        self._run_id = '""'  # JSON-encoded
        # the last parse, keyed by (inode, size, mtime): resume reads a big file once
        self._parsed: tuple[tuple[int, int, int], CheckpointLog, int] | None = None
        self._lock = threading.Lock()

    def read(self) -> CheckpointLog:
        return self._parse()[0]

    def load(self) -> dict[str, ExecutionCheckpoint]:
        return self.read().checkpoints

    def begin(self, *, plan_hash: str, run_id: str) -> None:
        log, valid_len = self._parse()
        carried: list[ExecutionCheckpoint] = []
        if log.plan_hash == AVEROS_UNBOUND:  # rewritten in our format, Averos's progress kept
            carried = [c for c in log.checkpoints.values() if c.status is CheckpointStatus.SUCCESS]
            log.plan_hash = None
        if log.plan_hash is not None and log.plan_hash != plan_hash:
            raise StateError(
                f"checkpoints belong to plan {log.plan_hash[:12]}, not {plan_hash[:12]}",
                path=self.path,
                hint=_HINT,
            )
        if log.plan_hash is None:
            header = {
                "formatVersion": CHECKPOINT_FORMAT_VERSION,
                "kind": CHECKPOINT_KIND,
                "planHash": plan_hash,
                "createdAt": now_iso(),
            }
            text = json.dumps(header, separators=(",", ":")) + "\n"
            atomic_write_text(self.path, text)
            valid_len = len(text.encode("utf-8"))
        self.close()
        self._fd = os.open(self.path, os.O_RDWR)
        os.ftruncate(self._fd, valid_len)  # drop a torn trailing record and old padding
        self._end = self._allocated = valid_len
        self._closed = False
        self._run_id = json.dumps(run_id)
        run = {"run": {"runId": run_id, "startedAt": now_iso()}}
        self._append(json.dumps(run, separators=(",", ":")), sync=True)
        for checkpoint in carried:
            self.save(checkpoint)

    def save(self, checkpoint: ExecutionCheckpoint) -> None:
        body = checkpoint.model_dump_json(by_alias=True)
        line = f'{{"runId":{self._run_id},"checkpoint":{body}}}'
        self._append(line, sync=checkpoint.status is not CheckpointStatus.RUNNING)

    def complete(self) -> None:
        if self._fd is None:  # nothing was begun (or it is already cleared)
            return
        marker = {"completed": {"runId": json.loads(self._run_id), "at": now_iso()}}
        self._append(json.dumps(marker, separators=(",", ":")), sync=True)

    def clear(self) -> None:
        self.close()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            return
        fsync_dir(self.path.parent)

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.ftruncate(self._fd, self._end)  # at rest the file holds no padding
                os.close(self._fd)
                self._fd = None
                self._closed = True

    def _append(self, line: str, *, sync: bool) -> None:
        data = (line + "\n").encode("utf-8")
        with self._lock:
            if self._fd is None:
                if self._closed:  # a node abandoned after the grace period finished late
                    return
                raise RuntimeError("FileCheckpointStore.begin() was not called")
            end = self._end + len(data)
            if end > self._allocated:
                self._grow(end)
            os.pwrite(self._fd, data, self._end)
            self._end = end
            if sync:
                _datasync(self._fd)

    def _grow(self, end: int) -> None:
        """Zero-fill the next chunk and make the new size durable once, so that syncing a
        record is a data-only ``fdatasync`` (about half the cost of syncing an append)."""
        assert self._fd is not None
        size = -(-end // _CHUNK) * _CHUNK
        os.pwrite(self._fd, bytes(size - self._allocated), self._allocated)
        os.fsync(self._fd)
        self._allocated = size

    def _parse(self) -> tuple[CheckpointLog, int]:
        """Return the log and the length of its valid prefix (a torn last line excluded)."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return CheckpointLog(), 0
        except OSError:
            st = None
        key = (st.st_ino, st.st_size, st.st_mtime_ns) if st is not None else None
        if key is not None and self._parsed is not None and self._parsed[0] == key:
            cached = self._parsed[1]
            copy = CheckpointLog(cached.plan_hash, list(cached.run_ids),
                                 dict(cached.checkpoints), cached.completed)  # fmt: skip
            return copy, self._parsed[2]
        log, valid_len = self._parse_file()
        if key is not None:
            self._parsed = (key, log, valid_len)
            log = CheckpointLog(log.plan_hash, list(log.run_ids), dict(log.checkpoints),
                                log.completed)  # fmt: skip
        return log, valid_len

    def _parse_file(self) -> tuple[CheckpointLog, int]:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return CheckpointLog(), 0
        except OSError as exc:
            raise StateError(
                f"cannot read checkpoint file: {exc.strerror}", path=self.path
            ) from None
        averos = averos_checkpoints(raw, path=self.path)
        if averos is not None:  # Averos's own file: unbound until this run binds it
            return CheckpointLog(plan_hash=AVEROS_UNBOUND, checkpoints=averos), len(raw)
        valid_len = raw.rfind(b"\n") + 1
        lines = raw[:valid_len].split(b"\n")[:-1]
        log = CheckpointLog()
        if not lines:
            if raw:
                raise self._corrupt(1, "the header is incomplete")
            return log, 0
        header = self._json(lines[0], 1)
        version = header.get("formatVersion")
        if header.get("kind") != CHECKPOINT_KIND or not isinstance(version, int):
            raise self._corrupt(1, "not an averos-ci checkpoint file")
        if version != CHECKPOINT_FORMAT_VERSION:
            raise StateError(
                f"unsupported checkpoint format version {version}",
                path=self.path,
                line=1,
                hint=_HINT,
            )
        plan_hash = header.get("planHash")
        if not isinstance(plan_hash, str):
            raise self._corrupt(1, "the header has no planHash")
        log.plan_hash = plan_hash
        for lineno, line in enumerate(lines[1:], start=2):
            try:
                self._record(log, line, lineno)
            except StateError:
                if lineno < len(lines):
                    raise
                # The last record may be torn by a power loss even with its newline (pages
                # reach the disk out of order): it was never acknowledged, so drop it.
                valid_len -= len(line) + 1
        return log, valid_len

    def _record(self, log: CheckpointLog, line: bytes, lineno: int) -> None:
        if b'"checkpoint":' in line:
            try:
                cp = _CheckpointLine.model_validate_json(line).checkpoint
            except ValidationError:
                pass  # the reading below says what is wrong with it
            else:
                log.checkpoints[cp.node_id] = cp
                return
        record = self._json(line, lineno)
        if "checkpoint" in record:
            try:
                cp = ExecutionCheckpoint.model_validate(record["checkpoint"])
            except ValidationError as exc:
                raise self._corrupt(lineno, first_problem(exc).msg) from None
            log.checkpoints[cp.node_id] = cp
        elif isinstance(record.get("completed"), dict):
            log.completed = True
        elif isinstance(run := record.get("run"), dict):
            log.run_ids.append(str(run.get("runId")))
        else:
            raise self._corrupt(lineno, "unknown record")

    def _json(self, line: bytes, lineno: int) -> dict[str, object]:
        try:
            value = json.loads(line)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise self._corrupt(lineno, str(exc)) from None
        if not isinstance(value, dict):
            raise self._corrupt(lineno, "a record must be a JSON object")
        return value

    def _corrupt(self, lineno: int, why: str) -> StateError:
        return StateError(
            f"checkpoint file is corrupt: {why}", path=self.path, line=lineno, hint=_HINT
        )
