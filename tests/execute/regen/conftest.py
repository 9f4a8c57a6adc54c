"""The applied projects the real-Angular tests share (tests/scenarios/angular/applied.py); the
Angular template fixtures are the suite's (tests/plugins/angular.py)."""

from __future__ import annotations

from tests.scenarios.angular.applied import applied_project

__all__ = ["applied_project"]
