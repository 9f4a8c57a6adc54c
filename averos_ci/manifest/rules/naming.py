"""Names: well-formed (CON-04/05/06), renames (CON-15), locale ids (CON-13)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from averos_ci.manifest import names as N
from averos_ci.manifest.report import Reporter
from averos_ci.manifest.rules.common import Members, is_simple, member_name
from averos_ci.source import Pointer

if TYPE_CHECKING:
    from averos_ci.manifest.schema import Application


def _check_name(name: str, at: Pointer, r: Reporter, *, pascal: bool, what: str) -> None:
    problem = N.name_problem(name, pascal=pascal)
    if problem:
        code, message = problem
        hint = {
            "CON-05": "choose another name: it becomes TypeScript code",
            "CON-06": "names become file names: no '/', '\\' or '..'",
            "CON-04": "shorten the name",
        }.get(code) or (
            "use letters and digits, starting with an upper-case letter (e.g. ToDoTask)"
            if pascal
            else "use letters, digits and '_', not starting with a digit"
        )
        r.error(code, f"{what} {message}", at, hint=hint)


def _check_rename(old: str, new: str, at: Pointer, r: Reporter, *, pascal: bool) -> None:
    if old == new:
        r.error(
            "CON-15",
            f"renamedFrom {old!r} is the element's own name",
            at,
            hint="remove renamedFrom once the rename has been applied",
        )
    else:
        _check_name(old, at, r, pascal=pascal, what="renamedFrom")


def check_names(app: Application, members: Members, r: Reporter) -> None:
    _check_name(app.applicationName, ("applicationName",), r, pascal=True, what="application")
    for i, e in enumerate(app.entities):
        _check_name(e.name, ("entities", i, "name"), r, pascal=True, what="entity")
        if e.sname:
            _check_name(e.sname, ("entities", i, "sname"), r, pascal=True, what="service")
    for i, e in enumerate(app.entities):
        if e.renamedFrom is not None:
            _check_rename(e.renamedFrom, e.name, ("entities", i, "renamedFrom"), r, pascal=True)
    for (ei, mi), m in members.items():
        at: Pointer = ("entities", ei, "members", mi)
        if is_simple(m):
            _check_name(m.mname, (*at, "mname"), r, pascal=False, what="member")
        else:
            _check_name(m.memberName, (*at, "memberName"), r, pascal=False, what="member")
        renamed = getattr(m, "renamedFrom", None)
        if renamed is not None:
            _check_rename(renamed, member_name(m), (*at, "renamedFrom"), r, pascal=False)
    for key, items in (
        ("useCases", app.useCases),
        ("blankPages", app.blankPages),
        ("serviceConfigurations", app.serviceConfigurations),
        ("services", app.services),
        ("fieldMappings", app.fieldMappings),
        ("authentication", app.authentication),
    ):
        for i, item in enumerate(items):
            name = getattr(item, "name")  # noqa: B009 - all these shapes have a name
            _check_name(name, (key, i, "name"), r, pascal=True, what=key.rstrip("s"))
    for li, lang in enumerate(app.languages):
        for ti, t in enumerate(lang.translationEntries):
            if not N.LOCALE_ID.match(t.localeID) or ".." in t.localeID:
                r.error(
                    "CON-13",
                    f"localeID {t.localeID!r} is not a dotted key",
                    ("languages", li, "translationEntries", ti, "localeID"),
                    hint="use letters, digits, '_', '-' and single dots",
                )
