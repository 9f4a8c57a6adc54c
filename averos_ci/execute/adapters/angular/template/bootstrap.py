"""The ``application`` node's heavy part: create the Angular workspace with Averos in it.

For the pinned default versions: one `npm ci` of the shipped lock file, then the schematics
offline (:mod:`.pinned`). Otherwise `ng new` + ``.npmrc`` (legacy-peer-deps) +
`ng add <collection>@<version>` + `npm install -D @types/node@<v>` (the latest @types/node
breaks Angular 14's TypeScript): three npm resolutions.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from averos_ci.errors import ToolchainError
from averos_ci.execute.contracts import ExecutionContext

from .._proc import CommandFailed, run, tool_env
from ..options import AngularOptions
from .pinned import NPM_CI, NPM_FAST_ENV, create_from_lock, pinned_set
from .spec import BootstrapSpec, local_tarball
from .toolchain import Toolchain

__all__ = [
    "NGCC_ARGS",
    "BootstrapSpec",
    "create_workspace",
    "install_dependencies",
    "local_tarball",
]

# The flags the Angular 14 CLI passes to ngcc before a build; run once in the template so
# builds of hard-linked copies never rewrite files shared with the template.
NGCC_ARGS = (
    "--properties",
    "es2015",
    "browser",
    "module",
    "main",
    "--first-only",
    "--create-ivy-entry-points",
)


def create_workspace(
    dest: Path,
    spec: BootstrapSpec,
    *,
    log: Path | None,
    prepare_for_links: bool = False,
    use_pinned: bool = True,
    modules_from: Path | None = None,
) -> None:
    """Create the workspace at ``dest`` (which must not exist yet). Takes minutes cold.

    ``modules_from``: a template workspace whose ``node_modules`` the pinned path links
    instead of installing, when it holds the same packages. ``use_pinned=False`` takes the
    three-step path even for the pinned versions (the test that compares both paths)."""
    tc = spec.toolchain
    env = tc.env({**tool_env(spec.cache_root, registry=spec.registry), **NPM_FAST_ENV})
    dest.parent.mkdir(parents=True, exist_ok=True)
    pinned = pinned_set(spec) if use_pinned else None
    try:
        if pinned is not None:
            create_from_lock(dest, spec, pinned, env=env, log=log, modules_from=modules_from)
        else:
            _create_in_three_steps(dest, spec, env=env, log=log)
        if prepare_for_links:
            ngcc = dest / "node_modules" / ".bin" / "ngcc"
            if ngcc.exists():
                run([str(ngcc), *NGCC_ARGS], cwd=dest, env=env, timeout=spec.timeout_s, log=log)
    except CommandFailed as exc:
        raise ToolchainError(
            f"creating the Angular workspace for {spec.app_name} failed\n{exc}",
            hint="check the command output above; npm needs the registry and the Angular "
            f"CLI {spec.angular_cli_version} must support Node "
            f"{'.'.join(map(str, tc.node_version))}",
        ) from None


def _create_in_three_steps(
    dest: Path, spec: BootstrapSpec, *, env: dict[str, str], log: Path | None
) -> None:
    tc = spec.toolchain
    run(
        [
            tc.npx,
            "-y",
            f"@angular/cli@{spec.angular_cli_version}",
            "new",
            spec.app_name,
            f"--directory={dest.name}",
            *spec.ng_new_options(),
        ],
        cwd=dest.parent,
        env=env,
        timeout=spec.timeout_s,
        log=log,
    )
    # Averos 1.4.x peer dependencies do not resolve strictly with npm >= 7.
    (dest / ".npmrc").write_text("legacy-peer-deps=true\n", encoding="utf-8")
    if spec.local_tgz is not None:
        env = _install_tarball(dest, spec, env, log=log)
    run(
        [
            tc.npx,
            "ng",
            "add",
            f"{spec.collection}@{spec.averos_version}",
            "--skip-confirmation",
            *spec.ng_add_options(),
        ],
        cwd=dest,
        env=env,
        timeout=spec.timeout_s,
        log=log,
    )
    run(
        [tc.npm, "install", "--save-dev", f"@types/node@{spec.types_node_version}"],
        cwd=dest,
        env=env,
        timeout=spec.timeout_s,
        log=log,
    )


def _install_tarball(
    dest: Path, spec: BootstrapSpec, env: dict[str, str], *, log: Path | None
) -> dict[str, str]:
    """Install the collection from the tarball, offline (npm's cache only, never the
    registry); vendored into the workspace so that a later `npm ci` finds it too. Returns
    the environment for the steps that follow: `ng add` then only runs the schematic."""
    assert spec.local_tgz is not None
    vendored = dest / "vendor" / spec.local_tgz.path.name
    vendored.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(spec.local_tgz.path, vendored)
    offline = {**env, "npm_config_offline": "true"}
    run(
        [spec.toolchain.npm, "install", f"./vendor/{vendored.name}"],
        cwd=dest,
        env=offline,
        timeout=spec.timeout_s,
        log=log,
    )
    return offline


def install_dependencies(
    root: Path,
    toolchain: Toolchain,
    cache_root: Path,
    options: AngularOptions,
    context: ExecutionContext,
) -> None:
    """`npm ci` (or `npm install` without a lock file) in an existing workspace, e.g. one a
    previous CI job generated and committed without its node_modules."""
    lock = (root / "package-lock.json").is_file()
    cmd = [toolchain.npm, *(NPM_CI if lock else ("install",))]
    try:
        run(
            cmd,
            cwd=root,
            env=toolchain.env({**tool_env(cache_root, registry=options.registry), **NPM_FAST_ENV}),
            timeout=options.install_timeout_s,
            log=context.log_file,
        )
    except CommandFailed as exc:
        raise ToolchainError(
            f"installing the dependencies of {root} failed\n{exc}",
            hint=f"run `{' '.join(cmd[1:])}` in {root} by hand to see the problem",
        ) from None
