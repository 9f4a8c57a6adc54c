"""The rules of averos_ci.plan.sensitive: matching, validation, masking and scrubbing."""

from __future__ import annotations

import copy

import pytest

from averos_ci.plan.planner import compute_plan
from averos_ci.plan.render import render_json, render_markdown, render_text
from averos_ci.plan.sensitive import (
    MASK,
    RuleError,
    SensitiveRules,
    check_rule,
    is_masked,
    mask_wire,
    scrubber,
)
from tests.conftest import EXAMPLE_DIR
from tests.security.test_sec_secret_forms import leaked_forms, leaky

MANIFEST = EXAMPLE_DIR / "todoapp.manifest.yaml"


def test_default_rule_masks_provider_config_only() -> None:
    rules = SensitiveRules()
    assert rules.fields("auth:Google", {"name": "Google", "config": {}}) == {"config"}
    assert rules.fields("auth:http-auth-config", {"tokenHeader": "Authorization"}) == set()
    assert rules.fields("service-config:X", {"apiHost": "h"}) == set()


def test_added_rules_use_globs_on_node_ids_and_args() -> None:
    rules = SensitiveRules(["service-config:*/api*", "translation-entry:fr:*/value"])
    assert rules.fields("service-config:S", {"apiHost": 1, "apiPort": 2, "id": 3}) == {
        "apiHost",
        "apiPort",
    }
    assert rules.fields("translation-entry:fr:a.b", {"value": "v", "key": "a.b"}) == {"value"}
    assert rules.fields("translation-entry:en:a.b", {"value": "v"}) == set()


@pytest.mark.parametrize(
    "rule", ["service-config:*/apiHost", "*/apiKey", "auth*/config", "translation-entry:*/value"]
)
def test_valid_rules(rule: str) -> None:
    check_rule(rule)


@pytest.mark.parametrize(
    "rule", ["apiHost", "auth:*/", "/config", "/authentication/0/config", "provider:*/config"]
)
def test_invalid_rules(rule: str) -> None:
    with pytest.raises(RuleError):
        check_rule(rule)


def test_mask_wire_keeps_mapping_keys_and_leaves_its_input_alone() -> None:
    wire = {
        "nodes": [{"id": "auth:G", "args": {"name": "G", "config": {"clientSecret": "s3cr3t!"}}}],
        "diff": {
            "toAdd": [
                {
                    "id": "auth:G",
                    "attributes": [
                        {"field": "config", "op": "add", "after": {"k": "v"}, "sensitive": True},
                        {"field": "name", "op": "add", "after": "G"},
                    ],
                }
            ],
            "unchanged": ["entity:A"],
        },
    }
    before = copy.deepcopy(wire)
    out = mask_wire(wire)
    assert wire == before
    assert out["nodes"][0]["args"] == {"name": "G", "config": {"clientSecret": MASK}}
    attrs = out["diff"]["toAdd"][0]["attributes"]
    assert attrs[0]["after"] == {"k": MASK} and attrs[1]["after"] == "G"
    assert mask_wire(out) == out  # masking is idempotent (a saved plan is recognized by it)


def test_scrubber_replaces_longest_first() -> None:
    scrub = scrubber(["abcdef", "abcdefgh"])
    assert scrub("x abcdefgh y abcdef") == f"x {MASK} y {MASK}"
    assert scrubber([])("abcdef") == "abcdef"


@pytest.mark.parametrize(
    "secret",
    ["abcdef0123456789", 'p"ss\\wörd-123', leaky("cs"), "tab\there 😀 it's\nnext line"],
    # fixed ids: leaky() is random, and xdist's workers must collect the same test ids
    ids=["hex", "quotes-backslash", "every-encoding", "tab-emoji-newline"],
)
def test_scrubber_masks_every_encoded_form(secret: str) -> None:
    scrub = scrubber([secret])
    for form in leaked_forms(secret):
        masked = scrub(f"<{form}>")
        assert MASK in masked and form not in masked, (form, masked)
    assert scrub("p ss w rd 123, nothing secret") == "p ss w rd 123, nothing secret"


def test_a_marked_translation_value_and_member_type_are_masked_in_summaries() -> None:
    execution = {
        "sensitive": ["translation-entry:*:todotask.status/value", "simple-field:*:status/*"]
    }
    plan = compute_plan(manifest_path=MANIFEST, state=None, execution=execution).plan
    # the one-line summaries ("status: enumeration (NEW,…)") print values bare: not these
    for text in (render_text(plan), render_markdown(plan)):
        assert "todotask.status: (sensitive)" in text
        assert 'todotask.name: "Name"' in text
        assert '"Status"' not in text and "enumeration" not in text
        assert "memberType: (sensitive)" in text and "listOfEnumValues: (sensitive)" in text
    assert '"Status"' not in render_json(plan) and "enumeration" not in render_json(plan)


def test_is_masked_needs_a_sensitive_value_and_every_one_masked() -> None:
    real = {"nodes": [{"id": "auth:G", "args": {"config": {"clientSecret": "s3cr3t!"}}}]}
    assert not is_masked(real)
    assert is_masked(mask_wire(real))
    assert not is_masked({"nodes": [{"id": "page:P", "args": {"name": "P"}}]})  # nothing to mask


def test_rules_of_a_hand_edited_execution_part_are_the_built_in_ones() -> None:
    for execution in ({"sensitive": 5}, {"sensitive": "x"}, {}, None):
        rules = SensitiveRules.of_execution(execution)
        assert rules.extra == ()
        assert rules.fields("auth:G", {"config": {}}) == {"config"}
