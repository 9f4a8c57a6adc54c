"""The executable part of a plan as a DAG: dependency counts, dependents, plan order."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from averos_ci.plan.model import ExecutionPlan, PlanNode


class NodeGraph:
    """Executable nodes only; an edge to a ``skip`` node (or a node outside the plan) is
    already satisfied, since that element is applied."""

    def __init__(self, plan: ExecutionPlan) -> None:
        self.nodes: list[PlanNode] = plan.executable_nodes()
        self.order = {n.id: i for i, n in enumerate(self.nodes)}
        self.by_id = {n.id: n for n in self.nodes}
        self.deps: dict[str, tuple[str, ...]] = {}
        self.dependents: dict[str, list[str]] = {n.id: [] for n in self.nodes}
        for n in self.nodes:
            deps = tuple(dict.fromkeys(d for d in n.depends_on if d in self.by_id))
            self.deps[n.id] = deps
            for d in deps:
                self.dependents[d].append(n.id)

    def pending_counts(self, done: Iterable[str]) -> dict[str, int]:
        finished = set(done)
        return {
            n.id: sum(1 for d in self.deps[n.id] if d not in finished)
            for n in self.nodes
            if n.id not in finished
        }

    def descendants(self, node_id: str) -> list[str]:
        """Every node that depends on ``node_id``, directly or not, in plan order."""
        seen: set[str] = set()
        queue = deque(self.dependents[node_id])
        while queue:
            current = queue.popleft()
            if current not in seen:
                seen.add(current)
                queue.extend(self.dependents[current])
        return sorted(seen, key=self.order.__getitem__)
