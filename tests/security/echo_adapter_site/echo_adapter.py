"""A third-party adapter that behaves like a schematic: it echoes the node's arguments (manifest
strings) into its log and, for nodes whose arguments say "evil", into its failure message —
as text, and in the encoded forms tools print options in: JSON (ASCII or not), Python's repr,
URL-encoded, shell-quoted."""

from __future__ import annotations

import json
import os
import shlex
import time
import urllib.parse
from collections.abc import Mapping
from typing import Any

from averos_ci.execute.contracts import ExecutionFailure, ExecutionResult


class EchoAdapter:
    name = "echo"
    supports_concurrency = False

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        self.options = dict(options or {})

    def preflight(self, context: Any) -> None:
        pass

    def open(self, context: Any) -> None:
        pass

    def execute(self, node: Any, context: Any, state: Any) -> ExecutionResult:
        values = "\n".join(
            [
                *(str(v) for v in node.args.values()),
                json.dumps(node.args),
                json.dumps(node.args, ensure_ascii=False),
                repr(node.args),
                urllib.parse.urlencode({k: str(v) for k, v in node.args.items()}),
                shlex.join(str(v) for v in node.args.values()),
            ]
        )
        fd = os.open(context.log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, f"CREATE {node.id}\n{values}\n".encode())
        finally:
            os.close(fd)
        if "evil" in json.dumps(node.args):
            return ExecutionResult(
                success=False,
                duration_ms=1,
                failure=ExecutionFailure(
                    code="SCHEMATIC", message=f"schematic failed for value:\n{values}"
                ),
            )
        return ExecutionResult(success=True, duration_ms=int(time.monotonic() * 0))

    def close(self) -> None:
        pass
