"""The tutorial's local commands run as written (read from the page between its
``tutorial:local`` markers, never copied here), in a folder that holds a copy of the examples,
with the installed ``averos-ci`` on PATH — what a reader does after step 1."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from docs.gen import plan_comment
from tests.conftest import EXAMPLE_DIR, REPO_ROOT, copy_example

TUTORIAL = REPO_ROOT / "docs" / "tutorial" / "first-pull-request.md"
MARKED = re.compile(
    r"^<!-- tutorial:local\b[^>]*-->\n```bash\n(?P<body>.*?)^```\n<!-- /tutorial:local -->",
    re.M | re.S,
)


def local_commands() -> list[str]:
    found = MARKED.findall(TUTORIAL.read_text(encoding="utf-8"))
    assert len(found) == 1, "the tutorial marks its local commands exactly once"
    return [line for line in found[0].splitlines() if line.strip() and not line.startswith("#")]


def test_the_block_is_the_journey() -> None:
    commands = local_commands()
    assert commands[0].startswith("cp -r examples/todoapp ")
    verbs = [c.split()[1] for c in commands[1:]]
    assert verbs == ["validate", "plan", "run", "plan"]


def test_tutorial_commands_run_as_written(tmp_path: Path) -> None:
    copy_example(tmp_path / "examples" / "todoapp", source=EXAMPLE_DIR)
    bin_dir = Path(sys.executable).parent
    assert (bin_dir / "averos-ci").exists(), "averos-ci is installed next to the interpreter"
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_ACTIONS")}
    env["PATH"] = os.pathsep.join([str(bin_dir), env.get("PATH", "")])
    outputs = []
    for command in local_commands():
        proc = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert proc.returncode == 0, f"{command}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        outputs.append(proc.stdout + proc.stderr)
    validate, first_plan, run, second_plan = outputs[1:]
    assert "1 file(s) valid: 0 error(s), 0 warning(s)" in validate
    assert "Plan: 33 to create, 0 to update, 0 unchanged" in first_plan
    assert "run succeeded (strict): 33 nodes, 33 succeeded" in run
    assert "Plan: 0 to create, 0 to update, 33 unchanged" in second_plan
    assert (tmp_path / "myapp" / ".averos" / "state.json").is_file()


def test_the_tutorial_quotes_what_the_commands_print() -> None:
    """The page's explanations name the outputs the run above checks."""
    text = TUTORIAL.read_text(encoding="utf-8")
    for quoted in (
        "1 file(s) valid: 0 error(s), 0 warning(s)",
        "Plan: 33 to create, 0 to update, 0 unchanged",
        "run succeeded (strict): 33 nodes, 33 succeeded",
        "Plan: 0 to create, 0 to update, 33 unchanged",
    ):
        assert quoted in text


def test_the_github_steps_name_what_exists() -> None:
    """The workflows the tutorial copies exist, and its approval line is the one the plan
    comment of the same example shows (so it pins the real plan, and the flow parses it)."""
    text = TUTORIAL.read_text(encoding="utf-8")
    for workflow in re.findall(r"`(averos-[a-z-]+\.yml)`", text):
        assert (REPO_ROOT / "examples" / "workflows" / workflow).is_file(), workflow
    shown = re.search(r"^```text\n(/averos approve [0-9a-f]+)\n```", text, re.M)
    assert shown, "the tutorial shows an approval line"
    module = plan_comment.comment_module()
    expected = module.approve_line(plan_comment.example_plan().plan_hash)
    assert shown.group(1) in expected
    assert module.parse_command(shown.group(1)) == (True, shown.group(1).split()[-1])
