"""The push token (the App's, ``AVEROS_CI_PUSH_TOKEN``) is kept like ``GITHUB_TOKEN``: out
of the environment, out of ``repr``, masked in the log — and it is handed to git only for
the push of the generated commit to the default branch (the journey:
tests/scenarios/github/test_gh_protected_app.py)."""

from __future__ import annotations

import pytest

from averos_ci import _token
from averos_ci.forge.actions_env import ActionsEnv

PUSH = "ghs_pushTOKEN0123456789"


def test_the_push_token_is_taken_out_of_the_environment() -> None:
    environ = {"AVEROS_CI_PUSH_TOKEN": PUSH, "GITHUB_TOKEN": "ghs_other0123"}
    assert _token.take_push(environ) == PUSH
    assert environ == {"GITHUB_TOKEN": "ghs_other0123"}
    assert _token.take_push({"INPUT_PUSH-TOKEN": PUSH}) == PUSH  # a container action's input


def test_the_push_token_is_masked_and_not_in_repr(capsys: pytest.CaptureFixture[str]) -> None:
    env = ActionsEnv.from_environ(
        {
            "GITHUB_EVENT_NAME": "push",
            "GITHUB_EVENT_PATH": "e.json",
            "GITHUB_REPOSITORY": "o/r",
            "GITHUB_TOKEN": "s3cr3t-token",
            "AVEROS_CI_PUSH_TOKEN": PUSH,
            "GITHUB_ACTIONS": "true",
        }
    )
    assert env.push_token == PUSH and env.token == "s3cr3t-token"
    assert PUSH not in repr(env)
    env.mask_token()
    assert f"::add-mask::{PUSH}\n" in capsys.readouterr().out
