from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.errors import ConfigError
from averos_ci.forge.settings import CommitWorkspace, Permission, load_settings


def test_defaults_and_project_from_the_config_dir(tmp_path: Path) -> None:
    cfg = tmp_path / "apps" / "todo" / "averos.config.json"
    settings, warnings = load_settings({}, config_path=cfg, repo_root=tmp_path)
    assert settings.project == "apps/todo"
    assert settings.state_branch == "averos-state"
    assert settings.approval_permission is Permission.WRITE
    assert settings.commit_workspace is CommitWorkspace.DEFAULT_BRANCH
    assert not settings.allow_self_approval and not warnings
    root, _ = load_settings({}, config_path=tmp_path / "averos.config.json", repo_root=tmp_path)
    assert root.project == "default"


def test_camel_case_keys_and_unknown_key_warning(tmp_path: Path) -> None:
    settings, warnings = load_settings(
        {
            "approvalPermission": "maintain",
            "allowSelfApproval": True,
            "stateBranch": "st",
            "commitWorkspace": "branch",
            "typo": 1,
        },
        config_path=tmp_path / "averos.config.json",
        repo_root=tmp_path,
    )
    assert settings.approval_permission is Permission.MAINTAIN
    assert settings.allow_self_approval and settings.state_branch == "st"
    assert settings.commit_workspace is CommitWorkspace.BRANCH
    assert len(warnings) == 1 and "CFG-02" in warnings[0] and "github.typo" in warnings[0]


@pytest.mark.parametrize(
    "raw, pointer",
    [
        ({"approvalPermission": "owner"}, "/github/approval_permission"),
        ({"maxCommentChars": 70000}, "/github/max_comment_chars"),
        ({"stateBranch": "../escape"}, "/github/stateBranch"),
        ({"project": "a b"}, "/github/project"),
        ({"stateBranch": "-x"}, "/github/stateBranch"),
    ],
)
def test_bad_values_are_located_config_errors(
    tmp_path: Path, raw: dict[str, object], pointer: str
) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(raw, config_path=tmp_path / "averos.config.json", repo_root=tmp_path)
    text = str(info.value)
    assert "averos.config.json" in text
    assert pointer.split("/")[-1].replace("_", "").lower() in text.replace("_", "").lower()


def test_permission_order() -> None:
    ranks = [
        p.rank
        for p in (
            Permission.NONE,
            Permission.READ,
            Permission.TRIAGE,
            Permission.WRITE,
            Permission.MAINTAIN,
            Permission.ADMIN,
        )
    ]
    assert ranks == sorted(ranks)
