"""The set of values an Actions expression can take (averos_ci/onboard/expressions.py)."""

from __future__ import annotations

import pytest

from averos_ci.onboard.expressions import Opaque, Own, Value, context, may_run, possible

HEAD = Opaque("github.event.pull_request.head.sha")
MAIN = Own("github.event.repository.default_branch")
PR_REF = "refs/pull/${{ github.event.issue.number }}/head"


@pytest.mark.parametrize(
    ("text", "event", "values"),
    [
        # GitHub's || and && return an operand, not a boolean
        ("${{ 'a' || 'b' }}", "push", {"a"}),
        ("${{ '' || 'b' }}", "push", {"b"}),
        ("${{ 'a' && 'b' }}", "push", {"b"}),
        ("${{ '' && 'b' }}", "push", {""}),
        # an unknown value may be empty (then the right side) or itself
        ("${{ github.event.pull_request.head.sha || '' }}", "push", {HEAD, ""}),
        ("${{ github.event.pull_request.head.sha && 'x' }}", "push", {HEAD, "x"}),
        # the monorepo's checkouts, per event
        (
            "${{ (github.event_name == 'issue_comment' || github.event_name == "
            "'pull_request_review') && github.event.repository.default_branch || '' }}",
            "issue_comment",
            {MAIN},
        ),
        (
            "${{ (github.event_name == 'issue_comment' || github.event_name == "
            "'pull_request_review') && github.event.repository.default_branch || '' }}",
            "push",
            {""},
        ),
        (
            "${{ github.event_name == 'issue_comment' && github.event.repository.default_branch"
            " || github.event.pull_request.head.sha }}",
            "pull_request",
            {HEAD},
        ),
        # comparisons are case-insensitive on strings; unknowns compare both ways
        ("${{ 'Push' == github.event_name }}", "push", {True}),
        ("${{ !(github.event_name != 'push') }}", "push", {True}),
        ("${{ github.event.action == 'closed' }}", "push", {True, False}),
        ("${{ !github.event.action }}", "push", {True, False}),
        # text around an expression: a value the workflow does not fix stays opaque
        (PR_REF, "issue_comment", {Opaque(PR_REF)}),
        ("main", "push", {"main"}),
        (None, "push", {None}),
        ("${{ fromJSON('[]') }}", "push", {Opaque("fromjson()")}),
    ],
)
def test_values(text: str | None, event: str, values: set[Value]) -> None:
    assert possible(text, event) == values


def test_a_job_if_is_false_only_when_no_value_can_be_true() -> None:
    gate = (
        "always() && github.event_name != 'push' && github.event_name != 'workflow_dispatch' && "
        "(github.event_name != 'issue_comment' || needs.discover.result == 'success')"
    )
    assert not may_run(gate, "push") and not may_run(gate, "workflow_dispatch")
    assert may_run(gate, "issue_comment") and may_run(gate, "pull_request")
    assert may_run(None, "push")
    assert may_run("${{ github.event_name == 'push' }}", "push")
    assert not may_run("${{ github.event_name == 'push' }}", "issue_comment")
    assert may_run("contains(github.event.comment.body, '/averos approve')", "issue_comment")


def test_the_contexts_the_rule_trusts() -> None:
    lookup = context("issue_comment")
    assert lookup("github.sha") == {Own("github.sha")}
    assert lookup("github.event_name") == {"issue_comment"}
    assert lookup("github.event.workflow_run.head_sha") == {
        Opaque("github.event.workflow_run.head_sha")
    }
    assert lookup("steps.pr.outputs.sha") == {Opaque("steps.pr.outputs.sha")}


@pytest.mark.parametrize("bad", ["${{ a ] }}", "${{ (a }}", "${{ a b }}", "${{ f(a }}", "${{ }}"])
def test_an_unreadable_expression_is_an_error(bad: str) -> None:
    with pytest.raises(ValueError, match="expression"):
        possible(bad, "push")
