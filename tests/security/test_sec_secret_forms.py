"""Secrets in every form, as the attack: a provider secret with quotes, a backslash and
non-ASCII letters (``p"ss\\wörd``) reaches a tool that echoes its options the way tools do —
JSON-escaped (``p\\"ss\\\\w\\u00f6rd``), as a Python repr, URL-encoded, shell-quoted — into its
log and its failure message. No form of it may reach the console, the logs or the reports,
and under Actions each form is registered with the runner (``::add-mask::``)."""

from __future__ import annotations

import html
import json
import os
import re
import secrets
import shlex
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest

from averos_ci import _actions
from averos_ci._markdown import escape as md_escape
from tests.github.gh_world import REPO_ROOT, manifest_variant

SITE = Path(__file__).parent / "echo_adapter_site"


def leaky(tag: str) -> str:
    """A secret that changes under every encoding: quotes, backslash, non-ASCII, markup."""
    return f"{tag}-p\"ss\\wörd'<&>@{secrets.token_hex(6)}"


def leaked_forms(secret: str) -> list[str]:
    """What a careless writer prints for ``secret``: each must be absent."""
    forms = [
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        json.dumps(json.dumps(secret))[1:-1],
        repr(secret)[1:-1],
        urllib.parse.quote(secret, safe=""),
        urllib.parse.quote_plus(secret),
        urllib.parse.quote_plus(repr(secret)),
        shlex.quote(secret),
        html.escape(secret),
        re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", secret),
        md_escape(secret),  # the one escaper of comments, job summaries and plans
    ]
    # a quoted form's inside (its quotes may differ) is what must not be found
    return sorted({f.strip("'\"") for f in forms}, key=len)


def assert_absent(secret_values: list[str], text: str, where: str) -> None:
    for value in secret_values:
        for form in leaked_forms(value):
            assert form not in text, f"a form of a secret ({form!r}) found in {where}"


def test_echoed_secrets_are_masked_in_every_form(tmp_path: Path) -> None:
    client_secret, api_host = leaky("evil-cs"), leaky("host")
    text = (
        manifest_variant(0)
        .rstrip("\n")
        .replace("    apiHost: 127.0.0.1", f"    apiHost: {json.dumps(api_host)}", 1)
    )
    assert json.dumps(api_host) in text
    text += (
        "\nauthentication:\n"
        "  - name: KeycloakProvider\n"
        "    providerType: keycloak\n"
        "    config:\n"
        "      - { key: realm, value: my-realm }\n"
        f"      - {{ key: clientSecret, value: {json.dumps(client_secret)} }}\n"
    )
    (tmp_path / "app.manifest.yaml").write_text(text, encoding="utf-8")
    config = {
        "manifestPath": "app.manifest.yaml",
        "adapter": "echo",
        "mode": "resilient",
        "sensitive": ["service-config:*/apiHost"],
    }
    (tmp_path / "averos.config.json").write_text(json.dumps(config), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    summary = tmp_path / "step-summary.md"
    env.update(
        GITHUB_ACTIONS="true",
        GITHUB_STEP_SUMMARY=str(summary),
        PYTHONPATH=os.pathsep.join([str(SITE), str(REPO_ROOT)]),
    )
    reports = ["--junit", "junit.xml", "--summary-md", "summary.md", "--summary-json", "s.json"]
    proc = subprocess.run(
        [sys.executable, "-m", "averos_ci", "run", "--verbose", *reports],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the provider's node failed
    assert "schematic failed for value" in proc.stdout + proc.stderr
    values = [client_secret, api_host]
    assert_absent(values, proc.stdout + proc.stderr, "the console")
    outputs = [summary, *(tmp_path / n for n in ("junit.xml", "summary.md", "s.json"))]
    outputs += [p for p in (tmp_path / ".averos").rglob("*") if p.is_file()]
    checked = 0
    for path in outputs:
        if path.name == "state.json":
            continue  # the state keeps what was applied (README)
        assert_absent(values, path.read_text(encoding="utf-8", errors="replace"), str(path))
        checked += 1
    assert checked >= 6
    logs = "".join(
        p.read_text(encoding="utf-8") for p in (tmp_path / ".averos/logs").rglob("*") if p.is_file()
    )
    assert "CREATE auth:KeycloakProvider" in logs and "(sensitive)" in logs


def test_every_form_is_registered_with_the_runner(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    secret = leaky("key") + "%0A"  # the runner unescapes command data: escaped in the command
    _actions.add_mask(secret)
    masks = [
        line.removeprefix("::add-mask::").replace("%0A", "\n").replace("%25", "%")
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("::add-mask::")
    ]
    for form in (
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        urllib.parse.quote(secret, safe=""),
        shlex.quote(secret),
        html.escape(secret),
    ):
        assert form in masks, (form, masks)
