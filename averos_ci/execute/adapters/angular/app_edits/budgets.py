"""Production budgets that fit what Averos generates, so a first ``ng build`` succeeds.

``ng new`` sets Angular's defaults for a blank app (initial bundle: warning 500 kB, error
1 MB; a component's styles: 2 kB / 4 kB). The @wiforge/averos 1.4.1 runtime alone (Angular
Material, flex-layout, its own pages) makes the initial bundle of a generated app about
4.1 MB (measured with `ng build`: the library example, one entity, 4.07 MB raw, 756 kB
transferred; the ToDo example, two, 4.09 MB), so the default production build fails. The
limits below leave room for the entities a manifest adds (tens of kB each) and still catch
a bundle that doubles.

The production build also inlines the Google Fonts stylesheets ``index.html`` links (Averos's
Cairo and Material Icons): it downloads them at build time, so without internet access the
build fails (``Inlining of fonts failed``). Font inlining is off: the browser loads them, as
in development builds, and the build needs no network.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..files import read_text

BUDGETS: tuple[dict[str, str], ...] = (
    {"type": "initial", "maximumWarning": "5mb", "maximumError": "8mb"},
    {"type": "anyComponentStyle", "maximumWarning": "6kb", "maximumError": "10kb"},
)


# Angular 14's production optimization, fonts not inlined (see above)
OPTIMIZATION: dict[str, Any] = {
    "scripts": True,
    "styles": {"minify": True, "inlineCritical": True},
    "fonts": False,
}


def _with_budgets(workspace: Any) -> bool:
    changed = False
    projects = workspace.get("projects") if isinstance(workspace, dict) else None
    for project in (projects or {}).values():
        try:
            production = project["architect"]["build"]["configurations"]["production"]
        except (KeyError, TypeError):
            continue
        if not isinstance(production, dict):
            continue
        wanted = {"budgets": [dict(b) for b in BUDGETS], "optimization": OPTIMIZATION}
        for key, value in wanted.items():
            if production.get(key) != value:
                production[key] = json.loads(json.dumps(value))
                changed = True
    return changed


def production_budgets(root: Path) -> dict[str, str]:
    """``angular.json`` with :data:`BUDGETS` and :data:`OPTIMIZATION` in every production
    configuration (written in the layout it has: `ng add` leaves it compact)."""
    path = root / "angular.json"
    if not path.is_file():
        return {}
    text = read_text(path)
    try:
        workspace = json.loads(text)
    except ValueError:
        return {}
    if not _with_budgets(workspace):
        return {}
    if "\n" in text.strip():
        new = json.dumps(workspace, indent=2, ensure_ascii=False) + "\n"
    else:
        new = json.dumps(workspace, ensure_ascii=False, separators=(",", ":"))
    return {"angular.json": new}
