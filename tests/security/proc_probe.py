"""A run listener that starts a child process the way an adapter does (``node -e``), and has it
read ``/proc/<pid>/environ`` of itself and every ancestor: what any npm package or schematic
run by an apply could read. Loaded through the config's ``listeners`` key by the token test;
writes what it saw to ``$AVEROS_PROBE_OUT``."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

NODE_SCRIPT = r"""
const fs = require('fs');
const seen = [];
let pid = process.pid;
while (pid > 1) {
  let environ = null;
  try { environ = fs.readFileSync(`/proc/${pid}/environ`, 'latin1'); } catch (e) { environ = null; }
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  const ppid = parseInt(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1], 10);
  seen.push({ pid, comm, environ });
  pid = ppid;
}
process.stdout.write(JSON.stringify(seen));
"""


class Probe:
    def __init__(self) -> None:
        self.done = False

    def on_event(self, event: Any) -> None:
        if self.done or str(getattr(event, "type", "")) != "NODE_STARTED":
            return
        self.done = True
        out = subprocess.run(
            ["node", "-e", NODE_SCRIPT], capture_output=True, text=True, check=True
        ).stdout
        Path(os.environ["AVEROS_PROBE_OUT"]).write_text(out, encoding="utf-8")
