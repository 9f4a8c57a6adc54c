"""Medium 3, as the attack: the PR author commits Python files named like the modules averos-ci
imports (``typer.py``, ``hmac.py``, ``json.py``, ``git.py`` … and ``averos_ci.py`` itself) at
the root of the repository. The plan job checks out the PR head, the apply job the merge, and
averos-ci runs there, started as the composite action starts it: its own venv's console
script, with the token and the state key in the step's environment (so it re-executes itself
and reads them from the hand-over pipe). No planted module may ever be imported: not at
start, not after the re-exec, not lazily during the apply (a listener imports a planted name
after the first node started and reports what it found)."""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import REPO_ROOT, World, make_world, manifest_variant
from tests.security.test_sec_token_proc_environ import STATE_KEY, action_run_script

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc"),
]

LATE = "averos_late_import_probe"  # imported by the listener mid-apply
PROBE_OUT = "AVEROS_LATE_PROBE_OUT"


class LateImport:
    """A run listener: at the first ``NODE_STARTED`` it imports a module planted in the
    working directory, and records the outcome and the import path."""

    def __init__(self) -> None:
        self.done = False

    def on_event(self, event: Any) -> None:
        if self.done or str(getattr(event, "type", "")) != "NODE_STARTED":
            return
        self.done = True
        try:
            importlib.import_module(LATE)
            outcome = "imported"
        except ModuleNotFoundError:
            outcome = "not found"
        cwd = os.path.realpath(os.getcwd())
        seen = {
            "late": outcome,
            "cwdOnPath": [p for p in sys.path if os.path.realpath(p or ".") == cwd],
            "isolated": [sys.flags.safe_path, sys.flags.isolated],
        }
        Path(os.environ[PROBE_OUT]).write_text(json.dumps(seen), encoding="utf-8")


def planted_names() -> list[str]:
    """Every stdlib module, every installed distribution's top-level module, and averos-ci."""
    names = set(sys.stdlib_module_names) | set(importlib.metadata.packages_distributions())
    names |= {"averos_ci", LATE}
    return sorted(n for n in names if n.isidentifier() and not n.startswith("__"))


def hostile_files(markers: Path) -> dict[str, str]:
    # builtins only: a planted ``os.py`` must not need ``os`` to leave its mark
    return {
        f"{name}.py": f"open({str(markers / name)!r}, 'w').close()\n" for name in planted_names()
    }


