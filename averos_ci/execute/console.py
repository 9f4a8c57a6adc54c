"""Console progress: a final line by default; with ``--verbose`` a rich progress display on a
TTY, plain lines otherwise, and one ``::group::`` block per node under GitHub Actions. A long
node shows life: its elapsed time and the last line of its log, beside the rich spinner or as
a plain line every ``AVEROS_CI_HEARTBEAT_S`` seconds (10 by default; see
:mod:`averos_ci.execute.heartbeat`)."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any, TextIO

from averos_ci._actions import command, escape_data, escape_property
from averos_ci.execute.adapters import next_step
from averos_ci.execute.events import (
    NodeFailed,
    NodeSkipped,
    NodeStarted,
    NodeSucceeded,
    RunnerCompleted,
    RunnerEvent,
)
from averos_ci.execute.heartbeat import Heartbeat, Running, interval_s
from averos_ci.execute.logs import node_log_path, tail
from averos_ci.execute.summary import CodeChangeSummary, RunnerSummary


class ConsoleListener:
    def __init__(
        self,
        *,
        total: int,
        logs_dir: Path,
        verbose: bool = False,
        stream: TextIO | None = None,
        github_actions: bool | None = None,
        tty: bool | None = None,
        heartbeat_s: float | None = None,
        last_line: bool = True,
    ) -> None:
        """``last_line=False``: the caller prints the run's last line (:func:`summary_line`),
        e.g. a regenerating run once its code change is written."""
        self.total = total
        self.last_line = last_line
        self.logs_dir = logs_dir
        self.verbose = verbose
        self.stream = stream or sys.stdout
        self.github = (
            os.environ.get("GITHUB_ACTIONS") == "true" if github_actions is None else github_actions
        )
        is_tty = self.stream.isatty() if tty is None else tty
        self.rich = verbose and is_tty and not self.github
        self.finished = 0
        self._progress: Any = None
        self._task: Any = None
        self._printing = threading.Lock()
        self.running = Running(logs_dir)
        self._heartbeat = Heartbeat(self.running, every=interval_s(heartbeat_s), say=self._beat)

    def on_event(self, event: RunnerEvent) -> None:
        self._track(event)
        if self.rich:
            self._rich(event)
            return
        line = self._line(event)
        if line is not None:
            self._say(line)

    def _track(self, event: RunnerEvent) -> None:
        if isinstance(event, NodeStarted):
            self.running.start(event.node_id)
            if not self.rich:
                self._heartbeat.ensure()
        elif isinstance(event, NodeSucceeded | NodeSkipped | NodeFailed):
            self.running.stop(event.node_id)
        elif isinstance(event, RunnerCompleted):
            self.running.stop()
            self._heartbeat.close()

    def _say(self, line: str) -> None:
        with self._printing:
            print(line, file=self.stream, flush=True)

    def _beat(self, text: str) -> None:
        self._say(f"{self._count()} {text}")

    def _line(self, event: RunnerEvent) -> str | None:
        if isinstance(event, RunnerCompleted):
            return _summary_line(event) if self.last_line else None
        if isinstance(event, NodeFailed) and not event.will_retry:
            self.finished += 1
            text = f"{self._count()} FAILED {event.node_id}: {event.failure.message}"
            if self.github:
                title = escape_property(f"averos-ci {event.node_id}")
                return (
                    self._group(event.node_id, text)
                    + "\n"
                    + (command(f"::error title={title}::{escape_data(event.failure.message)}"))
                )
            return text
        if not self.verbose:
            return None
        if isinstance(event, NodeStarted) and not self.github:
            return f"{self._count()} start {event.node_id} (attempt {event.attempt})"
        if isinstance(event, NodeSucceeded):
            self.finished += 1
            note = "already done (resumed)" if event.resumed else f"{event.duration_ms} ms"
            text = f"{self._count()} ok {event.node_id} ({note})"
            return self._group(event.node_id, text) if self.github and not event.resumed else text
        if isinstance(event, NodeFailed):
            return f"{self._count()} retry {event.node_id}: {event.failure.message}"
        if isinstance(event, NodeSkipped):
            self.finished += 1
            return f"{self._count()} skipped {event.node_id}: {event.reason}"
        return None

    def _group(self, node_id: str, title: str) -> str:
        body = tail(node_log_path(self.logs_dir, node_id), max_lines=200, max_bytes=64 * 1024)
        # the body (adapter output) is printed while commands are stopped: never a command
        return f"{command('::group::' + escape_data(title))}\n{body}\n{command('::endgroup::')}"

    def _count(self) -> str:
        width = len(str(self.total))
        return f"[{self.finished:>{width}}/{self.total}]"

    def _rich(self, event: RunnerEvent) -> None:
        if self._progress is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                SpinnerColumn,
                TextColumn,
            )

            self._progress = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                _activity_column(self.running),
                console=Console(file=self.stream),
                transient=False,
                refresh_per_second=4,
            )
            self._progress.start()
            self._task = self._progress.add_task("applying", total=self.total)
        progress = self._progress
        if isinstance(event, NodeStarted):
            progress.update(self._task, description=f"{event.node_id}")
        elif isinstance(event, NodeSucceeded | NodeSkipped) or (
            isinstance(event, NodeFailed) and not event.will_retry
        ):
            progress.advance(self._task)
            if isinstance(event, NodeFailed):
                progress.console.print(
                    f"FAILED {event.node_id}: {event.failure.message}", markup=False
                )
            elif isinstance(event, NodeSkipped):
                progress.console.print(f"skipped {event.node_id}: {event.reason}", markup=False)
        elif isinstance(event, RunnerCompleted):
            progress.update(self._task, description="done")
            progress.stop()
            if self.last_line:
                progress.console.print(_summary_line(event), markup=False)


def _activity_column(running: Running) -> Any:
    """A rich column: the longest-running node's elapsed time and last log line."""
    from rich.progress import ProgressColumn, Task
    from rich.text import Text

    class Activity(ProgressColumn):
        def render(self, task: Task) -> Text:
            longest = max(running.longer_than(1.0), key=lambda item: item[1], default=None)
            text = running.activity(*longest) if longest is not None else ""
            return Text(text, overflow="ellipsis", no_wrap=True)

    return Activity()


