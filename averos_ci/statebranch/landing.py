"""Landing one project's commit on the state branch while other projects' jobs push too.

Everything of a project lives under ``<project>/`` of the state branch, so a push rejected
because *another* project moved the branch is no conflict: the commit's project folder is
re-applied onto the fetched tip (a tree-level rebase; the plan does not change, since it only
reads this project's folder) and pushed again after a jittered exponential back-off, for as
long as a time budget sized for a matrix allows. Only when this project's own folder moved
does the caller decide again (re-plan, or refuse) — the optimistic lock stays per project.

Full jitter (a delay drawn uniformly from ``[0, min(cap, first * 2**retry)]``) spreads the
retries of jobs that lost the same race, so N jobs started at once by a matrix do not keep
colliding in lockstep.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

from averos_ci.statebranch.state_branch import GitError, StateBranch

_RNG = random.SystemRandom()  # jobs started in the same second must not share a seed


class BackoffSettings(Protocol):
    """The ``github.push*`` keys of a config (:class:`~averos_ci.forge.settings.GitHubSettings`)."""

    @property
    def push_backoff_seconds(self) -> float: ...
    @property
    def push_backoff_max_seconds(self) -> float: ...
    @property
    def push_retry_seconds(self) -> float: ...


@dataclass(frozen=True)
class Backoff:
    """How long and how patiently a rejected push is re-applied (``github.push*`` keys)."""

    first: float = 0.5  # seconds, the ceiling of the first delay
    cap: float = 15.0  # seconds, the ceiling of any delay
    budget: float = 600.0  # seconds of re-applying before giving up; 0: never re-apply

    @classmethod
    def from_settings(cls, settings: BackoffSettings) -> Backoff:
        return cls(
            first=settings.push_backoff_seconds,
            cap=settings.push_backoff_max_seconds,
            budget=settings.push_retry_seconds,
        )

    def delay(self, retry: int, *, rng: Callable[[float, float], float] = _RNG.uniform) -> float:
        """The wait before re-push number ``retry`` (1, 2, …): full jitter, capped."""
        ceiling = min(self.cap, self.first * 2 ** min(retry - 1, 32))
        return rng(0.0, ceiling)


@dataclass(frozen=True)
class Landed:
    tip: str  # the commit now at the tip of the branch (the re-applied one after retries)
    retries: int  # rejected pushes that were re-applied onto another project's commit


def land(
    sb: StateBranch,
    *,
    project: str,
    commit: str,
    base: str | None,
    backoff: Backoff,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Landed | None:
    """Push ``commit`` (made on ``base``), re-applied on the current tip first; re-apply its
    ``project/`` folder onto the fetched tip again while only other projects move the branch.

    ``None`` when ``project/`` itself changed on the remote since ``base``: someone else wrote
    this project, which only the caller can judge. :class:`GitError` when the budget is spent.
    """
    own = sb.subtree(base, project)
    started = clock()
    retries = 0
    # ``base`` may be long gone (a plan or an apply ran since): start from the tip as it is
    # now rather than lose a push, and a back-off, to a parent that other jobs moved past
    tip = sb.fetch()
    if tip != base:
        if sb.subtree(tip, project) != own:
            return None
        commit = sb.replant(commit, onto=tip, subdir=project)
    while not sb.push(commit):
        spent = clock() - started
        wait = min(backoff.delay(retries + 1), max(0.0, backoff.budget - spent))
        if wait > 0:
            sleep(wait)
        tip = sb.fetch()  # after the wait: the freshest tip has the best chance
        if sb.subtree(tip, project) != own:
            return None  # this project's own folder moved: not ours to merge
        spent = clock() - started
        if spent >= backoff.budget:
            raise GitError(
                f"could not push {sb.branch!r} for project {project!r}: other projects' jobs "
                f"kept moving it ({retries} re-applied push(es) in {spent:.0f} s)",
                hint="re-run the job (nothing of this project was lost); for a larger matrix "
                "raise github.pushRetrySeconds",
            )
        retries += 1
        print(
            f"{sb.branch} moved (another project's job pushed): {project}/ re-applied on "
            f"{(tip or '')[:12]} after {wait:.2f} s, retry {retries}"
        )
        commit = sb.replant(commit, onto=tip, subdir=project)
    return Landed(commit, retries)


def tries(
    backoff: Backoff,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[int]:
    """Try numbers 1, 2, … with the jittered back-off slept between them, while the budget
    lasts (at least one try): for a loop that rebuilds its commit on the fetched tip itself."""
    started = clock()
    retry = 0
    while True:
        yield retry + 1
        spent = clock() - started
        if spent >= backoff.budget:
            return
        retry += 1
        sleep(min(backoff.delay(retry), backoff.budget - spent))


__all__ = ["Backoff", "BackoffSettings", "Landed", "land", "tries"]
