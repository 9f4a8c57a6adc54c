"""The step outputs of a batch matrix entry: one value per output for all its projects.

Each project of a batch (:func:`averos_ci.github.routes.run_github` with a multi-line
``--config``) writes its outputs to ``$GITHUB_OUTPUT`` as a job of its own would. The runner
keeps the last value written for a name, so without this module the step would report the
last project alone: a batch whose first project has changes and whose last has none would say
``has-changes=false``, ``approved=true``. :class:`BatchOutputs` reads what each project
appended and, once all have run, appends each output's batch value, combined by :data:`RULES`
— the booleans the way that keeps a workflow safe, the counts summed, the paths listed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path

from averos_ci.forge.actions_env import ActionsEnv, StepReport


class Combine(StrEnum):
    """How the projects' values of one output make the batch's."""

    ANY = "any"  # true when any project's is true
    ALL = "all"  # true when every project's is true (a project that set none: false)
    SUM = "sum"  # the projects' integers added
    LINES = "lines"  # one line per project in the batch's order, empty for one that set none
    FOLDER = "folder"  # the folder that holds every project's file


RULES: Mapping[str, Combine] = {
    "has-changes": Combine.ANY,
    "patch-needed": Combine.ANY,
    "drifted": Combine.ANY,
    "unapplied": Combine.ANY,
    # a batch is approved, or applied, only when all of it is
    "approved": Combine.ALL,
    "success": Combine.ALL,
    "succeeded": Combine.SUM,
    "failed": Combine.SUM,
    "skipped": Combine.SUM,
    "plan-hash": Combine.LINES,
    "junit-path": Combine.LINES,
    "logs-path": Combine.LINES,
    "issue": Combine.LINES,
    "patch-path": Combine.FOLDER,  # ``averos-patch-<k>.json`` beside each other
}
DEFAULT = Combine.LINES  # an output without a rule loses no project's value


def parse_outputs(text: str) -> dict[str, str]:
    """The outputs in ``$GITHUB_OUTPUT`` text (``name=value`` and ``name<<DELIMITER`` lines),
    read as the runner reads them: a later value of a name replaces an earlier one."""
    outputs: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        equals, heredoc = line.find("="), line.find("<<")
        if heredoc >= 0 and (equals < 0 or heredoc < equals):
            name, _, delimiter = line.partition("<<")
            body: list[str] = []
            for inner in lines:
                if inner == delimiter:
                    break
                body.append(inner)
            outputs[name] = "\n".join(body)
        elif equals >= 0:
            name, _, value = line.partition("=")
            outputs[name] = value
    return outputs


def combine(rule: Combine, values: Sequence[str | None]) -> str:
    """The batch's value from each project's (``None``: the project set none)."""
    if rule is Combine.ANY:
        return _bool(any(v == "true" for v in values))
    if rule is Combine.ALL:
        return _bool(all(v == "true" for v in values))
    if rule is Combine.SUM:
        return str(sum(int(v) for v in values if v))
    if rule is Combine.FOLDER:
        folders = {str(Path(v).parent) for v in values if v}
        return folders.pop() if len(folders) == 1 else "\n".join(sorted(folders))
    return "\n".join(v or "" for v in values)


def combine_all(per_project: Sequence[Mapping[str, str]]) -> dict[str, str]:
    """Every output any project set, with its batch value."""
    names = dict.fromkeys(name for outputs in per_project for name in outputs)
    return {
        name: combine(RULES.get(name, DEFAULT), [o.get(name) for o in per_project])
        for name in names
    }


def _bool(value: bool) -> str:
    return "true" if value else "false"


class BatchOutputs:
    """Collects each project's outputs of a batch of ``count`` projects; :meth:`write`
    appends the batch's values (a project that never ran counts as one that set none)."""

    def __init__(self, count: int, environ: Mapping[str, str] | None = None) -> None:
        self._environ = environ
        value = (os.environ if environ is None else environ).get("GITHUB_OUTPUT")
        self._path = Path(value) if value else None
        self._per_project: list[dict[str, str]] = [{} for _ in range(count)]

    @contextmanager
    def project(self, k: int) -> Iterator[None]:
        """Around the ``k``-th project's run (from 0): keeps what it appended."""
        start = self._size()
        try:
            yield
        finally:
            if self._path is not None and self._size() > start:
                with self._path.open("rb") as f:
                    f.seek(start)
                    self._per_project[k] = parse_outputs(f.read().decode("utf-8"))

    def write(self) -> None:
        """Append the batch's value of every output a project set (the runner keeps it)."""
        if self._path is None or not any(self._per_project):
            return
        # a project wrote outputs, so the Actions environment its report needed is there
        report = StepReport(ActionsEnv.from_environ(self._environ))
        report.set(**combine_all(self._per_project))
        report.flush()

    def _size(self) -> int:
        try:
            return self._path.stat().st_size if self._path is not None else 0
        except FileNotFoundError:
            return 0
