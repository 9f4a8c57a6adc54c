"""Finding 5 (suspected, real), as the attack: a manifest string with a newline followed by
workflow commands (``::add-mask::``, ``::error::``, ``::set-env``-style ``##[…]``) reaches the
step's output through schematic output and failure messages. Under GitHub Actions the runner
must process none of them — only averos-ci's own commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.github.gh_world import REPO_ROOT, manifest_variant

SITE = Path(__file__).parent / "echo_adapter_site"
PAYLOAD = "ok\\n::add-mask::ok\\n::error::INJECTED\\n::stop-commands::x\\n::warning::INJECTED2"


def runner_commands(output: str) -> list[str]:
    """The workflow commands the Actions runner would process in ``output`` (its rules:
    a line starting with ``::`` is a command; ``::stop-commands::T`` ignores every line until
    ``::T::``; the legacy ``##[cmd]`` form too)."""
    seen: list[str] = []
    end: str | None = None
    for raw in output.splitlines():
        line = raw.strip()
        if end is not None:
            if line == f"::{end}::":
                end = None
            continue
        if line.startswith("::stop-commands::"):
            end = line.removeprefix("::stop-commands::")
        elif line.startswith("::") or line.startswith("##["):
            seen.append(line)
    return seen


def test_manifest_strings_in_adapter_output_cannot_issue_workflow_commands(
    tmp_path: Path,
) -> None:
    text = manifest_variant(0).rstrip("\n")
    entry = f'{{ localeID: extra.evil, localeValue: "{PAYLOAD}", targetEntity: ToDoArea }}'
    text += f"\n      - {entry}\n"
    (tmp_path / "app.manifest.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "averos.config.json").write_text(
        json.dumps({"manifestPath": "app.manifest.yaml", "adapter": "echo", "mode": "resilient"}),
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(
        GITHUB_ACTIONS="true",
        PYTHONPATH=os.pathsep.join([str(SITE), str(REPO_ROOT)]),
    )
    proc = subprocess.run(
        [sys.executable, "-m", "averos_ci", "run", "--verbose"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the evil node failed
    assert "INJECTED" in proc.stdout + proc.stderr  # the text is shown…
    commands = runner_commands(proc.stdout) + runner_commands(proc.stderr)
    # …but only averos-ci's own commands are processed, the payload's data escaped
    assert commands, proc.stdout
    assert not [c for c in commands if c.startswith(("::add-mask::", "::error::INJ"))], commands
    assert not [c for c in commands if c.startswith("::warning::INJECTED2")], commands
    assert all(c.split("::")[1].split(" ")[0] in {"group", "endgroup", "error"} for c in commands)
