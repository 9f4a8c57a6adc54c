"""``averos-ci mcp``: a Model Context Protocol server (stdio) through which an agent validates,
plans, edits a manifest and proposes the change as a pull request — and nothing more: approving
and applying stay with people and CI."""

from __future__ import annotations

from pathlib import Path

from averos_ci.errors import ToolchainError

__all__ = ["serve"]


def serve(
    *,
    root: Path | None = None,
    config: Path | None = None,
    git_name: str | None = None,
    git_email: str | None = None,
) -> int:
    """Serve over stdio until the client closes the connection; returns the exit code."""
    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:
        raise ToolchainError(
            "the MCP server needs the 'mcp' package (the official Model Context Protocol SDK)",
            hint="pip install 'averos-ci[mcp]'",
        ) from None
    from averos_ci.mcp.propose import Identity
    from averos_ci.mcp.server import build_server
    from averos_ci.mcp.workspace import Workspace

    ws = Workspace.open(root or Path.cwd(), config=config)
    defaults = Identity()
    identity = Identity(git_name or defaults.name, git_email or defaults.email)
    build_server(ws, identity=identity).run("stdio")
    return 0
