"""Authenticated progress on the state branch: with a state key (the action's ``state-key``
input, ``AVEROS_CI_STATE_KEY``), every commit of an apply's claim and progress carries
``<project>/seal.json``: an HMAC-SHA256 under the key over the project name and the SHA-256
of the claim, of the checkpoints and of every file of the partial workspace. A resume
verifies it first and is refused when it is missing, does not verify or does not match the
files: whoever can push to the state branch but cannot read the key cannot make a resumed
apply skip nodes or take back files.

The checkpoint journal is written while progress is pushed, so the seal covers a frozen copy
(``checkpoints.sealed.json``); a verified resume continues from that copy, so progress
recorded after the last seal is redone, never trusted.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from pathlib import Path
from typing import Any

from averos_ci._actions import annotate
from averos_ci._fs import atomic_write_bytes, atomic_write_text
from averos_ci.statebranch.claim import (
    ABANDON,
    CHECKPOINTS,
    CLAIM,
    PARTIAL,
    SEAL,
    SEALED_CHECKPOINTS,
)
from averos_ci.statebranch.errors import ApplyRefused

FORMAT_VERSION = 1
ALGORITHM = "HMAC-SHA256"
DOMAIN = "averos-ci/state-seal/v1"  # a MAC made for something else never verifies here


def seal_progress(proj: Path, *, key: str | None, project: str) -> None:
    """Seal ``proj`` (the exported project directory) before it is committed; without a key
    or a claim, remove any seal (there is nothing to resume)."""
    if key is None or not (proj / CLAIM).is_file():
        for name in (SEAL, SEALED_CHECKPOINTS):
            (proj / name).unlink(missing_ok=True)
        return
    live, frozen = proj / CHECKPOINTS, proj / SEALED_CHECKPOINTS
    if live.is_file():
        atomic_write_bytes(frozen, live.read_bytes())
    else:
        frozen.unlink(missing_ok=True)
    files = _digests(proj)
    seal = {
        "formatVersion": FORMAT_VERSION,
        "algorithm": ALGORITHM,
        "project": project,
        "files": files,
        "mac": _mac(key, project, files),
    }
    atomic_write_text(proj / SEAL, json.dumps(seal, indent=2, sort_keys=True) + "\n")


def verify_progress(proj: Path, *, key: str | None, project: str, branch: str) -> None:
    """Before a resume: refuse unless the claim and progress in ``proj`` carry a seal made
    with ``key``; then continue from the sealed checkpoints. Without a key: a notice only."""
    if key is None:
        annotate(
            "notice",
            f"resuming from {branch!r} without a state key: the progress there is not "
            "authenticated (see docs/explanation/threat-model.md)",
        )
        return
    problem = _problem(proj, key=key, project=project)
    if problem is not None:
        raise ApplyRefused(
            f"the interrupted apply's progress on {branch!r} is not authenticated: {problem}; "
            "it was not written by an apply holding this state key, so it is not resumed",
            hint=f"if nobody tampered with {branch!r}, run `{ABANDON}` for project "
            f"{project!r} and re-run this job (it starts the apply from scratch); otherwise "
            f"restore {branch!r} from its history and protect it",
        )
    frozen = proj / SEALED_CHECKPOINTS
    if frozen.is_file():
        os.replace(frozen, proj / CHECKPOINTS)
    else:
        (proj / CHECKPOINTS).unlink(missing_ok=True)


def _problem(proj: Path, *, key: str, project: str) -> str | None:
    try:
        seal: Any = json.loads((proj / SEAL).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return f"{SEAL} is missing"
    except (OSError, ValueError):
        return f"{SEAL} is not JSON"
    if not isinstance(seal, dict) or not isinstance(seal.get("files"), dict):
        return f"{SEAL} is not a seal"
    if seal.get("formatVersion") != FORMAT_VERSION or seal.get("algorithm") != ALGORITHM:
        return f"{SEAL} has an unknown format"
    expected = _mac(key, project, seal["files"])
    if not hmac.compare_digest(expected, str(seal.get("mac", ""))):
        return f"{SEAL} does not verify with this state key"
    actual = _digests(proj)
    if actual != seal["files"]:
        changed = sorted(
            p for p in set(actual) | set(seal["files"]) if actual.get(p) != seal["files"].get(p)
        )
        shown = ", ".join(changed[:5]) + (
            f" and {len(changed) - 5} more" if len(changed) > 5 else ""
        )
        return f"files differ from what was sealed ({shown})"
    return None


def _digests(proj: Path) -> dict[str, str]:
    """SHA-256 of the claim, the sealed checkpoints and every partial-workspace entry (a
    symlink or other non-file counts as such, so it can never match a sealed file)."""
    out: dict[str, str] = {}
    for name in (CLAIM, SEALED_CHECKPOINTS):
        if (proj / name).is_file():
            out[name] = _sha256(proj / name)
    for dirpath, dirnames, filenames in os.walk(proj / PARTIAL):  # never follows symlinks
        base = Path(dirpath)
        for name in sorted([*filenames, *(d for d in dirnames if (base / d).is_symlink())]):
            path = base / name
            rel = path.relative_to(proj).as_posix()
            out[rel] = _sha256(path) if path.is_file() and not path.is_symlink() else "not-a-file"
    return dict(sorted(out.items()))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _mac(key: str, project: str, files: dict[str, Any]) -> str:
    message = json.dumps(
        {"domain": DOMAIN, "project": project, "files": files},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    ).encode()
    return hmac.new(key.encode(), message, hashlib.sha256).hexdigest()
