"""Cold start of the composite action, part by part (what a fresh runner pays on every job):

  1. a fresh virtual environment            (action.yml step 1: python -m venv)
  2. pip install of the action's directory  (action.yml step 1: pip install $action_path)
  3. `averos-ci github plan` on examples/todoapp against a fake GitHub API on 127.0.0.1

Target: <= 20 s in total. One run (each part is timed once: the pip cache makes a second run
a different measurement). Usage: python bench/action_cold_start.py [--no-pip-cache] [--quick]
(--quick is accepted for symmetry with the other benches: the bench is already a single run).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_httpserver import HTTPServer  # noqa: E402

from bench._timing import own_git_identity  # noqa: E402
from tests.github.gh_fake import TOKEN, FakeGitHub  # noqa: E402
from tests.github.gh_world import git, load_payload  # noqa: E402

TARGET_S = 20.0


def timed(cmd: list[str], **kwargs: object) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(
            f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout[-2000:]}"
            f"\n{proc.stderr[-2000:]}"
        )
    return took


def main() -> int:
    own_git_identity()
    no_cache = "--no-pip-cache" in sys.argv
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per fake API request
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    fake = FakeGitHub(server)
    tmp = Path(tempfile.mkdtemp(prefix="averos-ci-bench-"))
    try:
        origin, repo = tmp / "origin.git", tmp / "repo"
        git(tmp, "init", "-q", "--bare", "-b", "main", str(origin))
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        git(repo, "remote", "add", "origin", str(origin))
        for name in ("averos.config.json", "todoapp.manifest.yaml"):
            shutil.copy2(ROOT / "examples" / "todoapp" / name, repo / name)
        git(repo, "add", "-A")
        git(
            repo,
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.com",
            "commit",
            "-q",
            "-m",
            "example",
        )
        git(repo, "push", "-q", "origin", "main")
        head = git(repo, "rev-parse", "HEAD")
        fake.add_pull(1, author="alice", head_sha=head)
        payload = load_payload("pull_request.opened.json")
        payload["repository"]["full_name"] = fake.repo
        payload["number"] = payload["pull_request"]["number"] = 1
        payload["pull_request"]["head"]["sha"] = head
        payload["pull_request"]["base"]["sha"] = head  # the approval rules are read there
        payload["pull_request"]["head"]["repo"]["full_name"] = fake.repo
        event = tmp / "event.json"
        event.write_text(json.dumps(payload), encoding="utf-8")

        venv = tmp / "venv"
        t_venv = timed([sys.executable, "-m", "venv", str(venv)])
        pip = [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            *(["--no-cache-dir"] if no_cache else []),
            str(ROOT),
        ]
        t_pip = timed(pip)
        env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
        env.update(
            GITHUB_EVENT_NAME="pull_request",
            GITHUB_EVENT_PATH=str(event),
            GITHUB_REPOSITORY=fake.repo,
            GITHUB_API_URL=fake.url,
            GITHUB_SHA=head,
            GITHUB_TOKEN=TOKEN,
            GITHUB_WORKSPACE=str(repo),
            GITHUB_OUTPUT=str(tmp / "output"),
            GITHUB_STEP_SUMMARY=str(tmp / "summary"),
        )
        t_plan = timed([str(venv / "bin" / "averos-ci"), "github", "plan"], cwd=repo, env=env)
        assert fake.bot_comments(1), "the plan comment was not posted"
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    total = t_venv + t_pip + t_plan
    print(f"action cold start ({'no pip cache' if no_cache else 'pip cache as found'}):")
    print(f"  venv                    {t_venv:6.2f} s")
    print(f"  pip install (action)    {t_pip:6.2f} s")
    print(f"  averos-ci github plan   {t_plan:6.2f} s")
    print(
        f"  total                   {total:6.2f} s   (target <= {TARGET_S:.0f} s: "
        f"{'OK' if total <= TARGET_S else 'OVER'}; {total / TARGET_S:.2f}x of target)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
