"""The OpenAPI checker itself finds what it is there to find."""

from __future__ import annotations

import pytest

from tests.openapi_check import OpenAPISpec

WORKFLOW = "/repos/acme/shop/actions/permissions/workflow"


def test_the_checker_refuses_wrong_exchanges(openapi_spec: OpenAPISpec) -> None:
    good = {"default_workflow_permissions": "read", "can_approve_pull_request_reviews": True}
    op = openapi_spec.check("GET", WORKFLOW, {}, 200, good)
    assert op.template == "/repos/{owner}/{repo}/actions/permissions/workflow"
    with pytest.raises(AssertionError, match="no such operation"):
        openapi_spec.check("GET", "/repos/acme/shop/actions/permission/workflow", {}, 200, good)
    with pytest.raises(AssertionError, match="no such operation"):
        openapi_spec.check("DELETE", WORKFLOW, {}, 200, good)
    with pytest.raises(AssertionError, match="undocumented query"):
        openapi_spec.check("GET", WORKFLOW, {"page": "2"}, 200, good)
    with pytest.raises(AssertionError, match="'write'"):
        openapi_spec.check(
            "GET", WORKFLOW, {}, 200, {**good, "default_workflow_permissions": "all"}
        )
    with pytest.raises(AssertionError, match="HTTP 500"):
        openapi_spec.check("GET", WORKFLOW, {}, 500, {})
    with pytest.raises(AssertionError, match="message"):
        openapi_spec.check("GET", WORKFLOW, {}, 403, {"error": "no"})  # not GitHub's error


def test_nullable_values_are_accepted_only_where_the_description_says(
    openapi_spec: OpenAPISpec,
) -> None:
    env = {
        "id": 1,
        "node_id": "E",
        "name": "averos-apply",
        "url": "u",
        "html_url": "h",
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "deployment_branch_policy": None,
    }
    path = "/repos/acme/shop/environments/averos-apply"
    openapi_spec.check("GET", path, {}, 200, env)
    with pytest.raises(AssertionError, match="name"):
        openapi_spec.check("GET", path, {}, 200, {**env, "name": None})


def test_check_request_accepts_documented_requests_and_refuses_others(
    openapi_spec: OpenAPISpec,
) -> None:
    spec = openapi_spec
    pulls = "/repos/o/r/pulls"
    body = {"title": "t", "head": "feature", "base": "main", "body": "why"}
    assert spec.check_request("POST", pulls, {}, body).template == "/repos/{owner}/{repo}/pulls"
    spec.check_request("GET", pulls, {"state": "open", "per_page": "100"}, None)
    with pytest.raises(AssertionError, match="request"):
        spec.check_request("POST", pulls, {}, {**body, "title": 5})
    with pytest.raises(AssertionError, match="undocumented query"):
        spec.check_request("GET", pulls, {"colour": "red"}, None)
    with pytest.raises(AssertionError, match="no such operation"):
        spec.check_request("PUT", pulls, {}, body)
