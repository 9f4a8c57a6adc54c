"""``angular-schematics``: realize plan nodes with the Averos Angular schematics."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from averos_ci.errors import AverosCIError, InputError, ToolchainError
from averos_ci.execute.adapters import _children as children
from averos_ci.execute.contracts import (
    ExecutionContext,
    ExecutionFailure,
    ExecutionResult,
    ExecutionState,
    NotApplied,
    RuntimeMutation,
)
from averos_ci.plan.model import PlanNode
from averos_ci.plan.sensitive import mask_wire

from ._proc import tool_env
from .app_edits.member_types import finish_member
from .driver import journal as journal_mod
from .driver.client import Driver
from .edits import Edited
from .execute_schematic import run_schematic
from .facts import AngularFacts
from .mapping import OPERATIONS, Bootstrap, BuiltinEdit, Schematic
from .options import AngularOptions, cache_root, parse_options
from .scan import scan
from .template.bootstrap import BootstrapSpec, create_workspace, install_dependencies
from .template.cache import (
    cached_template,
    ensure_template,
    find_matching_template,
    link_cached_modules,
)
from .template.toolchain import Toolchain, check_registry, find_toolchain
from .template.workspace import (
    check_app_name,
    copy_workspace,
    is_bootstrapped,
    move_into_place,
    staging_dir,
)
from .unapplied import predict
from .writes import apply_edit


class AngularSchematicsAdapter(AngularFacts):
    name: ClassVar[str] = "angular-schematics"
    supports_concurrency: ClassVar[bool] = False  # schematics edit shared files

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        self.options: AngularOptions = parse_options(options or {})
        self.cache_root = cache_root(self.options)
        self._toolchain: Toolchain | None = None
        self._driver: Driver | None = None
        self._dry_root: Path | None = None  # a template standing in for a missing workspace
        self._scratch: set[Path] = set()  # clean generations' workspaces (prepare_scratch)

    # -- lifecycle -------------------------------------------------------------------
    def preflight(self, context: ExecutionContext) -> None:
        self._toolchain = find_toolchain(self.options.min_node_version, cache_dir=self.cache_root)
        root = context.workspace_root
        if is_bootstrapped(root, self.options.collection):
            schematics = root / "node_modules" / "@angular-devkit" / "schematics"
            if not (schematics / "package.json").is_file():
                raise ToolchainError(
                    f"{root} has no node_modules/@angular-devkit/schematics",
                    hint=f"run `npm ci` in {root}",
                )
            return
        if (root / "angular.json").is_file():  # e.g. checked out from git: no node_modules
            if not self.options.install_dependencies:
                raise ToolchainError(
                    f"{root} is an Angular workspace without its node_modules "
                    f"({self.options.collection} is not installed)",
                    hint=f"run `npm ci` in {root}, or set adapterOptions.installDependencies",
                )
            if not context.dry_run and not self._modules_cached():
                check_registry(
                    self._toolchain, cache_dir=self.cache_root, registry=self.options.registry
                )
            return
        if root.is_dir() and any(not p.name.startswith(".") for p in root.iterdir()):
            raise InputError(
                f"workspaceRoot {root} is not empty and is not an Angular workspace with "
                f"{self.options.collection} installed",
                path=root,
                hint="point workspaceRoot at an empty or missing directory, or at a "
                "workspace created by this adapter",
            )
        if context.dry_run:  # nothing is installed; the dry run uses a cached template if any
            return
        if self.options.template_cache and find_matching_template(self.cache_root, self.options):
            return
        check_registry(self._toolchain, cache_dir=self.cache_root, registry=self.options.registry)

    def prepare_scratch(self, root: Path) -> None:
        """``root`` is a clean generation's scratch workspace (averos_ci.execute.regen): it
        only runs schematics, so it shares the cached template's ``node_modules`` through a
        symbolic link (no copy to make or delete; a snapshot or a state push skips it)."""
        self._scratch.add(root.resolve())

    def open(self, context: ExecutionContext) -> None:
        if context.dry_run:
            return
        root = context.workspace_root
        if (root / "angular.json").is_file() and not is_bootstrapped(root, self.options.collection):
            # a checkout without node_modules: the cached template's (same lock file), else npm ci
            linked = link_cached_modules(root, self.options) if self._modules_cached() else None
            if linked is not None:
                template, done = linked
                _log(context, f"node_modules {done} from the cached template {template}")
            else:
                install_dependencies(root, self.toolchain(), self.cache_root, self.options, context)
        if children.reap(context.workspace_root):
            _log(context, "ended a schematics process left running by an interrupted run")
        restored = journal_mod.rollback(context.workspace_root)
        if restored:
            _log(context, "rolled back the interrupted node's writes: " + ", ".join(restored))

    def _modules_cached(self) -> bool:
        return self.options.template_cache and (
            find_matching_template(self.cache_root, self.options) is not None
        )

    def close(self) -> None:
        if self._driver is not None:
            self._driver.close()
            self._driver = None

    # -- nodes -----------------------------------------------------------------------
    def not_applied(self, node: PlanNode) -> list[NotApplied]:
        """What of the node's settings will not take effect (the plan shows it)."""
        return predict(node.command, node.args)

    def execute(
        self, node: PlanNode, context: ExecutionContext, state: ExecutionState
    ) -> ExecutionResult:
        started = time.monotonic()
        operation = OPERATIONS.get(node.command)
        try:
            if operation is None:
                outcome: RuntimeMutation | ExecutionFailure = ExecutionFailure(
                    code="UNSUPPORTED",
                    message=f"no mapping for command {node.command!r} in angular-schematics",
                )
            elif isinstance(operation, Bootstrap):
                outcome = self._bootstrap(node, context, operation)
            elif isinstance(operation, BuiltinEdit):
                outcome = self._edit(node, context, operation)
            else:
                outcome = self._schematic(node, context, operation)
        except AverosCIError as exc:
            outcome = ExecutionFailure(code="ADAPTER_ERROR", message=str(exc))
        finally:
            if not context.dry_run:
                journal_mod.clear(context.workspace_root)
        duration = int((time.monotonic() - started) * 1000)
        if isinstance(outcome, ExecutionFailure):
            _log(context, f"FAILED {outcome.code}: {outcome.message}")
            return ExecutionResult(success=False, duration_ms=duration, failure=outcome)
        return ExecutionResult(success=True, duration_ms=duration, runtime_mutation=outcome)

    def _bootstrap(
        self, node: PlanNode, context: ExecutionContext, op: Bootstrap
    ) -> RuntimeMutation | ExecutionFailure:
        root = context.workspace_root
        args = node.args
        app = check_app_name(str(args.get("applicationName", "")))
        created: tuple[str, ...] = ()
        if is_bootstrapped(root, self.options.collection):
            _log(context, f"workspace {root} already has {self.options.collection}: kept")
        else:
            spec = BootstrapSpec.from_options(
                self.options,
                app_name=app,
                language=str(args.get("defaultLanguageCode") or "en"),
                cache_root=self.cache_root,
            )
            if context.dry_run:
                self._dry_root = cached_template(self.cache_root, spec)
                _log(context, f"dry run: would create the Angular workspace {app} in {root}")
                return RuntimeMutation()
            staged = staging_dir(root)
            shutil.rmtree(staged, ignore_errors=True)
            try:
                if self.options.template_cache:
                    template = ensure_template(self.cache_root, spec, log=context.log_file)
                    _log(context, f"copying the cached template workspace {template}")
                    copy_workspace(
                        template, staged, symlink_node_modules=root.resolve() in self._scratch
                    )
                else:
                    create_workspace(staged, spec, log=context.log_file)
                move_into_place(staged, root)
            finally:
                shutil.rmtree(staged, ignore_errors=True)
            created = tuple(sorted(scan(root)))
        written = self._write(context, op.edit(root, args))
        return RuntimeMutation(
            created=tuple(sorted({*created, *written.created})),
            updated=tuple(p for p in written.updated if p not in created),
        )

    def _edit(
        self, node: PlanNode, context: ExecutionContext, op: BuiltinEdit
    ) -> RuntimeMutation | ExecutionFailure:
        if not self.options.builtin_edits:
            return _unsupported(node, self.options.collection)
        shown = mask_wire({"nodes": [{"id": node.id, "args": node.args}]})["nodes"][0]["args"]
        _log(context, f"built-in edit {node.command} {json.dumps(shown, sort_keys=True)}")
        return self._write(context, op.edit(context.workspace_root, node.args))

    def _write(self, context: ExecutionContext, edited: Edited) -> RuntimeMutation:
        return apply_edit(context, edited)

    def _schematic(
        self, node: PlanNode, context: ExecutionContext, op: Schematic
    ) -> RuntimeMutation | ExecutionFailure:
        return finish_member(node, context, run_schematic(self, node, context, op))

    # -- helpers used by execute_schematic ------------------------------------------
    def toolchain(self) -> Toolchain:
        if self._toolchain is None:
            self._toolchain = find_toolchain(
                self.options.min_node_version, cache_dir=self.cache_root
            )
        return self._toolchain

    def schematics_root(self, context: ExecutionContext) -> Path | None:
        root = context.workspace_root
        if is_bootstrapped(root, self.options.collection):
            return root
        return self._dry_root if context.dry_run else None

    def driver(self, context: ExecutionContext, root: Path) -> Driver:
        if self._driver is not None and (not self._driver.alive or self._driver.root != root):
            self._driver.close()
            self._driver = None
        if self._driver is None:
            self._driver = Driver(
                node=self.toolchain().node,
                root=root,
                env=self.toolchain().env(tool_env(self.cache_root, registry=self.options.registry)),
                stderr_log=context.logs_dir / "angular-driver.stderr.log",
                track=not context.dry_run,
            )
        return self._driver

    def kill_driver(self) -> None:
        if self._driver is not None:
            self._driver.kill()
            self._driver = None


def _unsupported(node: PlanNode, collection: str) -> ExecutionFailure:
    return ExecutionFailure(
        code="UNSUPPORTED",
        message=f"{node.command} ({node.id}) is unsupported by collection {collection}: "
        "it has no schematic for it and adapterOptions.builtinEdits is false",
    )


def _log(context: ExecutionContext, line: str) -> None:
    context.log_file.parent.mkdir(parents=True, exist_ok=True)
    with context.log_file.open("a", encoding="utf-8") as f:
        f.write(line.rstrip("\n") + "\n")
