"""The ``angular-schematics`` adapter: the Averos Angular schematics on a real workspace."""

from __future__ import annotations

from .adapter import AngularSchematicsAdapter

__all__ = ["AngularSchematicsAdapter"]
