"""The attacker of the git-credentials test: a separate process of the same user that reads
``/proc/*/environ`` and ``/proc/*/cmdline`` of every process, over and over, until the file
named by its second argument exists. It writes what it found to its first argument: the
processes whose environment or command line held one of the secrets (given on stdin, one
per line), and the command lines of the git processes it saw (proof that it looked while
git ran)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main() -> None:
    out, stop = Path(sys.argv[1]), Path(sys.argv[2])
    secrets = [s.encode() for s in sys.stdin.read().split() if s]
    holders: dict[str, str] = {}
    gits: set[str] = set()
    me = str(os.getpid())
    (out.parent / "scanner.ready").touch()
    while not stop.exists():
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or pid == me:
                continue
            for part in ("environ", "cmdline"):
                try:
                    data = Path(f"/proc/{pid}/{part}").read_bytes()
                except OSError:
                    continue
                if part == "cmdline" and data.startswith(b"git"):
                    gits.add(data.replace(b"\0", b" ").decode(errors="replace")[:200])
                if any(s in data for s in secrets):  # name the process, never show its secrets
                    holders[f"{pid}/{part}"] = _command(pid)
    out.write_text(json.dumps({"holders": holders, "git": sorted(gits)}), encoding="utf-8")


def _command(pid: str) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
    except OSError:
        return "?"
    return os.path.basename(raw.decode(errors="replace"))


if __name__ == "__main__":
    main()
