"""Moved to :mod:`averos_ci.review.project_status` (per-project statuses and the aggregate).

A re-export for the flows another change edits now (``github/recomputed.py``); removed once
they import the new home.
"""

from __future__ import annotations

from averos_ci.review.project_status import project_context

__all__ = ["project_context"]
