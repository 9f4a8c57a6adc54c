"""The MCP server: six tools over the library, the JSON Schemas and the reference pages.

The tools edit and propose; none approves, applies, or writes the state branch — those stay
with people and CI (docs/mcp.md, "Working with agents"). A tool's failure is a tool result
with ``isError`` and a located message (``structuredContent.error``), never a server crash.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from averos_ci import __version__
from averos_ci.errors import AverosCIError
from averos_ci.mcp import resources
from averos_ci.mcp.models import (
    EditOut,
    ExplainOut,
    PlanOut,
    ProposeOut,
    StatusOut,
    ValidateOut,
)
from averos_ci.mcp.propose import Identity
from averos_ci.mcp.remote import Remote
from averos_ci.mcp.validation import shorten
from averos_ci.mcp.workspace import Workspace

INSTRUCTIONS = (
    "averos-ci: change an Averos application manifest and propose it as a pull request. "
    "validate and plan show what a change does; edit_manifest applies an RFC 6902 JSON Patch "
    "(refused when the result is invalid); propose commits it on a new branch and opens a pull "
    "request. People review the plan and approve it; CI applies it on merge. No tool approves "
    "or applies."
)
READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)
WRITES = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False)

ProjectArg = Annotated[
    str | None,
    Field(
        description="A project: its averos.config.json or its directory, repository-relative "
        "(default: the server's --config, else ./averos.config.json)"
    ),
]
PathArg = Annotated[
    str | None,
    Field(description="A manifest file, repository-relative (default: the project's manifestPath)"),
]


def build_server(ws: Workspace, *, identity: Identity = Identity()) -> MCPServer[Any]:  # noqa: B008
    server: MCPServer[Any] = MCPServer(
        "averos-ci", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )
    forge = Remote.from_environment(ws.root)  # once: the token is taken out of the environment
    scrub = forge.scrub

    def run(out: type[BaseModel], call: Callable[[], Any]) -> CallToolResult:
        try:
            value = out.model_validate(call())
        except AverosCIError as exc:
            return _failure(ws, exc, scrub)
        data = value.model_dump(mode="json")
        text = data.get("text") if isinstance(data.get("text"), str) else None
        return CallToolResult(
            content=[TextContent(type="text", text=text or json.dumps(data, indent=2))],
            structured_content=data,
        )

    @server.tool(annotations=READ_ONLY)
    def validate(
        path: PathArg = None,
        manifest: Annotated[
            str | dict[str, Any] | None,
            Field(
                description="A manifest given inline (YAML or JSON text, or an object) "
                "instead of a file"
            ),
        ] = None,
        project: ProjectArg = None,
    ) -> Annotated[CallToolResult, ValidateOut]:
        """Validate a manifest: every finding with its code (SYN/REF/CON-xx), JSON pointer,
        line, column and hint."""
        from averos_ci.mcp.validation import validate as validate_

        return run(ValidateOut, lambda: validate_(ws, path=path, inline=manifest, project=project))

    @server.tool(annotations=READ_ONLY)
    def plan(
        path: PathArg = None,
        against: Annotated[
            str,
            Field(
                description="'state' (the applied state) or a git ref whose manifest is the "
                "base, e.g. 'main'"
            ),
        ] = "state",
        project: ProjectArg = None,
    ) -> Annotated[CallToolResult, PlanOut]:
        """Plan a manifest: attribute-level changes per element, the execution nodes to run and
        the planHash a person approves."""
        from averos_ci.mcp.planning import plan_summary

        return run(PlanOut, lambda: plan_summary(ws, path=path, against=against, project=project))

    @server.tool(annotations=READ_ONLY)
    def explain(
        subject: Annotated[
            str,
            Field(
                description="A finding code (e.g. REF-01) or a plan node id (e.g. "
                "entity:ToDoTask, simple-field:ToDoTask:status)"
            ),
        ],
        project: ProjectArg = None,
    ) -> Annotated[CallToolResult, ExplainOut]:
        """What a finding code or a plan node means, and how to act on it."""
        from averos_ci.mcp.explain import explain as explain_

        return run(ExplainOut, lambda: explain_(ws, subject, project=project))

    @server.tool(annotations=WRITES)
    def edit_manifest(
        path: Annotated[str, Field(description="The manifest file, repository-relative")],
        patch: Annotated[
            list[dict[str, Any]],
            Field(description="An RFC 6902 JSON Patch: [{op, path, value|from}, ...]"),
        ],
        project: ProjectArg = None,
    ) -> Annotated[CallToolResult, EditOut]:
        """Apply a JSON Patch to a manifest in the working tree (YAML keeps its comments and
        layout), validate the result and return the new plan. An invalid result is refused and
        nothing is written."""
        from averos_ci.mcp.edit import edit_manifest as edit

        return run(EditOut, lambda: edit(ws, path=path, patch=patch, project=project))

    @server.tool(annotations=ToolAnnotations(readOnlyHint=False, openWorldHint=True))
    def propose(
        branch: Annotated[str, Field(description="A new branch name, e.g. agent/add-status")],
        title: Annotated[str, Field(description="The pull request's title (and commit subject)")],
        body: Annotated[str, Field(description="The pull request's description")] = "",
        base: Annotated[
            str | None, Field(description="The branch to merge into (default: the current one)")
        ] = None,
    ) -> Annotated[CallToolResult, ProposeOut]:
        """Commit the working tree's manifest changes on a new branch, push it to origin and
        open a pull request. The plan comment, the approval (by a person) and the apply on
        merge follow as for any pull request."""
        from averos_ci.mcp.propose import propose as propose_

        return run(
            ProposeOut,
            lambda: propose_(
                ws,
                forge=forge,
                branch=branch,
                title=title,
                body=body,
                base=base,
                identity=identity,
            ),
        )

    @server.tool(annotations=READ_ONLY)
    def status(project: ProjectArg = None) -> Annotated[CallToolResult, StatusOut]:
        """A project's applied state, drift, the working tree's plan against it, and the open
        pull requests with their averos-ci statuses (read-only)."""
        from averos_ci.mcp.status import status as status_

        return run(StatusOut, lambda: status_(ws, forge=forge, project=project))

    _resources(server)
    return server


def _failure(ws: Workspace, exc: AverosCIError, scrub: Callable[[str], str]) -> CallToolResult:
    from averos_ci.manifest.issues import ManifestInvalid

    file = shorten(ws, exc.path)
    error: dict[str, Any] = {
        "type": type(exc).__name__,
        "code": getattr(exc, "code", None),
        "message": scrub(exc.message),
        "file": file,
        "line": exc.line,
        "column": exc.column,
        "hint": scrub(exc.hint) if exc.hint else None,
    }
    if isinstance(exc, ManifestInvalid):
        error["findings"] = [{**i.to_dict(), "file": shorten(ws, i.file)} for i in exc.issues]
    if exc.path is not None and file != exc.path:
        exc.path = file  # the message names the file as the agent does
    return CallToolResult(
        content=[TextContent(type="text", text="error: " + scrub(str(exc)))],
        structured_content={"error": error},
        is_error=True,
    )


def _resources(server: MCPServer[Any]) -> None:
    @server.resource(
        "averos-ci://schemas/manifest.schema.json",
        name="manifest-schema",
        description="JSON Schema of an Averos manifest (shape; the rules are the validate tool)",
        mime_type="application/schema+json",
    )
    def manifest_schema() -> str:
        return resources.render_json(resources.manifest_schema())

    for name in ("plan", "state"):
        server.resource(
            f"averos-ci://schemas/{name}.schema.json",
            name=f"{name}-schema",
            description=f"JSON Schema of the averos-ci {name} file",
            mime_type="application/schema+json",
        )(_reader(lambda file=f"{name}.schema.json": resources.shipped_schema(file)))
    for stem, page in resources.doc_pages().items():
        server.resource(
            f"averos-ci://docs/{stem}.md",
            name=f"docs-{stem}",
            description=f"Documentation: {stem}",
            mime_type="text/markdown",
        )(_reader(functools.partial(page.read_text, encoding="utf-8")))


def _reader(read: Callable[..., str]) -> Callable[[], str]:
    def resource() -> str:
        return read()

    return resource
