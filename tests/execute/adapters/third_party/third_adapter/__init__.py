"""``third``: an adapter that exists only as this folder and one entry point
(``../third_adapter-0.1.dist-info/entry_points.txt``) — the proof that averos-ci knows no
adapter by name. It writes one small file per node and says, through the contract's hooks,
what the core would otherwise have to know about it."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from averos_ci.execute.adapters import AdapterBase
from averos_ci.execute.contracts import (
    ExecutionContext,
    ExecutionResult,
    ExecutionState,
    NotApplied,
    RuntimeMutation,
)
from averos_ci.plan.model import PlanNode


class ThirdAdapter(AdapterBase):
    name: ClassVar[str] = "third"
    generates: ClassVar[bool] = False  # it writes notes, not an application

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        self.options = dict(options or {})

    @classmethod
    def identity_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """``pace`` changes no result: an approval does not cover it."""
        return {k: v for k, v in options.items() if k != "pace"}

    @property
    def notice(self) -> str | None:
        return "third adapter: notes only, no application"

    @classmethod
    def next_step(cls, *, workspace_root: Path, config: Path | None) -> str | None:
        return f"third: notes written under {workspace_root.name}/third/"

    def not_applied(self, node: PlanNode) -> list[NotApplied]:
        if node.command == "add-simple-member" and node.args.get("memberTag"):
            return [NotApplied("memberTag", "the third adapter keeps no tags")]
        return []

    def preflight(self, context: ExecutionContext) -> None:
        pass

    def open(self, context: ExecutionContext) -> None:
        pass

    def execute(
        self, node: PlanNode, context: ExecutionContext, state: ExecutionState
    ) -> ExecutionResult:
        started = time.monotonic()
        rel = f"third/{node.id.replace(':', '_')}.txt"
        if not context.dry_run:
            path = context.workspace_root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"{node.command} {node.id}\n", encoding="utf-8")
        ms = int((time.monotonic() - started) * 1000)
        mutation = None if context.dry_run else RuntimeMutation(created=(rel,))
        return ExecutionResult(success=True, duration_ms=ms, runtime_mutation=mutation)

    def close(self) -> None:
        pass
