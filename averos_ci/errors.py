"""Everything a user can cause, and the exit codes they map to.

Errors are mapped to exit codes in exactly one place: :func:`averos_ci.cli.main`.
"""

from __future__ import annotations

from enum import IntEnum
from pathlib import Path


class ExitCode(IntEnum):
    """One table for every command (README, "Exit codes"); a code never changes meaning."""

    OK = 0  # also "no changes" under plan --detailed-exitcode
    FAILED = 1  # the run (or the GitHub flow) failed: a node failed, an unapproved/stale apply
    INVALID = 2  # invalid input or usage: manifest, config, state, checkpoint, event payload
    INTERNAL = 3  # a bug in averos-ci: please report it
    CHANGES = 4  # plan --detailed-exitcode only: the plan has changes to apply
    CONFLICTS = 5  # the plan has conflicts and cannot be applied (plan -d, run, github plan/apply)
    INTERRUPTED = 130  # SIGINT / SIGTERM / timeout-cancelled run, progress persisted


class AverosCIError(Exception):
    """Base class of every error a user can cause. Carries location and a hint."""

    exit_code: ExitCode = ExitCode.INVALID

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.column = column
        self.hint = hint

    @property
    def location(self) -> str:
        parts = [p for p in (self.path, self.line, self.column) if p is not None]
        return ":".join(str(p) for p in parts)

    def __str__(self) -> str:
        head = f"{self.location}: {self.message}" if self.location else self.message
        return f"{head}\nhint: {self.hint}" if self.hint else head


class InputError(AverosCIError):
    """A file or option given by the user cannot be used (exit 2)."""


class ConfigError(InputError):
    """``averos.config.json`` is missing, malformed or has wrong types."""


class StateError(InputError):
    """A state or checkpoint file is corrupt, truncated or of an unknown format version."""


class ToolchainError(InputError):
    """A tool the adapter needs (node, npm, a registry) is missing or unusable."""


class PlanConflicts(AverosCIError):
    """The plan has conflicts: no adapter can apply it (exit 5, whichever command found it)."""

    exit_code = ExitCode.CONFLICTS


class RunFailed(AverosCIError):
    """The run completed but did not succeed (exit 1)."""

    exit_code = ExitCode.FAILED


class Interrupted(AverosCIError):
    """The run was interrupted by a signal or its time limit; progress is persisted (exit 130)."""

    exit_code = ExitCode.INTERRUPTED
