"""Every manifest setting the adapter maps takes effect, or the plan says it will not; and the
only settings the plan says will not are those @wiforge/averos 1.4.1 has no place for at all
(an authentication provider's type and extra configuration, httpAuthConfig's
unauthorizedRedirect): every setting of
the ToDo example changes the generated app (memberTag, deleteStrategy, fieldMappings,
description, enableExternalEntityMapping, defaultAuthenticationProvider included).

For every node command of the adapter's mapping table (mapping.OPERATIONS) the planner emits
for the ToDo example (plus an authentication provider and an httpAuthConfig), and every
setting in its args (its identity — the name path — aside): generate the app with the
setting and without it (or, where it is required, with another valid value) through the
adapter's batched driver, in a copy of the cached template. Either the generated files
differ, or the adapter's ``not_applied(node)`` — what the plan shows — names the setting.
``applicationName`` and ``defaultLanguageCode`` are ``ng add`` options: they choose the
template workspace itself (its cache key), which the test checks instead.

A variant differs from the baseline in one node only: it starts from a copy of the baseline's
workspace as it was before that node (taken while the baseline ran) and runs that node and
those after it, as ``--resume`` does after a run stopped there (a new schematics process each
time). That is 365 node runs instead of 625.
"""

from __future__ import annotations

import copy
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from averos_ci.execute.adapters.angular.adapter import AngularSchematicsAdapter
from averos_ci.execute.adapters.angular.mapping import OPERATIONS
from averos_ci.execute.adapters.angular.options import AngularOptions
from averos_ci.execute.adapters.angular.strings import camelize
from averos_ci.execute.adapters.angular.template.bootstrap import BootstrapSpec
from averos_ci.execute.adapters.angular.testing import context, fresh_workspace, tree_digest
from averos_ci.execute.contracts import ExecutionState
from averos_ci.plan.model import PlanNode
from tests.plan.plan_samples import example_raw, plan_of

pytestmark = [pytest.mark.angular, pytest.mark.slow]

# the element's identity (its name path), not a setting
IDENTITY = {"name", "ename", "mname", "memberName", "lang", "key", "languageCode", "id", "type"}
BOOTSTRAP = {"applicationName", "defaultLanguageCode"}
# no place in @wiforge/averos 1.4.1 (unapplied.py says why and which runtime file shows it)
NO_PLACE = {
    "authentication-provider.providerType",
    "authentication-provider.config",
    "http-auth-config.unauthorizedRedirect",
}
AUTH_ONLY = {"authentication-provider", "http-auth-config"}
Args = dict[str, Any]
# settings a node cannot do without: another valid value instead of none
OTHER: dict[tuple[str, str], Callable[[Args], Args]] = {
    ("add-simple-member", "memberType"): lambda a: (
        {**a, "memberType": "number"}
        if a["memberType"] != "number"
        else {**a, "memberType": "string"}
    ),
    ("add-simple-member", "listOfEnumValues"): lambda a: {**a, "listOfEnumValues": "Open,Done"},
    ("add-composite-member", "fename"): lambda a: {
        **a,
        "fename": a["ename"],
        "memberName": camelize(a["ename"]) + "s",
    },
    ("add-composite-member", "fieldRelationType"): lambda a: {
        **a,
        "fieldRelationType": "ManyToOne",
        "memberName": a["memberName"].rstrip("s"),
    },
    ("field-mapping", "mapping"): lambda a: {**a, "mapping": []},
    ("service-configuration", "apiProtocol"): lambda a: {**a, "apiProtocol": "https"},
    ("service-configuration", "apiHTTPQueryBuilder"): lambda a: {
        **a,
        "apiHTTPQueryBuilder": "json-server",
    },
    ("create-page", "targetMenu"): lambda a: {**a, "targetMenu": "top"},
    ("create-page", "space"): lambda a: {**a, "space": "logged"},
    ("add-translation-entry", "value"): lambda a: {**a, "value": a["value"] + " (2)"},
}


def _manifest() -> dict[str, Any]:
    raw = example_raw()
    raw["authentication"] = [
        {
            "name": "Local",
            "providerType": "jwt",
            "config": [
                {"key": "authBackendUrl", "value": "http://127.0.0.1:4000"},
                {"key": "realm", "value": "todo"},
            ],
        }
    ]
    raw["defaultAuthenticationProvider"] = "jwt"
    raw["enableAuthentication"] = True  # flipped to false as one of the settings
    raw["httpAuthConfig"] = {
        "name": "HTTPAuthConfig",
        "tokenHeader": "X-Token",
        "unauthorizedRedirect": "/denied",
    }
    for language in raw["languages"]:  # one entry each is enough
        language["translationEntries"] = language["translationEntries"][:1]
    return raw


