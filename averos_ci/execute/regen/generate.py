"""A clean generation: the plan of a manifest from an empty state, run by the ordinary engine
in a scratch workspace (``<state folder>/regen/<key>/``). Checkpointed there, so an interrupted
generation resumes where it stopped; its tree is then kept in the pristine store and the
scratch workspace removed.

The store is never read here: its trees come from the state branch, which more people can
push than can merge to the default branch, so a tree taken from it could hold any file. The
tree of a manifest about to be applied is always generated; only the *base* tree may come
from the store, and only once checked against the applied state (``patching._base``).
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from averos_ci._model import RunMode
from averos_ci.execute.checkpoints import FileCheckpointStore
from averos_ci.execute.contracts import CancelToken, CheckpointStatus, ExecutionAdapter
from averos_ci.execute.events import RunnerEventListener
from averos_ci.execute.regen.tree import PristineStore, Tree, snapshot, tree_key
from averos_ci.execute.runner import Runner, RunnerOptions, RunResult
from averos_ci.plan.planner import plan_manifest


@dataclass(frozen=True)
class Generation:
    key: str
    tree: Tree | None  # None: the generation failed or was interrupted
    result: RunResult  # the run of the clean generation (never taken from the store)
    failure: str | None = None  # why a clean generation of this manifest fails

    @property
    def interrupted(self) -> str | None:
        return self.result.interrupted


def generate(
    manifest: dict[str, Any],
    *,
    adapter: ExecutionAdapter,
    execution: Mapping[str, Any] | None,
    store: PristineStore,
    scratch_root: Path,
    logs_dir: Path | None = None,
    listeners: Sequence[RunnerEventListener] = (),
    cancel: CancelToken | None = None,
    max_attempts: int = 1,
    timeout_ms: int | None = None,
    development: bool = False,
    verbose: bool = False,
) -> Generation:
    """The tree a clean generation of ``manifest`` writes (kept in ``store`` afterwards)."""
    plan = plan_manifest(manifest, None, execution=execution).plan
    key = tree_key(plan.manifest_hash, execution)
    scratch = scratch_root / key[:16]
    workspace = scratch / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    prepare = getattr(adapter, "prepare_scratch", None)
    if callable(prepare):  # e.g. share installed dependencies instead of copying them
        prepare(workspace)
    checkpoints = FileCheckpointStore(scratch / "checkpoints.jsonl")
    log = checkpoints.read()
    if log.plan_hash is not None and log.plan_hash != plan.plan_hash:
        checkpoints.clear()  # another averos-ci's plan of the same key: start over
    resume = bool(log.checkpoints) and log.plan_hash == plan.plan_hash
    runner = Runner(
        plan=plan,
        adapter=adapter,
        checkpoints=checkpoints,
        cancel=cancel,
        listeners=listeners,
        options=RunnerOptions(
            workspace_root=workspace,
            logs_dir=logs_dir or scratch / "logs",
            mode=RunMode.STRICT,
            max_attempts=max_attempts,
            timeout_ms=timeout_ms,
            development=development,
            verbose=verbose,
        ),
    )
    try:
        result = runner.run(resume=resume)
        if not result.summary.success:
            failure = None
            if result.interrupted is None:
                first = result.summary.failures[0] if result.summary.failures else None
                failure = "a clean generation of the manifest fails" + (
                    f" at {first.node_id}: {first.failure.message}" if first else ""
                )
            return Generation(key, None, result, failure)
        written: dict[str, tuple[str, ...]] = {}
        for node_id, cp in sorted(checkpoints.load().items()):
            m = cp.runtime_mutation
            if cp.status is CheckpointStatus.SUCCESS and m is not None:
                written[node_id] = tuple(sorted({*m.created, *m.updated}))
    finally:
        checkpoints.close()
    files = snapshot(workspace)
    nodes = {n: tuple(p for p in paths if p in files) for n, paths in written.items()}
    tree = Tree(files, {n: p for n, p in nodes.items() if p})
    store.save(key, tree)
    shutil.rmtree(scratch, ignore_errors=True)
    with contextlib.suppress(OSError):
        scratch_root.rmdir()  # only when no other generation waits there
    return Generation(key, tree, result)
