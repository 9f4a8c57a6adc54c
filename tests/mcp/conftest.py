"""Drive ``averos-ci mcp`` with the SDK's own stdio client, in a real git repository."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from tests.conftest import copy_example, git

COMMENTED = """\
# The ToDo application: a comment the edit must keep
applicationName: ToDoApp  # trailing comment
defaultLanguageCode: en
enableAuthentication: false
enableExternalEntityMapping: true

entities:
  # the tasks
  - name: ToDoTask
    sname: ToDoTaskService
    members:
      - memberNature: simple
        ename: ToDoTask
        mname: taskId
        memberType: string
        memberTag: ID
      - {memberNature: simple, ename: ToDoTask, mname: title, memberType: string}

serviceConfigurations:
  - type: service
    name: ToDoTaskServiceConfiguration
    id: ToDoTaskService
    apiHost: "localhost"
    apiPort: 3333
    apiProtocol: http
    apiEndPoint: /api/todotasks
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The ToDo example committed on ``main`` of a clone whose origin is a bare repository."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    work = copy_example(tmp_path / "work", mock=True)
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "the ToDo app")
    git(work, "remote", "add", "origin", str(origin))
    git(work, "push", "-q", "origin", "main")
    return work


Call = Callable[..., Awaitable[CallToolResult]]


@asynccontextmanager
async def server(root: Path, env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "averos_ci", "mcp", "--root", str(root)],
        env={**os.environ, **(env or {})},
        cwd=str(root),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def drive(
    root: Path,
    script: Callable[[ClientSession], Awaitable[Any]],
    env: dict[str, str] | None = None,
) -> Any:
    async def main() -> Any:
        async with server(root, env) as session:
            return await script(session)

    return anyio.run(main)


def error_of(result: CallToolResult) -> dict[str, Any]:
    assert result.is_error, result
    assert result.structured_content is not None
    error: dict[str, Any] = result.structured_content["error"]
    return error