def _variant(node: PlanNode, key: str) -> Args:
    other = OTHER.get((node.command, key))
    if other is not None:
        return other(dict(node.args))
    if isinstance(node.args[key], bool):
        return {**node.args, key: not node.args[key]}
    return {k: v for k, v in node.args.items() if k != key}


def _generate(
    adapter: AngularSchematicsAdapter,
    start: Path,
    ws: Path,
    nodes: list[PlanNode],
    *,
    snapshots: dict[int, Path] | None = None,
) -> dict[str, str]:
    """The digest of ``start`` (the template, or a snapshot of a run's workspace) after
    ``nodes``; ``snapshots`` maps node indexes to folders that receive a copy of the
    workspace as it is before that node runs."""
    if ws.exists():
        shutil.rmtree(ws)
    fresh_workspace(start, ws, shared_node_modules=True)  # a snapshot's: the same link
    state = ExecutionState(cwd=ws)
    try:
        for index, node in enumerate(nodes):
            if snapshots and index in snapshots:
                shutil.copytree(ws, snapshots[index], symlinks=True)
            result = adapter.execute(node, context(ws, node.id), state)
            assert result.success, (node.id, node.args, result.failure)
    finally:
        adapter.close()
    return tree_digest(ws)


def test_every_setting_changes_the_app_or_is_flagged_not_applied(
    angular_template: Path, angular_env: Path, tmp_path: Path
) -> None:
    nodes = list(plan_of(_manifest()).nodes)
    emitted = {n.command for n in nodes}
    assert emitted <= set(OPERATIONS)
    adapter = AngularSchematicsAdapter({"templateCache": True})
    ws = tmp_path / "ws"
    before = {i: tmp_path / "before" / str(i) for i in range(len(nodes))}
    baseline = _generate(adapter, angular_template, ws, nodes, snapshots=before)
    checked: list[str] = []
    unchanged: set[str] = set()
    seen: set[tuple[str, str]] = set()
    for index, node in enumerate(nodes):
        for key in sorted(set(node.args) - IDENTITY):
            if (node.command, key) in seen:
                continue  # one node per (command, setting) is enough
            seen.add((node.command, key))
            checked.append(f"{node.command}.{key}")
            if key in BOOTSTRAP:
                _check_bootstrap(node, key)
                continue
            changed = node.model_copy(update={"args": _variant(node, key)})
            variant = [changed, *nodes[index + 1 :]]
            differs = _generate(adapter, before[index], ws, variant) != baseline
            flagged = {n.setting.split(".")[0] for n in adapter.not_applied(node)}
            flagged |= {s for n in adapter.not_applied(node) for s in n.setting.split("/")}
            assert differs or key in flagged, (
                f"{node.id}: {key}={node.args[key]!r} changes no generated file and the plan "
                f"does not flag it as not applied ({sorted(flagged)})"
            )
            if not differs:
                unchanged.add(f"{node.command}.{key}")
    # what is flagged is only what has no place in the runtime, never an example setting
    assert unchanged <= NO_PLACE, sorted(unchanged - NO_PLACE)
    flagged_settings = {
        f"{n.command}.{a.setting.split('.')[0]}" for n in nodes for a in adapter.not_applied(n)
    }
    assert flagged_settings <= NO_PLACE | {"authentication-provider.config"}, flagged_settings
    example = {n.command for n in plan_of(example_raw()).nodes}
    assert not {c for c in flagged_settings if c.split(".")[0] in example - AUTH_ONLY}
    # every command of the table the planner emits had its settings checked
    covered = {c.split(".")[0] for c in checked}
    assert {c for c in emitted if set(_args_of(nodes, c)) - IDENTITY} <= covered, checked


def _args_of(nodes: list[PlanNode], command: str) -> set[str]:
    return {k for n in nodes if n.command == command for k in n.args}


def _check_bootstrap(node: PlanNode, key: str) -> None:
    def spec(args: Args) -> dict[str, str]:
        return BootstrapSpec.from_options(
            AngularOptions(),
            app_name=str(args["applicationName"]),
            language=str(args.get("defaultLanguageCode") or "en"),
        ).key_fields()

    other = copy.deepcopy(node.args)
    other[key] = "fr" if key == "defaultLanguageCode" else "OtherApp"
    assert spec(node.args) != spec(other), key
