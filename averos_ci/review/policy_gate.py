"""Moved to :mod:`averos_ci.review.policy_check` (the policy's verdict in the flow).

A re-export for the flows another change edits now (``github/plan_flow.py``,
``apply_step.py``, ``catchup.py``); removed once they import the new home.
"""

from __future__ import annotations

from averos_ci.review.policy_check import policy_meta, refuse_violations
from averos_ci.review.policy_check import verdict_from_meta as gate_from_meta

__all__ = ["gate_from_meta", "policy_meta", "refuse_violations"]
