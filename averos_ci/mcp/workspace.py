"""The repository the server works in: its root, its projects' configs, and which files a tool
may read or write (the manifests inside the repository, symlinks resolved)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from averos_ci.config import CONFIG_FILE_NAME, RunConfig, default_config, load_config
from averos_ci.errors import InputError
from averos_ci.source import DEFAULT_MAX_BYTES, SourceError, load_document

MANIFEST_SUFFIXES = (".json", ".yaml", ".yml")


class OutsideRepository(InputError):
    """A path the server must not touch: outside the repository, in ``.git``, not a manifest."""


@dataclass(frozen=True)
class Workspace:
    root: Path  # the repository root, resolved
    config: Path | None = None  # an explicit config file (else averos.config.json discovery)
    max_bytes: int = DEFAULT_MAX_BYTES

    @classmethod
    def open(cls, root: Path, *, config: Path | None = None) -> Workspace:
        resolved = root.resolve()
        if not resolved.is_dir():
            raise InputError("the repository root is not a directory", path=root)
        cfg = (resolved / config).resolve() if config is not None else None
        return cls(resolved, cfg)

    def run_config(self, project: str | None = None) -> RunConfig:
        """The config of ``project`` (a config file or its directory, repository-relative), else
        the server's ``--config``, else ``<root>/averos.config.json``, else the defaults."""
        if project:
            target = self.inside(project, what="project")
            path = target / CONFIG_FILE_NAME if target.is_dir() else target
            return load_config(path)
        if self.config is not None:
            return load_config(self.config)
        candidate = self.root / CONFIG_FILE_NAME
        return load_config(candidate) if candidate.exists() else default_config(self.root)

    def inside(self, path: str | Path, *, what: str = "path") -> Path:
        """``path`` (relative to the root, or absolute) resolved; refused outside the root."""
        raw = Path(path)
        resolved = (raw if raw.is_absolute() else self.root / raw).resolve()
        if resolved != self.root and self.root not in resolved.parents:
            raise OutsideRepository(
                f"{what} {str(path)!r} is outside the repository",
                path=str(path),
                hint=f"give a path inside {self.root} (symbolic links are followed)",
            )
        if ".git" in resolved.relative_to(self.root).parts:
            raise OutsideRepository(f"{what} {str(path)!r} is inside .git", path=str(path))
        return resolved

    def relative(self, path: Path) -> str:
        return path.resolve().relative_to(self.root).as_posix()

    def manifest(self, path: str | Path | None, *, project: str | None = None) -> Path:
        """A manifest file a tool may read and write: inside the repository, a JSON or YAML
        file that holds an Averos manifest (not a config or state file), within the size
        limit. ``None``: the project's manifestPath."""
        if path is None:
            path = self.run_config(project).manifest_path
        target = self.inside(path, what="manifest")
        if target.suffix.lower() not in MANIFEST_SUFFIXES:
            raise OutsideRepository(
                f"{str(path)!r} is not a manifest (.json, .yaml or .yml)", path=str(path)
            )
        if target.name == CONFIG_FILE_NAME:
            raise OutsideRepository(f"{str(path)!r} is a config file, not a manifest")
        if target.exists():
            doc = load_document(target, max_bytes=self.max_bytes, what="manifest")
            data = doc.data
            project_data = data.get("project")
            designer = isinstance(project_data, dict) and "averosApplication" in project_data
            if "applicationName" not in data and not designer:
                raise OutsideRepository(
                    f"{str(path)!r} is not an Averos manifest (no applicationName)",
                    path=str(path),
                    hint="edit_manifest only changes manifests",
                )
        else:
            raise SourceError("SYN-01", "manifest not found", path=str(path))
        return target
