"""The applied projects the real-Angular tests share (tests/scenarios/angular/applied.py)."""

from __future__ import annotations

from tests.scenarios.angular.applied import applied_project

__all__ = ["applied_project"]
