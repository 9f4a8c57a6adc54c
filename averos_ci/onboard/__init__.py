"""Getting a repository set up: ``averos-ci init`` writes it, ``averos-ci doctor`` checks it."""

from __future__ import annotations

from averos_ci.onboard.checks import Check, Status
from averos_ci.onboard.doctor import DoctorReport, doctor
from averos_ci.onboard.init import Change, InitResult, PlannedFile, init_repository
from averos_ci.onboard.init_report import render_init

__all__ = [
    "Change",
    "Check",
    "DoctorReport",
    "InitResult",
    "PlannedFile",
    "Status",
    "doctor",
    "init_repository",
    "render_init",
]
