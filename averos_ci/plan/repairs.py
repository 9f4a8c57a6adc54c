"""Drift repairs in the plan renderings: unchanged nodes re-run because files they generated
are missing (``plan.repair``, see :mod:`averos_ci.state.drift`). The text block is here;
:mod:`averos_ci.plan.render_markdown` renders the markdown one with the same cap."""

from __future__ import annotations

from averos_ci.plan.model import ExecutionPlan

MAX_NODES = 50  # a workspace that lost more is reported by `averos-ci drift` in full


def repair_text(plan: ExecutionPlan) -> list[str]:
    if not plan.repair:
        return []
    items = list(plan.repair.items())
    out = ["drift repair (generated files missing; these nodes are re-run):"]
    out += [f"  ~ {node}  restores {', '.join(files)}" for node, files in items[:MAX_NODES]]
    if len(items) > MAX_NODES:
        out.append(f"  … and {len(items) - MAX_NODES} more node(s)")
    return [*out, ""]
