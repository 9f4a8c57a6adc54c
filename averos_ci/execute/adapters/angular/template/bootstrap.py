"""The ``application`` node's heavy part: create the Angular workspace with Averos in it.

`ng new` + ``.npmrc`` (legacy-peer-deps) + `ng add <collection>@<version>` +
`npm install -D @types/node@<v>` (the latest @types/node breaks Angular 14's TypeScript).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from averos_ci.errors import ConfigError, ToolchainError
from averos_ci.execute.contracts import ExecutionContext

from .._proc import CommandFailed, run, tool_env
from ..options import AngularOptions
from ..options import cache_root as default_cache_root
from .tarball import LocalTarball, read_tarball
from .toolchain import Toolchain, find_toolchain
from .workspace import check_app_name

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


@dataclass(frozen=True)
class BootstrapSpec:
    app_name: str
    language: str
    angular_cli_version: str
    averos_version: str
    types_node_version: str
    collection: str
    style: str
    registry: str | None
    cache_root: Path
    timeout_s: float
    toolchain: Toolchain
    local_tgz: LocalTarball | None = None

    @classmethod
    def from_options(
        cls,
        options: AngularOptions,
        *,
        app_name: str,
        language: str,
        cache_root: Path | None = None,
    ) -> BootstrapSpec:
        tarball = local_tarball(options)
        return cls(
            app_name=check_app_name(app_name),
            language=language,
            angular_cli_version=options.angular_cli_version,
            averos_version=tarball.version if tarball else options.averos_version,
            local_tgz=tarball,
            types_node_version=options.types_node_version,
            collection=options.collection,
            style=options.style,
            registry=options.registry,
            cache_root=cache_root or default_cache_root(options),
            timeout_s=options.install_timeout_s,
            toolchain=find_toolchain(
                options.min_node_version, cache_dir=cache_root or default_cache_root(options)
            ),
        )

    def key_fields(self) -> dict[str, str]:
        # localTgz only when set: the keys of templates installed from the registry stay put.
        tarball = {"localTgz": self.local_tgz.sha256[:16]} if self.local_tgz else {}
        return {
            **tarball,
            "appName": self.app_name,
            "language": self.language,
            "angularCli": self.angular_cli_version,
            "averos": self.averos_version,
            "typesNode": self.types_node_version,
            "collection": self.collection,
            "style": self.style,
            "nodeMajor": str(self.toolchain.node_version[0]),
        }


def create_workspace(
    dest: Path, spec: BootstrapSpec, *, log: Path | None, prepare_for_links: bool = False
) -> None:
    """Create the workspace at ``dest`` (which must not exist yet). Takes minutes."""
    tc = spec.toolchain
    env = tc.env(tool_env(spec.cache_root, registry=spec.registry))
    dest.parent.mkdir(parents=True, exist_ok=True)
    steps: list[tuple[list[str], Path]] = [
        (
            [
                tc.npx,
                "-y",
                f"@angular/cli@{spec.angular_cli_version}",
                "new",
                spec.app_name,
                f"--directory={dest.name}",
                "--defaults",
                "--skip-git",
                "--routing",
                f"--style={spec.style}",
                "--interactive=false",
            ],
            dest.parent,
        ),
    ]
    try:
        run(steps[0][0], cwd=steps[0][1], env=env, timeout=spec.timeout_s, log=log)
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
                "--defaults",
                "--interactive=false",
                f"--application-name={spec.app_name}",
                f"--default-language-code={spec.language}",
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


def local_tarball(options: AngularOptions) -> LocalTarball | None:
    if options.local_tgz is None:
        return None
    tarball = read_tarball(Path(options.local_tgz), collection=options.collection)
    if "averos_version" in options.model_fields_set and options.averos_version != tarball.version:
        raise ConfigError(
            f"averosVersion {options.averos_version} does not match the localTgz tarball "
            f"({tarball.name}@{tarball.version})",
            path=tarball.path,
            hint=f"set averosVersion to {tarball.version}, or remove it",
        )
    return tarball


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
    cmd = [toolchain.npm, "ci" if lock else "install"]
    try:
        run(
            cmd,
            cwd=root,
            env=toolchain.env(tool_env(cache_root, registry=options.registry)),
            timeout=options.install_timeout_s,
            log=context.log_file,
        )
    except CommandFailed as exc:
        raise ToolchainError(
            f"installing the dependencies of {root} failed\n{exc}",
            hint=f"run `{' '.join(cmd[1:])}` in {root} by hand to see the problem",
        ) from None
