"""One schematic node: idempotence guard, batched driver or per-process `ng generate`,
the built-in edit that completes it, and the node's RuntimeMutation."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol

from averos_ci.execute.contracts import ExecutionContext, ExecutionFailure, RuntimeMutation
from averos_ci.plan.model import Action, PlanNode

from ._proc import CommandFailed, excerpt, tool_env
from .driver import journal as journal_mod
from .driver.client import Driver, DriverError, DriverFiles
from .files import DiskFiles, Files
from .mapping import Schematic
from .options import AngularOptions, Runner
from .percall import run_ng_generate
from .template.toolchain import Toolchain
from .writes import apply_edit, merge


class SchematicsHost(Protocol):
    """What a schematic node needs of the adapter (:class:`.adapter.AngularSchematicsAdapter`)."""

    options: AngularOptions
    cache_root: Path

    def schematics_root(self, context: ExecutionContext) -> Path | None: ...
    def driver(self, context: ExecutionContext, root: Path) -> Driver: ...
    def kill_driver(self) -> None: ...
    def toolchain(self) -> Toolchain: ...


def run_schematic(
    adapter: SchematicsHost, node: PlanNode, context: ExecutionContext, op: Schematic
) -> RuntimeMutation | ExecutionFailure:
    opts = adapter.options
    args = node.args
    reason = op.check(args) if op.check is not None else None
    if reason is not None:
        return ExecutionFailure(
            code="UNSUPPORTED",
            message=f"{node.id} is unsupported by collection {opts.collection}: {reason}",
        )
    unsafe = unsafe_names(args)
    if unsafe:
        return ExecutionFailure(
            code="INVALID_ARGS",
            message=f"{node.id}: {', '.join(unsafe)} cannot name files inside the workspace "
            "(path separators, '..' and control characters are refused)",
        )
    root = adapter.schematics_root(context)
    if root is None:
        message = (
            "a dry run of this node needs the workspace or a cached template "
            "(adapterOptions.templateCache)"
            if context.dry_run
            else f"{context.workspace_root} is not an Angular workspace with {opts.collection}"
            " (the application node creates it)"
        )
        return ExecutionFailure(code="SCHEMATIC_FAILED", message=message)
    options = op.options(args)
    _log(context, f"$ {opts.collection}:{op.schematic} {json.dumps(options, sort_keys=True)}")
    schematic = op.schematic
    try:
        files = _files(adapter, context, root)
        present = op.present is not None and op.present(files, args)
        remaining = None if present or op.remaining is None else op.remaining(files, args)
    except DriverError as exc:
        adapter.kill_driver()
        return ExecutionFailure(
            code="ADAPTER_ERROR", message=f"schematics driver: {exc}", retryable=True
        )
    if present and node.action is Action.UPDATE and op.post_edit is None:
        return ExecutionFailure(
            code="UNSUPPORTED",
            message=f"{node.id} exists; {opts.collection}:{op.schematic} cannot update it",
        )
    if remaining is not None:
        schematic, options = remaining
        _log(context, f"partly present: only {opts.collection}:{schematic} {json.dumps(options)}")
    if present:
        _log(context, f"already present in {root}: {op.schematic} not re-run (idempotent)")
        mutation = RuntimeMutation()
    elif opts.runner is Runner.PER_PROCESS:
        outcome = _per_process(adapter, context, schematic, options, root)
        if isinstance(outcome, ExecutionFailure):
            return outcome
        mutation = outcome
    else:
        outcome = _batched(adapter, context, schematic, options, root)
        if isinstance(outcome, ExecutionFailure):
            return outcome
        mutation = outcome
    if op.post_edit is not None:
        extra = apply_edit(context, op.post_edit(context.workspace_root, args))
        mutation = merge(mutation, extra)
    return mutation


# Args the schematics turn into file and folder names.
NAME_ARGS = ("name", "ename", "fename", "mname", "memberName", "sname", "languageCode", "lang")


def unsafe_names(args: Mapping[str, object]) -> list[str]:
    """Manifest names end up in paths: refuse what could leave the workspace."""
    bad = []
    for key in NAME_ARGS:
        value = args.get(key)
        if isinstance(value, str) and (
            "/" in value
            or "\\" in value
            or ".." in value
            or value.startswith(".")
            or any(ord(c) < 32 for c in value)
        ):
            bad.append(f"{key}={value!r}")
    return bad


def _files(adapter: SchematicsHost, context: ExecutionContext, root: Path) -> Files:
    if context.dry_run and adapter.options.runner is Runner.BATCHED:
        return DriverFiles(adapter.driver(context, root), dry_run=True)
    return DiskFiles(root)


def _batched(
    adapter: SchematicsHost,
    context: ExecutionContext,
    schematic: str,
    options: dict[str, object],
    root: Path,
) -> RuntimeMutation | ExecutionFailure:
    journal = None if context.dry_run else journal_mod.journal_dir(root)
    try:
        reply = adapter.driver(context, root).run(
            adapter.options.collection,
            schematic,
            options,
            dry_run=context.dry_run,
            journal=journal,
            timeout=adapter.options.node_timeout_s,
        )
    except DriverError as exc:
        adapter.kill_driver()
        if not context.dry_run:
            journal_mod.rollback(root)
        return ExecutionFailure(
            code="ADAPTER_ERROR", message=f"schematics driver: {exc}", retryable=True
        )
    _log(context, "\n".join(reply.log))
    if not reply.ok:
        if not context.dry_run:
            journal_mod.rollback(root)
        message = (reply.error or "schematic failed").strip()
        return ExecutionFailure(
            code="SCHEMATIC_FAILED",
            message=f"{adapter.options.collection}:{schematic} failed: {message}",
            details=excerpt("\n".join(reply.log)),
        )
    return _from_changes(reply.changes)


def _per_process(
    adapter: SchematicsHost,
    context: ExecutionContext,
    schematic: str,
    options: dict[str, object],
    root: Path,
) -> RuntimeMutation | ExecutionFailure:
    try:
        return run_ng_generate(
            npx=adapter.toolchain().npx,
            root=root,
            collection=adapter.options.collection,
            schematic=schematic,
            options=options,
            env=adapter.toolchain().env(
                tool_env(adapter.cache_root, registry=adapter.options.registry)
            ),
            dry_run=context.dry_run,
            log=context.log_file,
            timeout=adapter.options.node_timeout_s,
            journal=None if context.dry_run else journal_mod.Journal(root),
        )
    except CommandFailed as exc:
        if not context.dry_run:
            journal_mod.rollback(root)
        lines = [ln for ln in (exc.stderr + "\n" + exc.stdout).splitlines() if ln.strip()]
        headline = next(
            (ln for ln in lines if "❌" in ln or "rror" in ln), lines[-1] if lines else ""
        )
        return exc.failure(
            "SCHEMATIC_FAILED",
            f"{adapter.options.collection}:{schematic} failed: {headline.strip()}",
        )


def _from_changes(changes: Iterable[tuple[str, str]]) -> RuntimeMutation:
    created: set[str] = set()
    updated: set[str] = set()
    deleted: set[str] = set()
    for kind, path in changes:
        if kind == "create":
            created.add(path)
            deleted.discard(path)
        elif kind == "update":
            updated.add(path)
        elif kind == "delete":
            deleted.add(path)
            created.discard(path)
    return RuntimeMutation(
        created=tuple(sorted(created)),
        updated=tuple(sorted(updated - created - deleted)),
        deleted=tuple(sorted(deleted)),
    )


def _log(context: ExecutionContext, text: str) -> None:
    if not text:
        return
    context.log_file.parent.mkdir(parents=True, exist_ok=True)
    with context.log_file.open("a", encoding="utf-8") as f:
        f.write(text.rstrip("\n") + "\n")
