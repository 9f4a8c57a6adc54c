"""Getting a repository set up: ``averos-ci init`` writes it, ``averos-ci doctor`` checks it."""

from __future__ import annotations

from averos_ci.onboard.init import Change, InitResult, PlannedFile, init_repository
from averos_ci.onboard.init_report import render_init

__all__ = ["Change", "InitResult", "PlannedFile", "init_repository", "render_init"]
