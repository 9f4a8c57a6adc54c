from __future__ import annotations

import averos_ci.github as gh


def test_public_api_is_listed_and_importable() -> None:
    assert len(set(gh.__all__)) == len(gh.__all__)
    for name in gh.__all__:
        assert hasattr(gh, name), name
    assert {
        "run_github",
        "GitHubClient",
        "StateBranch",
        "load_event",
        "GitHubSettings",
        "ApplyRefused",
    } <= set(gh.__all__)


def test_cli_github_group_does_not_load_httpx_at_import() -> None:
    import subprocess
    import sys

    code = "import sys; import averos_ci.cli; print('httpx' in sys.modules, 'git' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", "False"]