def action_venv(tmp_path: Path) -> Path:
    """A venv laid out as the action's (``$RUNNER_TEMP/averos-ci-venv``): its own python and
    ``bin/averos-ci`` console script (pip's template). Building it offline with pip would need
    the network, so its site-packages reaches this project's installed packages through a
    ``.pth`` file (``site.addsitedir``: their own ``.pth`` files, the editable install, run)."""
    venv = tmp_path / "averos-ci-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    ours = sysconfig.get_path("purelib")
    Path(site, "averos_test_link.pth").write_text(
        f"import site; site.addsitedir({ours!r})\n", encoding="utf-8"
    )
    script = venv / "bin" / "averos-ci"
    script.write_text(
        f"#!{python}\nimport re\nimport sys\nfrom averos_ci.cli import main\n"
        "if __name__ == '__main__':\n"
        "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
        "    sys.exit(main())\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return venv


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write")
    return make_world(tmp_path, fake, fork_jobs=False)  # each job a fresh, re-executed process


def run_job(
    world: World, venv: Path, event: str, payload: dict[str, Any], sha: str, **extra: str
) -> subprocess.CompletedProcess[str]:
    """One job: a fresh checkout of ``sha``, the action's step script, the action's venv."""
    checkout = world.checkout(sha)
    env = world.job_env(event, payload, checkout, sha)
    runner = Path(env["RUNNER_TEMP"])
    (runner / "averos-ci-venv").symlink_to(venv, target_is_directory=True)
    script = runner / "step.sh"
    script.write_text(action_run_script(), encoding="utf-8")
    env.update(
        AVEROS_COMMAND="auto",
        AVEROS_CONFIG="",
        PYTHONPATH=str(REPO_ROOT),  # the listener below (a module of this test suite)
        GITHUB_ACTIONS="true",
        AVEROS_CI_STATE_KEY=STATE_KEY,
        **extra,
    )
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_modules_planted_in_the_checkout_are_never_imported(
    world: World, fake: FakeGitHub, tmp_path: Path
) -> None:
    venv = action_venv(tmp_path)
    markers = tmp_path / "imported"
    markers.mkdir()
    config = json.loads((world.dev / "averos.config.json").read_text(encoding="utf-8"))
    config["listeners"] = [f"{__name__}:LateImport"]
    files = {
        "todoapp.manifest.yaml": manifest_variant(1),
        "averos.config.json": json.dumps(config),
        **hostile_files(markers),
    }
    head = world.commit("feat1", files, "one entry, and a few Python files")
    fake.add_pull(1, author="alice", head_sha=head, head_ref="feat1")

    plan = run_job(world, venv, "pull_request", world.pr_event("opened", 1), head)
    assert sorted(os.listdir(markers)) == [], "planted modules imported by the plan job"
    assert plan.returncode == 0, plan.stdout + plan.stderr

    ok = fake.add_comment(1, user="bob", body=world.approve_command(1))
    approve = run_job(world, venv, "issue_comment", world.comment_event(1, ok), head)
    assert sorted(os.listdir(markers)) == [], "planted modules imported by the approve job"
    assert approve.returncode == 0, approve.stdout + approve.stderr

    merge = world.merge("feat1")
    fake.merge(1, merge)
    probe = tmp_path / "late.json"
    apply = run_job(world, venv, "push", world.push_event(merge), merge, **{PROBE_OUT: str(probe)})
    assert sorted(os.listdir(markers)) == [], "planted modules imported by the apply job"
    assert apply.returncode == 0, apply.stdout + apply.stderr
    assert "succeeded" in apply.stdout, apply.stdout
    seen = json.loads(probe.read_text(encoding="utf-8"))
    assert seen["late"] == "not found" and seen["cwdOnPath"] == [], seen


def test_control_a_naive_start_in_that_checkout_imports_the_planted_modules(
    world: World, tmp_path: Path
) -> None:
    """Positive control, modelled on test_sec_patch_job_token's: the same planted files in a
    checkout of the same world, started the naive way (``python -m averos_ci`` in the checkout:
    the current directory first on ``sys.path``), ARE imported, and the late probe run in such
    a process finds its planted module. So the empty marker folder and the probe's "not found"
    above are evidence, not a probe that cannot see."""
    markers = tmp_path / "imported"
    markers.mkdir()
    head = world.commit("planted", hostile_files(markers), "a few Python files")
    checkout = world.checkout(head)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    env.pop("PYTHONSAFEPATH", None)
    naive = subprocess.run(
        [sys.executable, "-m", "averos_ci", "--version"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    imported = set(os.listdir(markers))
    assert "averos_ci" in imported, (sorted(imported), naive.stdout + naive.stderr)
    probe = tmp_path / "late.json"
    # the listener, loaded outside the checkout (its own imports would meet the planted
    # stdlib), then fired in a process that has the checkout as its current directory and
    # that directory on sys.path ('' first, as a naive `python -c` has it)
    listener = (
        "import os, sys\n"
        f"from {__name__} import LateImport\n"
        f"os.chdir({str(checkout)!r})\n"
        "sys.path.insert(0, '')\n"
        "class Started:\n"
        "    type = 'NODE_STARTED'\n"
        "LateImport().on_event(Started())\n"
    )
    subprocess.run(
        [sys.executable, "-P", "-c", listener],
        cwd=tmp_path,
        env={**env, PROBE_OUT: str(probe)},
        check=True,
        timeout=120,
    )
    seen = json.loads(probe.read_text(encoding="utf-8"))
    assert seen["late"] == "imported" and seen["cwdOnPath"], seen
    assert LATE in set(os.listdir(markers))


def test_the_planted_names_cover_what_averos_ci_imports() -> None:
    """The attack plants a module for every name averos-ci's run imports (no blind spot)."""
    code = (
        "import importlib, pkgutil, sys, averos_ci\n"
        "for m in pkgutil.walk_packages(averos_ci.__path__, 'averos_ci.'):\n"
        "    if not m.name.endswith('__main__'):\n"
        "        importlib.import_module(m.name)\n"
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=REPO_ROOT
    ).stdout.split()
    planted = set(planted_names())
    missing = [m for m in loaded if m not in planted and not m.startswith("_")]
    assert missing == [], missing
