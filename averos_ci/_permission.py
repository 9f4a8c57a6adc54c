"""Repository permission levels, shared by the approval rules and the policy."""

from __future__ import annotations

from enum import StrEnum


class Permission(StrEnum):
    """Repository permission levels, lowest first (the collaborator-permission API's names)."""

    NONE = "none"
    READ = "read"
    TRIAGE = "triage"
    WRITE = "write"
    MAINTAIN = "maintain"
    ADMIN = "admin"

    @property
    def rank(self) -> int:
        return list(Permission).index(self)
