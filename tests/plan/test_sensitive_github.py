"""Sensitive values through the GitHub flow (fake GitHub API on 127.0.0.1, bare origin): the
plan comments, statuses, job summaries, step outputs and the state branch's run files never
carry them, while a changed secret is shown as a change in the sticky comment."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest

from averos_ci.review.comment import PlanMeta
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import World, git, make_world, manifest_variant
from tests.security.test_sec_secret_forms import leaked_forms, leaky

pytestmark = pytest.mark.slow


def manifest(client_secret: str, api_host: str) -> str:
    text = manifest_variant(0).replace(
        "    name: ToDoTaskServiceConfiguration\n    id: ToDoTaskService\n    apiHost: 127.0.0.1",
        "    name: ToDoTaskServiceConfiguration\n    id: ToDoTaskService\n"
        f"    apiHost: {json.dumps(api_host)}",
    )
    assert json.dumps(api_host) in text
    return text + (
        "\nauthentication:\n"
        "  - name: KeycloakProvider\n"
        "    providerType: keycloak\n"
        "    config:\n"
        "      - { key: realm, value: my-realm }\n"
        f"      - {{ key: clientSecret, value: {json.dumps(client_secret)} }}\n"
    )


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write")
    w = make_world(tmp_path, fake)
    config = json.loads((w.dev / "averos.config.json").read_text(encoding="utf-8"))
    config["sensitive"] = ["service-config:*/apiHost"]
    w.commit("main", {"averos.config.json": json.dumps(config, indent=2)}, "mask apiHost")
    fake.base_sha = git(w.dev, "rev-parse", "HEAD")
    return w


def sticky_body(fake: FakeGitHub, number: int) -> str:
    (found,) = [c for c in fake.bot_comments(number) if "averos-ci:plan" in str(c["body"])]
    return str(found["body"])


def strings(value: object) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return [value] if isinstance(value, str) else []


@pytest.mark.parametrize("style", ["hex", "quoted"])
def test_secrets_stay_out_of_comments_summaries_and_run_files(
    world: World, fake: FakeGitHub, style: str
) -> None:
    if style == "quoted":  # quotes, a backslash, non-ASCII, markup: changed by every encoding
        s1, h1, s2, h2 = leaky("cs"), leaky("h1"), leaky("cs"), leaky("h2")
    else:
        s1, h1 = f"cs-{secrets.token_hex(12)}", f"h1-{secrets.token_hex(8)}.internal"
        s2, h2 = f"cs-{secrets.token_hex(12)}", f"h2-{secrets.token_hex(8)}.internal"
    seen: list[str] = []

    def run(number: int, event: str, payload: dict[str, object], sha: str) -> None:
        r = world.run(event, payload, sha)
        assert r.code == 0, r.stdout + r.stderr
        seen.extend([r.stdout, r.stderr, r.summary, json.dumps(r.outputs)])

    def approve_and_merge(number: int, branch: str, head: str) -> None:
        c = fake.add_comment(number, user="bob", body=world.approve_command(number))
        run(number, "issue_comment", world.comment_event(number, c), head)
        merged = world.merge(branch)
        fake.merge(number, merged)
        run(number, "push", world.push_event(merged), merged)

    # PR 1 adds a provider with a client secret and a marked apiHost; planned, approved, applied
    head1 = world.commit("feat1", {"todoapp.manifest.yaml": manifest(s1, h1)}, "provider")
    fake.add_pull(1, author="alice", head_sha=head1)
    run(1, "pull_request", world.pr_event("opened", 1), head1)
    body1 = sticky_body(fake, 1)
    assert "auth:KeycloakProvider" in body1 and "(sensitive)" in body1
    approve_and_merge(1, "feat1", head1)

    # PR 2 changes only the secrets: a change, shown as one, and a new planHash
    head2 = world.commit(
        "feat2", {"todoapp.manifest.yaml": manifest(s2, h2)}, "rotate", base="main"
    )
    fake.add_pull(2, author="alice", head_sha=head2)
    run(2, "pull_request", world.pr_event("opened", 2), head2)
    body2 = sticky_body(fake, 2)
    assert "config: (sensitive) → (sensitive) (entries changed: clientSecret)" in body2
    assert "apiHost: (sensitive) → (sensitive)" in body2
    meta1, meta2 = PlanMeta.decode(body1), PlanMeta.decode(body2)
    assert meta1 is not None and meta2 is not None and meta2.has_changes
    assert meta1.plan_hash != meta2.plan_hash
    approve_and_merge(2, "feat2", head2)

    everything = [*seen, *(str(c["body"]) for c in fake.comments.values())]
    everything += [json.dumps(st) for st in fake.statuses]
    state_files = world.state_files()
    for path, text in state_files.items():
        if not path.endswith("state.json"):  # the state keeps what was applied (README)
            everything.append(text)
    for secret in (s1, s2, h1, h2):
        for text in everything:
            for form in leaked_forms(secret):
                assert form not in text, (secret, form)
    state = next(t for p, t in state_files.items() if p.endswith("state.json"))
    applied = strings(json.loads(state))
    assert s2 in applied and h2 in applied  # the applied values: what the next plan compares with
