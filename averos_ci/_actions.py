"""Workflow commands (``::error::``, ``::group::``, ``::add-mask::`` …) under GitHub Actions.

The runner takes any line a step prints — stdout or stderr — that starts with ``::`` as a
command, including lines inside schematic output, failure messages and manifest strings
echoed in them (a translation value ``"ok\\n::add-mask::…"``). So while averos-ci runs under
Actions, command processing is switched off (``::stop-commands::<random token>``), and only
averos-ci's own commands, framed by :func:`command`, switch it on for their single line.
"""

from __future__ import annotations

import atexit
import os
import secrets
import sys
from collections import Counter

from averos_ci._secrets import forms

_token: str | None = None


def under_actions() -> bool:
    return os.environ.get("GITHUB_ACTIONS") == "true"


def stop_commands() -> None:
    """Stop the runner's command processing for the rest of this process (resumed at exit)."""
    global _token
    if _token is not None or not under_actions():
        return
    _token = secrets.token_hex(16)  # unguessable: untrusted output cannot resume processing
    print(f"::stop-commands::{_token}", flush=True)
    atexit.register(resume_commands)


def resume_commands() -> None:
    global _token
    if _token is None:
        return
    sys.stderr.flush()
    print(f"::{_token}::", flush=True)
    _token = None


def command(line: str) -> str:
    """One workflow command line (its data already escaped with :func:`escape_data`), framed
    so the runner processes it while commands are stopped. Print it in one write."""
    if _token is None:
        return line
    return f"::{_token}::\n{line}\n::stop-commands::{_token}"


def add_mask(secret: str | None) -> None:
    """Have the runner mask ``secret`` in every later log line, in each form averos-ci or a
    tool may print it (:func:`averos_ci._secrets.forms`: the runner masks literal strings
    only, and a few encodings of its own). For a step under Actions: the caller checks."""
    if not secret:
        return
    lines = [command(f"::add-mask::{escape_data(form)}") for form in forms(secret)]
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()


def escape_data(text: str) -> str:
    """A command's data on one line (the runner's own escaping)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def neutralise(text: str) -> str:
    """``text`` with every line that the runner would read as a command broken by an invisible
    character — for untrusted text on stderr, whose interleaving with the stop-commands frame
    on stdout is not guaranteed. Unchanged outside Actions."""
    if not under_actions():
        return text
    lines = text.split("\n")
    for n, line in enumerate(lines):
        body = line.lstrip()
        if body.startswith(("::", "##[")):
            cut = len(line) - len(body) + 1
            lines[n] = line[:cut] + "\u200b" + line[cut:]
    return "\n".join(lines)


ANNOTATION_CAP = 50  # per level; the runner shows few anyway, and each costs a log line
PLAIN_CAP = 500  # beyond the annotations, plain log lines; then only a count
_annotated: Counter[str] = Counter()


def annotate(level: str, message: str) -> None:
    """A workflow command (``::warning::`` …) under Actions; plain text otherwise. Under
    Actions the first :data:`ANNOTATION_CAP` of a level are annotations, the next
    :data:`PLAIN_CAP` plain lines, and the rest is counted in one line at exit."""
    one_line = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if os.environ.get("GITHUB_ACTIONS") != "true":
        print(f"{level}: {message}", file=sys.stderr, flush=True)
        return
    _annotated[level] += 1
    n = _annotated[level]
    if n <= ANNOTATION_CAP:
        print(command(f"::{level}::{one_line}"), flush=True)
    elif n <= ANNOTATION_CAP + PLAIN_CAP:
        if n == ANNOTATION_CAP + 1:
            atexit.register(_summarise, level)
        print(f"{level}: {one_line}", flush=True)


def _summarise(level: str) -> None:
    n = _annotated[level]
    print(
        command(
            f"::{level}::{n} {level} messages in all; the first {ANNOTATION_CAP} are annotations, "
            f"{min(n - ANNOTATION_CAP, PLAIN_CAP)} more are in the log, the rest are not shown"
        ),
        flush=True,
    )
