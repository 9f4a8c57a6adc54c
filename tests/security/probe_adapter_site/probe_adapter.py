"""A regenerating adapter that runs code the pull request controls, as the Angular adapter
runs the schematics and npm packages of the checkout: before its first node it starts
``probe/steal.py`` *from the checked-out repository* (``$GITHUB_WORKSPACE``) as a child
process, when the pull request has one. Otherwise it is the file-writing mock."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from averos_ci.execute.adapters.mock import MockAdapter
from averos_ci.execute.contracts import ExecutionContext, ExecutionResult, ExecutionState
from averos_ci.plan.model import PlanNode


class ProbeAdapter(MockAdapter):
    name = "probe"

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__({"writeFiles": True})
        self.ran = False

    @staticmethod
    def identity_options(options: Mapping[str, Any]) -> dict[str, Any]:
        return {"writeFiles": True}

    def execute(
        self, node: PlanNode, context: ExecutionContext, state: ExecutionState
    ) -> ExecutionResult:
        script = Path(os.environ.get("GITHUB_WORKSPACE", ".")) / "probe" / "steal.py"
        if not self.ran and script.is_file():
            self.ran = True
            subprocess.run([sys.executable, str(script)], check=True, timeout=60)
        return super().execute(node, context, state)
