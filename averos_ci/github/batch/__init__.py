"""A batch matrix entry (``averos-ci projects`` above 256 changed projects): one
``averos-ci github <command>`` over several configs, one a line. :mod:`.run` runs each
project in turn, :mod:`.outputs` makes the step outputs the batch's."""

from __future__ import annotations

from .run import batch_result_path, run_batch

__all__ = ["batch_result_path", "run_batch"]
