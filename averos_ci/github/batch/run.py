"""Each project of a batch in turn, as a job of its own would run it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from averos_ci._actions import annotate
from averos_ci.errors import AverosCIError

from .outputs import BatchOutputs


def run_batch(
    configs: Sequence[str],
    run_one: Callable[[int, str], Any],
    *,
    environ: Mapping[str, str] | None = None,
) -> list[Any]:
    """``run_one(k, config)`` for each config (k from 1, the config's line); one project's
    failure does not stop the others (it is annotated), and the first failure is raised once
    all have run. The step outputs are then the batch's (:mod:`.outputs`), also when one
    project failed or the job was interrupted (a project that did not run set no output)."""
    outputs = BatchOutputs(len(configs), environ)
    outcomes: list[Any] = []
    failed: AverosCIError | None = None
    try:
        for k, config in enumerate(configs, start=1):
            try:
                with outputs.project(k - 1):
                    outcomes.append(run_one(k, config))
            except AverosCIError as exc:
                annotate("error", f"{config}: {exc.message}")
                failed = failed or exc
    finally:
        outputs.write()
    if failed is not None:
        raise failed
    return outcomes


def batch_result_path(path: Path, k: int) -> Path:
    """The k-th project's result file of a batch: ``averos-patch-<k>.json`` beside the
    one-project ``averos-patch.json``."""
    return path.with_name(f"{path.stem}-{k}{path.suffix}")
