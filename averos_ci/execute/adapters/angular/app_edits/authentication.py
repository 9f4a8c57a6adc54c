"""``enableAuthentication: false`` in the generated app: entity pages that open without a login.

@wiforge/averos 1.4.1's schematics always write ``canActivate: [AuthenticationGuard]`` on the
routes they register (create-entity-uc, search-entity-uc, advanced-crud; create-page in the
``logged`` space) and put the entity menus in the logged-only space; there is no option to
say otherwise. The application node records the setting in the routing module (one comment
line, :data:`NO_LOGIN`), and every node that registers routes drops the guard from them while
that line is there. The guards of the runtime's own pages (``users``, ``user/profile``) stay:
they need a logged user to mean anything.

Each edit is a pure function of the files and the node's args: re-running it rewrites nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..edits import Edited
from ..files import read_text, source_relative

NO_LOGIN = (
    "// averos-ci: enableAuthentication is false in the manifest: "
    "the entity pages open without a login"
)
# a route the schematics register: `{ path: '…', component: XComponent, canActivate: [...]}`
_GUARDED = re.compile(
    r"(\{ path: '[^'\n]*', component: \w+), canActivate: \[AuthenticationGuard\]\}"
)
# the entity routes they register (what a guard is given back to when the login returns)
_ENTITY_ROUTE = re.compile(
    r"(\{ path: '[a-z0-9_]+s/(?:create|search|view/:id|edit/:id)', component: \w+)\}"
)
_ROUTES = re.compile(r"^([ \t]*)const routes: Routes = \[", re.MULTILINE)


def login_required(args: Mapping[str, Any]) -> bool:
    """Averos's default is an application with authentication."""
    return args.get("enableAuthentication") is not False


def _routing(root: Path) -> tuple[str, str | None]:
    relative = source_relative(root, "app/app-routing.module.ts")
    path = root / relative
    return relative, read_text(path) if path.is_file() else None


def _menu(root: Path) -> tuple[str, str | None]:
    relative = source_relative(root, "assets/menu/menu.default.json")
    path = root / relative
    return relative, read_text(path) if path.is_file() else None


def _menu_space(text: str, *, logged: bool) -> str:
    """The entity menu groups in the public space (shown without a login), or back. Written
    as the schematics write it (``JSON.stringify``: compact, key order kept)."""
    try:
        menu = json.loads(text)
    except ValueError:
        return text
    changed = False
    for group in menu.get("sideMenu", []) if isinstance(menu, dict) else []:
        if isinstance(group, dict) and "loggedSpace" in group and group["loggedSpace"] != logged:
            group["loggedSpace"] = logged
            changed = True
    if not changed:
        return text
    return json.dumps(menu, ensure_ascii=False, separators=(",", ":"))


def _menu_files(root: Path, files: dict[str, str], *, logged: bool) -> None:
    relative, menu = _menu(root)
    if menu is not None:
        spaced = _menu_space(menu, logged=logged)
        if spaced != menu:
            files[relative] = spaced


def application_login(root: Path, args: Mapping[str, Any]) -> Edited:
    """The application node: mark the routing module (and open the routes already there),
    or, with authentication on again, unmark it and give the entity routes their guard back."""
    relative, text = _routing(root)
    if text is None:
        return Edited()
    files: dict[str, str] = {}
    if not login_required(args):
        new = text
        if NO_LOGIN not in new:
            match = _ROUTES.search(new)
            if match is None:
                return Edited(notes=(f"enableAuthentication: {relative} has no routes array",))
            newline = "\r\n" if "\r\n" in new else "\n"
            at = match.start()
            new = new[:at] + match.group(1) + NO_LOGIN + newline + new[at:]
        new = _GUARDED.sub(r"\1}", new)
        if new != text:
            files[relative] = new
        _menu_files(root, files, logged=False)
    elif NO_LOGIN in text:
        lines = [line for line in text.splitlines(keepends=True) if NO_LOGIN not in line]
        files[relative] = _ENTITY_ROUTE.sub(
            r"\1, canActivate: [AuthenticationGuard]}", "".join(lines)
        )
        _menu_files(root, files, logged=True)
    return Edited(files=files)


def open_routes(root: Path, args: Mapping[str, Any]) -> Edited:
    """After a schematic registered routes: drop their guard when the app has no login."""
    del args
    _, text = _routing(root)
    if text is None or NO_LOGIN not in text:
        return Edited()
    files: dict[str, str] = {}
    opened = _GUARDED.sub(r"\1}", text)
    if opened != text:
        files[source_relative(root, "app/app-routing.module.ts")] = opened
    _menu_files(root, files, logged=False)
    return Edited(files=files)
