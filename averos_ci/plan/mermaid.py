"""A picture of the plan: a Mermaid flowchart of the executable nodes, one subgraph per phase.

Node ids in the chart are generated (``n0``, ``n1``…); labels are quoted and every character
outside a small safe set is written as a Mermaid entity code (``#35;``), so no manifest string
can end a label, add an edge, or reach the markdown around the block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from averos_ci.plan.model import Action, ExecutionPlan

MAX_NODES = 120  # GitHub renders larger charts poorly (and refuses many edges)
MAX_EDGES = 400  # under Mermaid's default maxEdges (500)
_SAFE = re.compile(r"[A-Za-z0-9 :._/-]")
_CLASSES = {Action.CREATE: "create", Action.UPDATE: "update"}


def label(text: str) -> str:
    """A quoted Mermaid label that shows ``text`` as is."""
    return '"' + "".join(c if _SAFE.fullmatch(c) else f"#{ord(c)};" for c in text) + '"'


@dataclass(frozen=True)
class Flowchart:
    text: str  # the diagram, without the code fence
    shown: int
    left_out: int  # executable nodes not drawn (the plan is larger than the limit)


def flowchart(
    plan: ExecutionPlan, *, max_nodes: int = MAX_NODES, max_edges: int = MAX_EDGES
) -> Flowchart | None:
    """The executable nodes (plan order) grouped by phase, with their dependency edges; None
    when nothing is executed."""
    nodes = plan.executable_nodes()
    if not nodes:
        return None
    ids: dict[str, str] = {}
    edges: list[tuple[str, str]] = []
    for node in nodes:
        if len(ids) >= max_nodes:
            break
        mine = [(ids[d], f"n{len(ids)}") for d in node.depends_on if d in ids]
        if len(edges) + len(mine) > max_edges:
            break
        ids[node.id] = f"n{len(ids)}"
        edges += mine
    shown = [n for n in nodes if n.id in ids]
    lines = ["flowchart LR"]
    for index, phase in enumerate(dict.fromkeys(n.phase for n in shown)):
        lines.append(f"  subgraph p{index}[{label(phase.value)}]")
        lines += [
            f"    {ids[n.id]}[{label(n.id)}]:::{_CLASSES[n.action]}"
            for n in shown
            if n.phase is phase
        ]
        lines.append("  end")
    lines += [f"  {a} --> {b}" for a, b in edges]
    lines += [
        "  classDef create fill:#e6ffec,stroke:#1a7f37",
        "  classDef update fill:#fff8c5,stroke:#9a6700",
    ]
    return Flowchart("\n".join(lines) + "\n", len(shown), len(nodes) - len(shown))
