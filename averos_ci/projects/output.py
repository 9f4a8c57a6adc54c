"""Rendering a project list: text, JSON, and the GitHub Actions matrix.

The matrix is ``{"include": [{"project": …, "config": …}]}``, the shape
``strategy.matrix: ${{ fromJSON(needs.<job>.outputs.matrix) }}`` takes. An empty
``include`` is a workflow error in Actions ("Matrix vector does not contain any values"),
so the step also writes ``count``: guard the matrix job with ``if: …outputs.count != '0'``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from averos_ci.projects.model import Project

FORMATS = ("text", "json", "github-matrix")


def matrix(projects: Sequence[Project]) -> dict[str, list[dict[str, str]]]:
    return {"include": [{"project": p.name, "config": p.config} for p in projects]}


def render(projects: Sequence[Project], output_format: str) -> str:
    if output_format == "json":
        return json.dumps([p.to_wire() for p in projects], indent=2) + "\n"
    if output_format == "github-matrix":
        return json.dumps(matrix(projects), separators=(",", ":")) + "\n"
    return "".join(f"{p.name}\t{p.config}\n" for p in projects)


def write_step_outputs(
    projects: Sequence[Project], *, environ: Mapping[str, str] | None = None
) -> Path | None:
    """Under GitHub Actions, append ``matrix``, ``projects`` and ``count`` to $GITHUB_OUTPUT
    (the runner's append-only protocol file). Returns the file written, if any."""
    env = os.environ if environ is None else environ
    target = env.get("GITHUB_OUTPUT")
    if env.get("GITHUB_ACTIONS") != "true" or not target:
        return None
    # Compact single-line JSON: no heredoc delimiter needed, and names are JSON-escaped.
    lines = {
        "matrix": json.dumps(matrix(projects), separators=(",", ":")),
        "projects": json.dumps([p.name for p in projects], separators=(",", ":")),
        "count": str(len(projects)),
    }
    with open(target, "a", encoding="utf-8") as f:
        f.writelines(f"{k}={v}\n" for k, v in lines.items())
    return Path(target)
