"""Drift repairs in the plan renderings: unchanged nodes re-run because files they generated
are missing (``plan.repair``, see :mod:`averos_ci.state.drift`)."""

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


def repair_markdown(plan: ExecutionPlan) -> list[str]:
    """One block (for ``render_markdown``'s ``sections``), or none."""
    from averos_ci.plan.markdown import md_escape

    if not plan.repair:
        return []
    items = list(plan.repair.items())
    out = ["**Drift repair — generated files are missing; these nodes are re-run:**", ""]
    out += [
        f"- {md_escape(node)} restores " + ", ".join(f"`{md_escape(f)}`" for f in files[:10])
        for node, files in items[:MAX_NODES]
    ]
    if len(items) > MAX_NODES:
        out.append(f"- … and {len(items) - MAX_NODES} more node(s)")
    return ["\n".join(out)]
