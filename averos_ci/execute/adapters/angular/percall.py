"""Per-process runner: one `npx ng generate <collection>:<schematic>` per node.

This is how Averos itself executes a plan; kept for debugging and as the benchmark baseline.
Changes are found by a before/after hash scan; the undo journal snapshots the workspace
first (a full copy of its sources: affordable next to the 1.4-2.1 s CLI start-up).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from averos_ci.execute.contracts import RuntimeMutation

from ._proc import run
from .driver.journal import Journal
from .mapping import cli_arguments
from .scan import diff, scan


def ng_generate_command(
    npx: str, collection: str, schematic: str, options: Mapping[str, Any], *, dry_run: bool
) -> list[str]:
    cmd = [npx, "ng", "generate", f"{collection}:{schematic}", *cli_arguments(dict(options))]
    cmd += ["--interactive=false", "--defaults"]
    if dry_run:
        cmd.append("--dry-run")
    return cmd


def run_ng_generate(
    *,
    npx: str,
    root: Path,
    collection: str,
    schematic: str,
    options: Mapping[str, Any],
    env: Mapping[str, str],
    dry_run: bool,
    log: Path,
    timeout: float,
    journal: Journal | None,
) -> RuntimeMutation:
    """Run one schematic; raises :class:`CommandFailed` with the CLI's output on failure."""
    cmd = ng_generate_command(npx, collection, schematic, options, dry_run=dry_run)
    before = scan(root)
    if journal is not None and not dry_run:
        journal.snapshot(before)
    proc = run(
        cmd,
        cwd=root,
        env=env,
        timeout=timeout,
        log=log,
        track=None if dry_run else (root, "ng generate"),
    )
    if dry_run:
        return _parse_dry_run(proc.stdout)
    return diff(before, scan(root))


def _parse_dry_run(stdout: str) -> RuntimeMutation:
    found: dict[str, set[str]] = {"CREATE": set(), "UPDATE": set(), "DELETE": set()}
    for line in stdout.splitlines():
        parts = line.strip().split(" ")
        if len(parts) >= 2 and parts[0] in found:
            found[parts[0]].add(parts[1])
    return RuntimeMutation(
        created=tuple(sorted(found["CREATE"])),
        updated=tuple(sorted(found["UPDATE"] - found["CREATE"])),
        deleted=tuple(sorted(found["DELETE"])),
    )
