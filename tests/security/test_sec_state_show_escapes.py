"""``averos-ci state show`` prints state-branch strings without their control characters.

The run records, the claim and the state come from the state branch, which anyone who can
push to it writes. A ``reason``, ``actor`` or ``runUrl`` holding terminal escape sequences
(clear the screen, rewrite a line, an OSC 8 hyperlink, a C1 CSI) or a newline must not drive
the terminal of the person who reads the state or forge lines of the report: each such
character is shown escaped (``\\u001b``), as the plan renderers do."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import make_world
from tests.github.test_gh_state_ops import plant, state

pytestmark = pytest.mark.slow
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
ESC, CSI, BEL = "\x1b", "\x9b", "\x07"


def record(**fields: object) -> str:
    return json.dumps({"formatVersion": 1, **fields}, ensure_ascii=False)


def test_state_show_escapes_control_characters(tmp_path: Path, fake: FakeGitHub) -> None:
    world = make_world(tmp_path, fake)
    sha = "a" * 40
    plant(
        world,
        {
            "default/runs/20260101T000000Z-aaaaaaaaaaaa.json": record(
                planHash=f"{ESC}[2J" + "b" * 60,
                sha=sha,
                pr=1,
                runUrl=f"https://ci.example/{ESC}]8;;https://evil.example{BEL}run{ESC}]8;;{BEL}",
            ),
            "default/runs/20260102T000000Z-rollback.json": record(
                action="rollback",
                actor=f"{ESC}[31mroot{ESC}[0m",
                reason=f"ok\r{ESC}[2Kstate: forged\nclaim: none",
                sha=sha,
            ),
            f"default/runs/20260103T000000Z-{ESC}[8mabandon.json": record(
                action="abandon", actor=f"{CSI}2Jmallory", reason="tab\there\u202eevil"
            ),
            "default/apply.json": record(
                planHash=f"c{ESC}[1A",
                sha=sha,
                pr=2,
                runs=[{"at": f"now{ESC}[K", "runUrl": f"https://x/{BEL}\x00\x7f"}],
            ),
        },
    )
    r = state(world, "show")
    assert r.code == 0, r.stderr
    out = r.stdout
    found = sorted({repr(c) for c in CONTROL.findall(out)})
    assert not found, f"control characters printed: {found}\n{out!r}"
    assert "\\u001b[31mroot" in out and "\\u009b2Jmallory" in out, out
    assert "ok\\r\\u001b[2Kstate: forged\\nclaim: none" in out, out
    assert "\\u202eevil" in out and "\\u0007" in out, out
    # each record is still one line of the report
    assert sum(1 for line in out.splitlines() if line.startswith("claim:")) == 1, out
