"""Averos's JavaScript shapes of the adapter contract (camelCase, as its TypeScript types)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from averos_ci._validation import first_problem
from averos_ci.execute.averos_logs import execution_node
from averos_ci.execute.contracts import (
    ExecutionContext,
    ExecutionFailure,
    ExecutionResult,
    RuntimeMutation,
)
from averos_ci.plan.model import PlanNode


def node_to_wire(node: PlanNode) -> dict[str, Any]:
    """Averos's ``ExecutionNode``: ``{id, phase, command, runner, action, args, dependsOn}``."""
    return execution_node(node)


def context_to_wire(context: ExecutionContext) -> dict[str, Any]:
    """Averos's ``ExecutionContext`` (``dryRun`` first among equals) plus averos-ci's extras."""
    return {
        "dryRun": context.dry_run,
        "workspaceRoot": str(context.workspace_root),
        "logsDir": str(context.logs_dir),
        "logFile": str(context.log_file),
        "attempt": context.attempt,
        "runId": context.run_id,
        "development": context.development,
        "verbose": context.verbose,
    }


def failure_from_wire(raw: object, *, node_id: str) -> ExecutionFailure:
    """An ``ExecutionFailure`` from what a module returned with ``success: false``.

    Averos's failures carry ``message`` and, for commands, ``exitCode``/``stderr``; a module
    may also name a ``code`` and say whether a retry can help (``retryable``, default true:
    Averos retries every failure up to ``maxAttempts``).
    """
    if isinstance(raw, str) and raw:
        return ExecutionFailure(code="NODE_MODULE_FAILURE", message=raw, retryable=True)
    if not isinstance(raw, dict):
        return ExecutionFailure(
            code="NODE_MODULE_FAILURE",
            message=f"the adapter module reported failure of {node_id} without a reason",
            retryable=True,
        )
    message = raw.get("message")
    code = raw.get("code")
    retryable = raw.get("retryable")
    details = [f"{k}: {raw[k]}" for k in ("exitCode", "command") if raw.get(k) is not None]
    for stream in ("details", "stdout", "stderr"):
        if isinstance(raw.get(stream), str) and raw[stream].strip():
            details.append(f"--- {stream} ---\n{raw[stream].strip()}")
    return ExecutionFailure(
        code=code if isinstance(code, str) and code else "NODE_MODULE_FAILURE",
        message=str(message) if message else f"the adapter module failed {node_id}",
        retryable=retryable if isinstance(retryable, bool) else True,
        details="\n".join(details) or None,
    )


def result_from_wire(
    node: PlanNode, value: object, *, log: Callable[[str], None]
) -> ExecutionResult:
    """The ``ExecutionResult`` a module returned (``log``: a line for the node's log)."""
    if not isinstance(value, dict) or not isinstance(value.get("success"), bool):
        return ExecutionResult(
            success=False,
            duration_ms=0,
            failure=ExecutionFailure(
                code="ADAPTER_ERROR",
                message=f"execute() for {node.id} returned {type(value).__name__}, not "
                "{success: boolean, durationMs: number, ...}",
            ),
        )
    duration = value.get("durationMs")
    duration_ms = int(duration) if isinstance(duration, int | float) and duration >= 0 else 0
    mutation = None
    if value.get("runtimeMutation") is not None:
        try:
            mutation = RuntimeMutation.model_validate(value["runtimeMutation"])
        except ValidationError as exc:
            return ExecutionResult(
                success=False,
                duration_ms=duration_ms,
                failure=ExecutionFailure(
                    code="ADAPTER_ERROR",
                    message=f"execute() for {node.id} returned an invalid runtimeMutation: "
                    f"{first_problem(exc).msg}",
                ),
            )
    if value["success"]:
        return ExecutionResult(success=True, duration_ms=duration_ms, runtime_mutation=mutation)
    failure = failure_from_wire(value.get("failure"), node_id=node.id)
    log(f"FAILED {failure.code}: {failure.message}")
    return ExecutionResult(success=False, duration_ms=duration_ms, failure=failure)


def error_of(reply: Mapping[str, Any]) -> dict[str, Any]:
    """The ``error`` of a host's reply (a thrown exception), or an empty one."""
    error = reply.get("error")
    return error if isinstance(error, dict) else {}
