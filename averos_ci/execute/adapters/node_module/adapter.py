"""``node-module``: run an Averos ``ExecutionAdapter`` written in JavaScript/TypeScript.

One long-lived Node process per run (``host.js``) loads the module once and answers
JSON-line requests; the runner's checkpoints, resume, retries, time limits and events
are the same as for the built-in adapters.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from averos_ci.errors import ToolchainError
from averos_ci.execute.adapters import _children as children
from averos_ci.execute.adapters._env import scrubbed_env
from averos_ci.execute.adapters._jsonlines import (
    JsonLinesError,
    JsonLinesProcess,
    RequestCancelled,
)
from averos_ci.execute.contracts import (
    ExecutionContext,
    ExecutionFailure,
    ExecutionResult,
    ExecutionState,
)
from averos_ci.plan.model import PlanNode

from .facts import NodeModuleFacts
from .options import HINT, NodeModuleOptions, parse_options, resolve_module
from .wire import context_to_wire, error_of, node_to_wire, result_from_wire

HOST_JS = Path(__file__).with_name("host.js")
STDERR_LOG = "node-module.stderr.log"
EXCERPT_CHARS = 4000


class HostError(JsonLinesError):
    """The Node host could not start, crashed, or did not answer in time."""


class NodeModuleAdapter(NodeModuleFacts):
    name: ClassVar[str] = "node-module"
    supports_concurrency: ClassVar[bool] = False  # one host, one request at a time

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        self.options: NodeModuleOptions = parse_options(options or {})
        self.module = resolve_module(self.options)
        self._host: JsonLinesProcess | None = None
        self._methods: frozenset[str] = frozenset()
        self._stderr_log: Path | None = None
        self._tracked: Path | None = None

    # -- lifecycle -------------------------------------------------------------------
    def preflight(self, context: ExecutionContext) -> None:
        """Load the module now, so that a broken one fails before anything is written."""
        if shutil.which(self.options.node) is None:
            raise ToolchainError(
                f"Node.js ({self.options.node!r}) is not on PATH: the node-module adapter needs it",
                hint="install Node.js, or set adapterOptions.node to its path",
            )
        self._start(context, track=False)
        try:
            self._lifecycle("preflight", context)
        except BaseException:
            self.close()
            raise

    def open(self, context: ExecutionContext) -> None:
        if not context.dry_run:
            context.workspace_root.mkdir(parents=True, exist_ok=True)
            # A host left running by a killed run must not act beside the new one.
            if children.reap(context.workspace_root):
                _log(context, "ended a node-module host left running by an interrupted run")
            if self._host is not None and self._tracked is None:
                children.record(context.workspace_root, self._host.pid, HOST_JS.name)
                self._tracked = context.workspace_root
        try:
            self._lifecycle("open", context)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        host, self._host = self._host, None
        if host is None:
            return
        if "close" in self._methods and host.alive:
            with contextlib.suppress(JsonLinesError):
                host.request(
                    {"op": "call", "method": "close", "args": []},
                    reply="result",
                    timeout=self.options.call_timeout_ms / 1000,
                )
        host.close({"op": "exit"})
        self._forget()

    # -- nodes -----------------------------------------------------------------------
    def execute(
        self, node: PlanNode, context: ExecutionContext, state: ExecutionState
    ) -> ExecutionResult:
        started = time.monotonic()
        outcome = self._execute(node, context, state)
        duration = int((time.monotonic() - started) * 1000)
        if isinstance(outcome, ExecutionFailure):
            return ExecutionResult(success=False, duration_ms=duration, failure=outcome)
        return outcome

    def _execute(
        self, node: PlanNode, context: ExecutionContext, state: ExecutionState
    ) -> ExecutionResult | ExecutionFailure:
        try:
            if self._host is None or not self._host.alive:  # first node, or after a crash
                self._start(context, track=not context.dry_run)
                self._lifecycle("open", context)
            host = self._host
            assert host is not None
            offset = self._stderr_size()
            try:
                reply = host.request(
                    {
                        "op": "call",
                        "method": "execute",
                        "args": [
                            node_to_wire(node),
                            context_to_wire(context),
                            {"cwd": str(state.cwd)},
                        ],
                    },
                    reply="result",
                    timeout=self.options.call_timeout_ms / 1000,
                    cancelled=lambda: context.cancel.cancelled,
                )
            except JsonLinesError as exc:
                return self._crashed(node, context, str(exc), offset)
        except RequestCancelled:
            self._forget()
            return ExecutionFailure(
                code="CANCELLED", message=f"cancelled: {context.cancel.reason}", retryable=True
            )
        except (HostError, ToolchainError) as exc:
            return ExecutionFailure(code="ADAPTER_ERROR", message=str(exc), retryable=True)
        _write_log(context, reply.get("log"))
        if not reply.get("ok"):
            error = error_of(reply)
            message = str(error.get("message") or "the adapter module threw")
            _log(context, f"FAILED: {node.id} threw {error.get('name', 'Error')}: {message}")
            return ExecutionFailure(
                code="ADAPTER_THREW",
                message=message,
                retryable=True,
                details=_excerpt(str(error.get("stack") or "")) or None,
            )
        return result_from_wire(node, reply.get("value"), log=lambda text: _log(context, text))

    # -- helpers ---------------------------------------------------------------------
    def _start(self, context: ExecutionContext, *, track: bool) -> None:
        if self._host is not None and self._host.alive:
            return
        if self._host is not None:
            self._host.close()
            self._forget()
        self._stderr_log = context.logs_dir / STDERR_LOG
        offset = self._stderr_size()
        host = JsonLinesProcess(
            [
                self.options.node,
                str(HOST_JS),
                "--module",
                str(self.module),
                "--export",
                self.options.export,
            ],
            cwd=self.module.parent,
            env=scrubbed_env(),  # the module is third-party code: no tokens
            stderr_log=self._stderr_log,
            label=f"the Node adapter module {self.module.name}",
            track_root=context.workspace_root if track else None,
            marker=HOST_JS.name,
            error=HostError,
        )
        self._tracked = context.workspace_root if track else None
        try:
            hello = host.receive(self.options.start_timeout_ms / 1000)
        except HostError as exc:
            host.close()
            self._forget()
            raise ToolchainError(
                f"{exc}\n{self._stderr_since(offset)}".rstrip(), path=self.module, hint=HINT
            ) from None
        if hello.get("type") != "ready":
            host.close()
            self._forget()
            raise ToolchainError(
                f"the Node adapter module cannot be loaded: {hello.get('error') or hello}",
                path=self.module,
                hint=f"check that `node {self.module.name}` loads and that it exports "
                f"{self.options.export!r} as a class or object with execute(node, context, "
                "state)",
            )
        methods = hello.get("methods")
        self._methods = frozenset(m for m in methods or () if isinstance(m, str))
        self._host = host

    def _lifecycle(self, method: str, context: ExecutionContext) -> None:
        """Call the module's optional preflight/open; a throw is a toolchain error."""
        if method not in self._methods or self._host is None:
            return
        try:
            reply = self._host.request(
                {"op": "call", "method": method, "args": [context_to_wire(context)]},
                reply="result",
                timeout=self.options.call_timeout_ms / 1000,
            )
        except JsonLinesError as exc:
            raise ToolchainError(f"{method}() of {self.module.name}: {exc}", hint=HINT) from None
        _write_log(context, reply.get("log"))
        if not reply.get("ok"):
            error = error_of(reply)
            raise ToolchainError(
                f"{method}() of the adapter module {self.module.name} failed: "
                f"{error.get('message') or 'it threw'}",
                path=self.module,
                hint="fix what the adapter module's message names, then run again",
            )

    def _crashed(
        self, node: PlanNode, context: ExecutionContext, why: str, offset: int
    ) -> ExecutionFailure:
        stderr = self._stderr_since(offset)
        _log(context, f"ADAPTER_ERROR: {node.id}: {why}")
        if stderr:
            _log(context, f"--- stderr of the Node host ---\n{stderr}")
        if self._host is not None:
            self._host.close()
            self._host = None
        self._forget()
        return ExecutionFailure(
            code="ADAPTER_ERROR",
            message=f"{why} while executing {node.id}",
            retryable=True,
            details=stderr or None,
        )

    def _forget(self) -> None:
        if self._tracked is not None:
            children.forget(self._tracked)
            self._tracked = None

    def _stderr_size(self) -> int:
        try:
            return self._stderr_log.stat().st_size if self._stderr_log else 0
        except OSError:
            return 0

    def _stderr_since(self, offset: int) -> str:
        if self._stderr_log is None:
            return ""
        try:
            with self._stderr_log.open("rb") as f:
                f.seek(offset)
                data = f.read()
        except OSError:
            return ""
        return _excerpt(data.decode("utf-8", errors="replace"))


def _write_log(context: ExecutionContext, lines: object) -> None:
    if isinstance(lines, list) and lines:
        _log(context, "\n".join(str(x) for x in lines))


def _log(context: ExecutionContext, text: str) -> None:
    context.log_file.parent.mkdir(parents=True, exist_ok=True)
    with context.log_file.open("a", encoding="utf-8") as f:
        f.write(text.rstrip("\n") + "\n")


def _excerpt(text: str) -> str:
    text = text.strip()
    if len(text) <= EXCERPT_CHARS:
        return text
    return f"[... {len(text) - EXCERPT_CHARS} characters omitted ...]\n{text[-EXCERPT_CHARS:]}"
