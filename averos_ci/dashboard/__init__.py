"""A static dashboard of the state branch (``averos-ci dashboard``): every project's applied
state and last apply, running and stuck claims, drift, failures, and a history page per
project — read from the branch alone, written as plain HTML and CSS."""

from __future__ import annotations

from averos_ci.dashboard.drift import DRIFT_FORMAT_VERSION, DRIFT_RECORDS, DriftRecord, drift_path
from averos_ci.dashboard.model import ClaimStatus, Dashboard, ProjectView
from averos_ci.dashboard.site import STUCK_AFTER, DashboardSite, build_dashboard

__all__ = [
    "DRIFT_FORMAT_VERSION",
    "DRIFT_RECORDS",
    "STUCK_AFTER",
    "ClaimStatus",
    "Dashboard",
    "DashboardSite",
    "DriftRecord",
    "ProjectView",
    "build_dashboard",
    "drift_path",
]
