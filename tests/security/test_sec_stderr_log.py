"""Secrets in the Node stderr logs, as the attack: an adapter module (third-party JavaScript run
by the ``node-module`` adapter's host) prints what it knows to stderr — the node's sensitive
arguments, and the token and the state key in every form a tool prints them in. stderr goes to
``node-module.stderr.log`` in ``logsDir``, which the example workflow uploads as an artifact:
the log must hold none of them, and still hold the rest of what the module printed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.github.gh_world import REPO_ROOT, manifest_variant
from tests.security.test_sec_secret_forms import assert_absent, leaky

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")

MODULE = r"""
const KNOWN = %s;
export default class Leaky {
  async execute(node, context, state) {
    const printed = [JSON.stringify(node.args), ...KNOWN];
    for (const s of [...KNOWN, JSON.stringify(node.args)]) {
      printed.push(JSON.stringify(s), encodeURIComponent(s), escape(s));
      printed.push(JSON.stringify(s).replace(/[\u007f-\uffff]/g,
        (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')));
    }
    process.stderr.write(`echo ${node.id}: ${printed.join(' | ')}\n`);
    process.stderr.write(`partial ${KNOWN[0].slice(0, 5)}`);  // a line in two writes
    process.stderr.write(`${KNOWN[0].slice(5)} end\n`);
    return { success: true, durationMs: 0 };
  }
}
"""


def test_node_stderr_log_holds_no_secret(tmp_path: Path) -> None:
    token, key, client_secret = leaky("ghs"), leaky("key"), leaky("cs")
    text = manifest_variant(0).rstrip("\n") + (
        "\nauthentication:\n"
        "  - name: KeycloakProvider\n"
        "    providerType: keycloak\n"
        "    config:\n"
        f"      - {{ key: clientSecret, value: {json.dumps(client_secret)} }}\n"
    )
    (tmp_path / "app.manifest.yaml").write_text(text, encoding="utf-8")
    # the module knows the token and the key as a tool may (an .npmrc, a clone URL)
    module = MODULE % json.dumps([token, key])
    (tmp_path / "leaky.mjs").write_text(module, encoding="utf-8")
    config = {
        "manifestPath": "app.manifest.yaml",
        "workspaceRoot": "workspace",
        "logsDir": "logs",
        "adapter": "node-module",
        "adapterOptions": {"module": "./leaky.mjs"},
    }
    (tmp_path / "averos.config.json").write_text(json.dumps(config), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(GITHUB_TOKEN=token, AVEROS_CI_STATE_KEY=key, PYTHONPATH=str(REPO_ROOT))
    proc = subprocess.run(
        [sys.executable, "-P", "-m", "averos_ci", "run"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    log = (tmp_path / "logs" / "node-module.stderr.log").read_text(encoding="utf-8")
    assert "echo auth:KeycloakProvider:" in log
    assert_absent([token, key, client_secret], log, "node-module.stderr.log")
    assert "(sensitive)" in log
    assert log.count(" end\n") >= 2, log[-2000:]  # every node's lines, none held back
    assert_absent([token, key, client_secret], proc.stdout + proc.stderr, "the console")


CHILD = r"""
import json, sys
secret = sys.argv[1]
for line in sys.stdin:
    sys.stderr.write("half " + secret[:4])
    sys.stderr.flush()
    sys.stderr.write(secret[4:] + " " + json.dumps(secret) + " done\n")
    sys.stderr.flush()
    print(json.dumps({"type": "reply", "id": json.loads(line)["id"]}), flush=True)
"""


def test_the_driver_log_is_scrubbed_before_each_reply_is_read(tmp_path: Path) -> None:
    """The shared writer of both logs (``angular-driver.stderr.log`` too): what the child
    printed before its reply is in the log, scrubbed, as soon as the reply is read."""
    from averos_ci import _secrets
    from averos_ci.execute.adapters._jsonlines import JsonLinesProcess

    secret = leaky("drv")
    _secrets.register(secret, "short")  # a 5-character value is never scrubbed
    log = tmp_path / "logs" / "driver.stderr.log"
    proc = JsonLinesProcess(
        [sys.executable, "-c", CHILD, secret],
        cwd=tmp_path,
        env=os.environ,
        stderr_log=log,
        label="the test child",
    )
    try:
        proc.request({"type": "hello"}, reply="reply", timeout=60)
        first = log.read_text(encoding="utf-8")
        assert first.count(" done\n") == 1, first
        assert_absent([secret], first, "the log after the first reply")
        assert first == 'half (sensitive) "(sensitive)" done\n', first
        proc.request({"type": "hello"}, reply="reply", timeout=60)
    finally:
        proc.close()
    text = log.read_text(encoding="utf-8")
    assert text.count(" done\n") == 2 and "short" not in _secrets.known()
