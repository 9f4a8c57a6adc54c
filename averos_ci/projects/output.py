"""Rendering a project list: text, JSON, and the GitHub Actions matrix.

The matrix is ``{"include": [{"project": …, "config": …}]}``, the shape
``strategy.matrix: ${{ fromJSON(needs.<job>.outputs.matrix) }}`` takes. An empty
``include`` is a workflow error in Actions ("Matrix vector does not contain any values"),
so the step also writes ``count``: guard the matrix job with ``if: …outputs.count != '0'``.

Actions refuses a matrix of more than 256 jobs, so above ``max_jobs`` projects an entry is a
batch: contiguous projects (in name order) spread evenly over as few jobs as the cap allows,
``project`` their names joined by spaces (a name holds no white space) and ``config`` their
configs one a line. Up to ``max_jobs`` projects every entry is one project, as before, so a
workflow reads one shape at every size (docs/how-to/monorepo.md).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from averos_ci.projects.model import Project

FORMATS = ("text", "json", "github-matrix")
MAX_JOBS = 256  # GitHub Actions: "A job matrix can generate a maximum of 256 jobs"


def matrix(
    projects: Sequence[Project], *, max_jobs: int = MAX_JOBS
) -> dict[str, list[dict[str, str]]]:
    """One entry per project, or per batch of projects above ``max_jobs``."""
    return {
        "include": [
            {
                "project": " ".join(p.name for p in batch),
                "config": "\n".join(p.config for p in batch),
            }
            for batch in batches(projects, max_jobs=max_jobs)
        ]
    }


def batches(projects: Sequence[Project], *, max_jobs: int = MAX_JOBS) -> list[Sequence[Project]]:
    """``projects`` cut into at most ``max_jobs`` contiguous runs, their sizes differing by at
    most one: one project each while they fit."""
    if max_jobs < 1:
        raise ValueError("max_jobs must be at least 1")
    size = -(-len(projects) // max_jobs)  # the smallest batch that fits the cap
    jobs = -(-len(projects) // size) if projects else 0
    small, extra = divmod(len(projects), jobs) if jobs else (0, 0)
    out: list[Sequence[Project]] = []
    start = 0
    for i in range(jobs):
        end = start + small + (1 if i < extra else 0)
        out.append(projects[start:end])
        start = end
    return out


def render(projects: Sequence[Project], output_format: str, *, max_jobs: int = MAX_JOBS) -> str:
    if output_format == "json":
        return json.dumps([p.to_wire() for p in projects], indent=2) + "\n"
    if output_format == "github-matrix":
        return json.dumps(matrix(projects, max_jobs=max_jobs), separators=(",", ":")) + "\n"
    return "".join(f"{p.name}\t{p.config}\n" for p in projects)


def write_step_outputs(
    projects: Sequence[Project],
    *,
    environ: Mapping[str, str] | None = None,
    max_jobs: int = MAX_JOBS,
) -> Path | None:
    """Under GitHub Actions, append ``matrix``, ``projects`` and ``count`` to $GITHUB_OUTPUT
    (the runner's append-only protocol file). Returns the file written, if any."""
    env = os.environ if environ is None else environ
    target = env.get("GITHUB_OUTPUT")
    if env.get("GITHUB_ACTIONS") != "true" or not target:
        return None
    # Compact single-line JSON: no heredoc delimiter needed, and names are JSON-escaped.
    lines = {
        "matrix": json.dumps(matrix(projects, max_jobs=max_jobs), separators=(",", ":")),
        "projects": json.dumps([p.name for p in projects], separators=(",", ":")),
        "count": str(len(projects)),
    }
    with open(target, "a", encoding="utf-8") as f:
        f.writelines(f"{k}={v}\n" for k, v in lines.items())
    return Path(target)
