"""Semantic rules (Layer 2). Each finding has a stable code:

REF-xx references, CON-xx constraints (see the README's table of codes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from averos_ci.manifest.report import Reporter
from averos_ci.manifest.rules.common import Members
from averos_ci.manifest.rules.duplicates import check_duplicates
from averos_ci.manifest.rules.members import check_members
from averos_ci.manifest.rules.naming import check_names
from averos_ci.manifest.rules.references import check_references
from averos_ci.manifest.rules.settings import check_settings

if TYPE_CHECKING:
    from averos_ci.manifest.schema import Application

__all__ = ["RULES", "Members", "check_semantics"]

# The rule table, in the order the findings are reported.
RULES: tuple[Callable[[Application, Members, Reporter], None], ...] = (
    check_names,
    check_duplicates,
    check_members,
    check_references,
    check_settings,
)


def check_semantics(app: Application, members: Members, r: Reporter) -> None:
    for rule in RULES:
        rule(app, members, r)
