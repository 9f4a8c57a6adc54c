"""The environment third-party code (npm packages, schematics, Node adapters) runs with."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|AUTH", re.I)


def is_secret(name: str) -> bool:
    """Variables third-party code must never see: the GitHub token of an apply job has
    contents:write. Also git's ``GIT_CONFIG_*`` pairs, through which averos-ci hands git its
    credentials, and the runner's ``INPUT_*`` action inputs."""
    upper = name.upper()
    if upper.startswith(("GIT_CONFIG_", "INPUT_", "ACTIONS_")):
        return True
    return bool(_SECRET_NAME.search(name)) and not upper.startswith("NPM_CONFIG_")


def scrubbed_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``environ`` (default: this process's) without the variables :func:`is_secret` names."""
    source = os.environ if environ is None else environ
    return {k: v for k, v in source.items() if not is_secret(k)}
