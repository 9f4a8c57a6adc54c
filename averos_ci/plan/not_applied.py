"""Settings a plan states that will not take effect: the adapter's own prediction.

The adapter that will run the plan (``plan.execution``: its name and options) says, per node
the plan executes, which of the node's settings it has no way to apply and why (the optional
``not_applied(node)`` method of :class:`~averos_ci.execute.contracts.ExecutionAdapter`;
adapters without it predict nothing). The plan shows them before approval — text, markdown
(PR comment) and JSON (``notApplied``) — and the ``forbidNotApplied`` policy rule refuses them.

They are derived from what the planHash already covers (the nodes' args, the adapter and its
options), so they are not part of the hash: the saved plan's JSON keeps them as a comment.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from averos_ci.plan.model import ExecutionPlan

WIRE_KEY = "notApplied"


@dataclass(frozen=True)
class NotAppliedSetting:
    node_id: str
    setting: str
    reason: str

    def to_wire(self) -> dict[str, str]:
        return {"nodeId": self.node_id, "setting": self.setting, "reason": self.reason}


def not_applied(plan: ExecutionPlan) -> tuple[NotAppliedSetting, ...]:
    """What the plan's adapter predicts will not take effect, node by node (plan order)."""
    execution = getattr(plan, "execution", None)  # unset on a constructed plan
    if not execution or not plan.has_changes:
        return ()
    # execute imports the planner: imported here
    from averos_ci.execute.adapters import predict_not_applied

    name = str(execution.get("adapter") or "")
    options = execution.get("adapterOptions") or {}
    found = predict_not_applied(name, options, plan.executable_nodes())
    return tuple(NotAppliedSetting(node_id, n.setting, n.reason) for node_id, n in found)


def text_lines(plan: ExecutionPlan) -> list[str]:
    found = not_applied(plan)
    if not found:
        return []
    lines = [f"Warning: {len(found)} setting(s) will NOT be applied by the adapter:"]
    lines += [f"  ! {n.node_id}: {n.setting}: {n.reason}" for n in found]
    return [*lines, ""]


def markdown_blocks(plan: ExecutionPlan, md_escape: Callable[[str], str]) -> list[str]:
    """One block for ``render_markdown``'s ``sections`` (escaped with ``md_escape``), or none."""
    found = not_applied(plan)
    if not found:
        return []
    out = [
        f"> [!WARNING]\n> **{len(found)} setting(s) will not be applied** — the adapter has no "
        "way to make them take effect; approving this plan does not change that.",
        "",
    ]
    out += [
        f"- {md_escape(n.node_id)} — **{md_escape(n.setting)}**: {md_escape(n.reason)}"
        for n in found
    ]
    return ["\n".join(out)]


def wire(plan: ExecutionPlan) -> list[dict[str, str]]:
    return [n.to_wire() for n in not_applied(plan)]
