"""The application node's settings that @wiforge/averos 1.4.1's ``ng add`` has no option for:
``description``, ``enableExternalEntityMapping`` and ``defaultAuthenticationProvider``.

- ``description``: the page's ``<meta name="description">`` (``src/index.html``, next to the
  ``<title>`` the application's name fills) and ``package.json``'s ``description``. Averos 2
  has no place for it in the app: neither ``create-application`` nor ``ng add`` takes it
  (packages/workflow/src/schematics/create-application/schema.json, ng-add/schema.json), and
  the ``index.html`` it writes carries only the ``<title>`` from ``applicationName``
  (ng-add/init-averos-project.ts, ``addAverosTemplates``); the page's head is where that name
  is, so the description goes beside it.
- ``enableExternalEntityMapping: false``: Averos's newer generator writes field mappings only
  when it is set; a comment line in ``app.module.ts`` (:data:`NO_MAPPING`) says so, and the
  field-mapping nodes read it (runtime_config.field_mapping). Without the key, mappings apply
  (manifests written for 1.4.x, which had no such switch, keep working).
- ``defaultAuthenticationProvider``: 1.4.1 has one authentication, the ``/auth/*`` API of
  ``beURL``; a comment line (:data:`DEFAULT_PROVIDER`) names the default provider, and only
  that provider's ``authBackendUrl`` becomes ``beURL`` (runtime_config.authentication_provider).

Pure functions of the files and the node's args: re-running them rewrites nothing.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..files import read_text, source_relative

NO_MAPPING = (
    "// averos-ci: enableExternalEntityMapping is false in the manifest: "
    "the fieldMappings are not applied"
)
DEFAULT_PROVIDER = "// averos-ci: defaultAuthenticationProvider "
_PROVIDER = re.compile(r"^// averos-ci: defaultAuthenticationProvider (\S+)\r?\n", re.M)
_NGMODULE = re.compile(r"^@NgModule\(", re.M)
_META = re.compile(r'^[ \t]*<meta name="description" content="[^"\n]*">\r?\n', re.M)
_TITLE = re.compile(r"^([ \t]*)<title>[^<\n]*</title>(\r?\n)", re.M)


def _read(root: Path, relative: str) -> str | None:
    path = root / relative
    return read_text(path) if path.is_file() else None


def app_module(root: Path) -> tuple[str, str | None]:
    relative = source_relative(root, "app/app.module.ts")
    return relative, _read(root, relative)


def mapping_enabled(root: Path) -> bool:
    _, text = app_module(root)
    return text is None or NO_MAPPING not in text


def default_provider(root: Path) -> str | None:
    _, text = app_module(root)
    found = _PROVIDER.search(text or "")
    return found.group(1) if found else None


def _module_markers(text: str, args: Mapping[str, Any]) -> str:
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = [ln for ln in text.splitlines(keepends=True) if NO_MAPPING not in ln]
    text = _PROVIDER.sub("", "".join(lines))
    markers = []
    if args.get("enableExternalEntityMapping") is False:
        markers.append(NO_MAPPING)
    provider = args.get("defaultAuthenticationProvider")
    if provider and args.get("enableAuthentication") is not False:
        markers.append(DEFAULT_PROVIDER + str(provider).split()[0])
    at = _NGMODULE.search(text)
    if not markers or at is None:
        return text
    block = "".join(m + newline for m in markers)
    return text[: at.start()] + block + text[at.start() :]


def _description(text: str, description: str | None) -> str:
    text = _META.sub("", text)
    if not description:
        return text
    content = html.escape(" ".join(description.split()), quote=True)
    return _TITLE.sub(
        lambda m: (
            f'{m.group(0)}{m.group(1)}<meta name="description" content="{content}">' + m.group(2)
        ),
        text,
        count=1,
    )


def _package(text: str, description: str | None) -> str:
    try:
        data = json.loads(text)
    except ValueError:
        return text
    if not isinstance(data, dict) or data.get("description") == description:
        return text
    if description:
        data["description"] = description
    else:
        data.pop("description", None)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def application_files(
    root: Path, args: Mapping[str, Any], *, module_text: str | None = None
) -> dict[str, str]:
    """The files the three settings change (only those whose text changes); ``module_text``
    the ``app.module.ts`` an earlier edit of the same node wrote."""
    description = args.get("description")
    description = str(description) if description else None
    out: dict[str, str] = {}
    module, text = app_module(root)
    text = module_text if module_text is not None else text
    if text is not None:
        out[module] = _module_markers(text, args)
    index = source_relative(root, "index.html")
    page = _read(root, index)
    if page is not None:
        out[index] = _description(page, description)
    package = _read(root, "package.json")
    if package is not None:
        out["package.json"] = _package(package, description)
    return {p: t for p, t in out.items() if _read(root, p) != t}
