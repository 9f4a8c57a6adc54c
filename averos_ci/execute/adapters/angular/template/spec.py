"""What a bootstrap makes: the versions, names and tools of one Angular workspace."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from averos_ci.errors import ConfigError

from ..options import AngularOptions
from ..options import cache_root as default_cache_root
from .tarball import LocalTarball, read_tarball
from .toolchain import Toolchain, find_toolchain
from .workspace import check_app_name


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

    def ng_new_options(self) -> list[str]:
        """`ng new <app>`'s options, the same on both bootstrap paths (pinned.py checks that
        they make the same workspace)."""
        return ["--defaults", "--skip-git", "--routing", f"--style={self.style}",
                "--interactive=false"]  # fmt: skip

    def ng_add_options(self) -> list[str]:
        """The options of Averos's ng-add schematic (`ng add` or `ng generate …:ng-add`)."""
        return ["--defaults", "--interactive=false", f"--application-name={self.app_name}",
                f"--default-language-code={self.language}"]  # fmt: skip

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
