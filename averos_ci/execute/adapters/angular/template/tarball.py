"""``localTgz``: an ``npm pack`` tarball of the collection, installed without the registry.

As in Averos (``averos run --tgz=… --averos-version=…``), for pre-release and offline
installs. The tarball's own ``package.json`` names the package and its version; its content
hash is part of the template cache key, so a rebuilt tarball never reuses a stale template.
"""

from __future__ import annotations

import hashlib
import json
import tarfile
from dataclasses import dataclass
from pathlib import Path

from averos_ci.errors import ConfigError

_MANIFEST = "package/package.json"
_MAX_MANIFEST = 1024 * 1024
HINT = (
    "localTgz names a tarball made by `npm pack` of the collection "
    "(paths are relative to the config file)"
)


@dataclass(frozen=True)
class LocalTarball:
    path: Path
    name: str
    version: str
    sha256: str


def read_tarball(path: Path, *, collection: str) -> LocalTarball:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        with tarfile.open(path, "r:*") as tar:
            member = tar.getmember(_MANIFEST)
            if not member.isfile() or member.size > _MAX_MANIFEST:
                raise KeyError(_MANIFEST)
            extracted = tar.extractfile(member)
            assert extracted is not None
            data = json.loads(extracted.read().decode("utf-8"))
    except FileNotFoundError:
        raise ConfigError("localTgz: no such file", path=path, hint=HINT) from None
    except (OSError, tarfile.TarError, KeyError, ValueError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"localTgz is not an npm package tarball ({type(exc).__name__}: {exc})",
            path=path,
            hint=HINT,
        ) from None
    name = data.get("name") if isinstance(data, dict) else None
    version = data.get("version") if isinstance(data, dict) else None
    if not isinstance(name, str) or not isinstance(version, str):
        raise ConfigError("localTgz: its package.json has no name/version", path=path, hint=HINT)
    if name != collection:
        raise ConfigError(
            f"localTgz holds {name}@{version}, not the collection {collection}",
            path=path,
            hint=HINT,
        )
    return LocalTarball(path=path, name=name, version=version, sha256=digest.hexdigest())