def _summary_line(event: RunnerCompleted) -> str:
    return summary_line(event.summary, interrupted=event.interrupted)


def summary_line(summary: RunnerSummary, *, interrupted: str | None = None) -> str:
    """``run succeeded (strict): N nodes, …`` — with the code change a regenerating run wrote
    (its files by status and lines), and the settings that did not take effect."""
    s = summary
    status = "succeeded" if s.success else ("interrupted" if interrupted else "failed")
    line = (
        f"run {status} ({s.mode.value}): {s.total} nodes, {s.succeeded} succeeded, "
        f"{s.failed} failed, {s.skipped} skipped, {s.cancelled} cancelled"
    )
    if s.code_change is not None:
        line += f"; code change: {code_change_text(s.code_change)}"
    line += f" in {s.duration_ms} ms"
    line = "\n".join([line, *s.lines_not_applied()])  # settings that did not take effect
    return f"{line}\n{interrupted}" if interrupted else line


def code_change_text(change: CodeChangeSummary) -> str:
    """``6 file(s) (4 changed, 2 deleted), +0 -10``."""
    kinds = ("created", "changed", "renamed", "deleted")
    parts = [f"{getattr(change, k)} {k}" for k in kinds if getattr(change, k)]
    if change.conflicts:
        parts.append(f"{change.conflicts} with conflict markers to resolve")
    detail = f" ({', '.join(parts)})" if parts else ""
    return f"{change.files} file(s){detail}, +{change.added} -{change.removed}"


def code_change_line(summary: RunnerSummary) -> str:
    """The last line of a regenerating run, once its code change is written."""
    return summary_line(summary)


def next_step_line(*, adapter: str | None, workspace_root: Path, config: Path | None) -> str | None:
    """The last line of a successful run: the adapter's own (its ``next_step``, e.g. where
    the generated application is and the command that shows it running)."""
    return next_step(adapter, workspace_root=workspace_root, config=config)
