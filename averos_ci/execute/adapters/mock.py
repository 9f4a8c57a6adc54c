"""The ``mock`` adapter: deterministic, for tests and demos (httpx's ``MockTransport``).

adapterOptions:
  latencyMs     per-node latency (interruptible by the cancel token), default 0
  failNodes     node ids that fail
  failAttempts  fail only the first N attempts of those nodes (default: every attempt)
  writeFiles    true: write small deterministic files derived from the nodes
                (averos_ci.execute.adapters.mock_files), so regeneration and the three-way
                merge can be exercised without Angular; default false (nothing is generated)
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any, ClassVar

from averos_ci.errors import ConfigError
from averos_ci.execute.adapters.contract import AdapterBase
from averos_ci.execute.adapters.mock_files import write_node
from averos_ci.execute.contracts import (
    ExecutionContext,
    ExecutionFailure,
    ExecutionResult,
    ExecutionState,
    RuntimeMutation,
)
from averos_ci.plan.model import PlanNode

NOTICE = (
    'mock adapter: nothing is generated (adapter "mock" only simulates the nodes; '
    'set "adapter": "angular-schematics" or remove the key to generate the application)'
)


class MockAdapter(AdapterBase):
    name: ClassVar[str] = "mock"
    supports_concurrency: ClassVar[bool] = True
    generates: ClassVar[bool] = False  # summary.json says so, even with writeFiles (a demo)

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        options = dict(options or {})
        unknown = sorted(set(options) - {"latencyMs", "failNodes", "failAttempts", "writeFiles"})
        if unknown:
            raise ConfigError(
                f"mock adapter: unknown adapterOptions {unknown}",
                hint="known: latencyMs, failNodes, failAttempts, writeFiles",
            )
        self.latency_ms = _int(options.get("latencyMs", 0), "latencyMs")
        fail_nodes = options.get("failNodes", [])
        if not isinstance(fail_nodes, list) or not all(isinstance(n, str) for n in fail_nodes):
            raise ConfigError("mock adapter: adapterOptions.failNodes must be a list of node ids")
        self.fail_nodes = frozenset(fail_nodes)
        raw_attempts = options.get("failAttempts")
        self.fail_attempts = None if raw_attempts is None else _int(raw_attempts, "failAttempts")
        write_files = options.get("writeFiles", False)
        if not isinstance(write_files, bool):
            raise ConfigError("mock adapter: adapterOptions.writeFiles must be true or false")
        self.write_files = write_files

    @property
    def regenerates(self) -> bool:
        """Whether runs regenerate and merge (averos_ci.execute.regen): only when it writes."""
        return self.write_files

    @property
    def notice(self) -> str | None:
        """Unless it writes files, a mock run generates nothing: said before and after."""
        return None if self.write_files else NOTICE

    @classmethod
    def identity_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """Only ``writeFiles`` changes a result: latency and simulated failures may change
        between a run and its resume (absent when false: those plans keep their hashes)."""
        return {"writeFiles": True} if options.get("writeFiles") is True else {}

    def preflight(self, context: ExecutionContext) -> None:
        pass

    def open(self, context: ExecutionContext) -> None:
        pass

    def execute(
        self, node: PlanNode, context: ExecutionContext, state: ExecutionState
    ) -> ExecutionResult:
        started = time.monotonic()
        if self.latency_ms and context.cancel.wait(self.latency_ms / 1000):
            return ExecutionResult(
                success=False,
                duration_ms=_ms(started),
                failure=ExecutionFailure(
                    code="CANCELLED", message=f"cancelled: {context.cancel.reason}", retryable=True
                ),
            )
        fails = node.id in self.fail_nodes and (
            self.fail_attempts is None or context.attempt <= self.fail_attempts
        )
        if (
            fails or self.latency_ms
        ):  # a no-op success writes nothing: benchmarks measure the engine
            verb = "would run" if context.dry_run else "ran"
            line = f"mock: {verb} {node.command} for {node.id} (attempt {context.attempt})\n"
            if fails:
                line += f"mock: simulated failure of {node.id}\n"
            fd = os.open(context.log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                os.write(fd, line.encode("utf-8"))
            finally:
                os.close(fd)
        if fails:
            return ExecutionResult(
                success=False,
                duration_ms=_ms(started),
                failure=ExecutionFailure(
                    code="MOCK_FAILURE",
                    retryable=True,
                    message=f"simulated failure of {node.id}",
                    details=f"attempt {context.attempt}",
                ),
            )
        if context.dry_run:
            mutation = None
        elif self.write_files:
            mutation = write_node(node, context.workspace_root)
        else:
            mutation = RuntimeMutation(created=(f"mock/{node.id}",))
        return ExecutionResult(success=True, duration_ms=_ms(started), runtime_mutation=mutation)

    def close(self) -> None:
        pass


def _int(value: object, key: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ConfigError(f"mock adapter: adapterOptions.{key} must be a non-negative integer")
    return value


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
