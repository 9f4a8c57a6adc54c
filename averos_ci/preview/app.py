"""What a generated Averos application calls and shows, read from its source (never changed).

- the entity endpoints: each service's ``public <entity>API = '<url>';``
  (``src/app/service/*.service.ts``, written from the manifest's service configuration);
- the runtime's backend: ``AverosCoreModule.forRoot({ beURL: '<url>' ... })`` in app.module.ts,
  where @wiforge/averos 1.4.1 logs in (``POST <beURL>/auth/login``);
- the entity pages: ``{ path: 'books/create', component: CreateBookComponent ... }`` in
  app-routing.module.ts, and whether they sit behind ``AuthenticationGuard``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from averos_ci.errors import InputError

_API = re.compile(r"public\s+(\w+)API\s*=\s*['\"`]([^'\"`]+)['\"`]")
_BE_URL = re.compile(r"beURL\s*:\s*['\"`]([^'\"`]+)['\"`]")
_ROUTE = re.compile(
    r"\{\s*path\s*:\s*'([^']+)'\s*,\s*component\s*:\s*(Create|Search)(\w+)Component([^}]*)\}"
)
PAGE_KINDS = {"Create": "create", "Search": "search"}


@dataclass(frozen=True)
class Endpoint:
    """One entity collection as the generated service calls it."""

    entity: str  # as the service names it: camelCase (``bookAPI`` -> ``book``)
    url: str

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or "127.0.0.1"

    @property
    def port(self) -> int:
        parts = urlsplit(self.url)
        return parts.port or (443 if parts.scheme == "https" else 80)

    @property
    def path(self) -> str:
        return urlsplit(self.url).path.rstrip("/") or "/"


@dataclass(frozen=True)
class Page:
    entity: str  # PascalCase, as the component names it
    kind: str  # "create" | "search"
    path: str  # the route, with a leading slash
    guarded: bool  # canActivate: [AuthenticationGuard]

    @property
    def name(self) -> str:
        return f"{self.entity.lower()}-{self.kind}"


@dataclass(frozen=True)
class GeneratedApp:
    workspace: Path
    endpoints: tuple[Endpoint, ...]
    be_url: str | None
    pages: tuple[Page, ...]

    @property
    def guarded(self) -> bool:
        return any(p.guarded for p in self.pages)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def read_app(workspace: Path) -> GeneratedApp:
    """Read ``workspace`` (an Angular workspace an adapter generated)."""
    app_dir = workspace / "src" / "app"
    module = app_dir / "app.module.ts"
    if not module.is_file():
        raise InputError(
            f"{workspace} holds no generated application (no src/app/app.module.ts)",
            path=workspace,
            hint="generate it first: `averos-ci run --config averos.config.json` "
            "(with an adapter that generates an Angular workspace)",
        )
    endpoints = []
    for service in sorted((app_dir / "service").glob("*.service.ts")):
        for match in _API.finditer(_read(service)):
            endpoints.append(Endpoint(entity=match.group(1), url=match.group(2)))
    be_url = _BE_URL.search(_read(module))
    pages = [
        Page(
            entity=m.group(3),
            kind=PAGE_KINDS[m.group(2)],
            path="/" + m.group(1).lstrip("/"),
            guarded="AuthenticationGuard" in m.group(4),
        )
        for m in _ROUTE.finditer(_read(app_dir / "app-routing.module.ts"))
    ]
    return GeneratedApp(
        workspace=workspace,
        endpoints=tuple(endpoints),
        be_url=be_url.group(1) if be_url else None,
        pages=tuple(sorted(set(pages), key=lambda p: (p.entity, p.kind))),
    )
