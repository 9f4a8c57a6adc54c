"""What of a node's settings @wiforge/averos 1.4.1 has no place for: a function of the node's
args alone, so the plan shows it before approval. The built-in edits log the same notes
(``NOT APPLIED: …`` in the node's log) when they run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from averos_ci.execute.contracts import NotApplied

from .app_edits.http_auth import APPLIED, RUNTIME_VALUES, differs

RUNTIME = "@wiforge/averos 1.4.1"
PROOF = "node_modules/@wiforge/averos/fesm2020/wiforge-averos.mjs"
AUTH_URL_KEY = "authBackendUrl"
RUNTIME_PROVIDER = "backend"  # the providerType that names 1.4.1's own authentication
RUNTIME_ID_KEY = "_id"
DIALECTS = {"json-server": "'JSON-SERVER'", "mongodb": ""}
SERVICE_KEYS = ("apiHost", "apiPort", "apiProtocol", "apiEndPoint", "apiHTTPQueryBuilder")

Args = Mapping[str, Any]


def pairs(value: Any) -> dict[str, Any]:
    """``[{key, value}]`` or ``{k: v}`` -> ``{k: v}``."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, list):
        return {str(i["key"]): i.get("value") for i in value if isinstance(i, Mapping)}
    return {}


def application(args: Args) -> list[NotApplied]:
    """``applicationName``, ``defaultLanguageCode`` (ng add options), ``enableAuthentication``
    (app_edits/authentication.py), ``description``, ``enableExternalEntityMapping`` and
    ``defaultAuthenticationProvider`` (app_edits/application.py) take effect; the provider does not
    when the application has no login."""
    if "defaultAuthenticationProvider" in args and args.get("enableAuthentication") is False:
        return [
            NotApplied(
                "defaultAuthenticationProvider",
                "enableAuthentication is false: the application has no login to use it",
            )
        ]
    return []


def member_tag(args: Args) -> list[NotApplied]:
    """ID and BusinessID take effect (app_edits/entities.py)."""
    del args
    return []


STRATEGIES = ("DELETE_CHILDREN", "DELETE_CASCADE", "KEEP_CHILDREN")


def delete_strategy(args: Args) -> list[NotApplied]:
    strategy = args.get("deleteStrategy")
    if not strategy or strategy in STRATEGIES:
        return []
    return [
        NotApplied(
            "deleteStrategy",
            f"{strategy} of {args['ename']}.{args.get('memberName')}: not a strategy averos-ci "
            f"generates ({', '.join(STRATEGIES)})",
        )
    ]


def field_mapping(args: Args) -> list[NotApplied]:
    """Every pair takes effect in the entity's service (app_edits/keys.py)."""
    del args
    return []


def service_configuration(args: Args) -> list[NotApplied]:
    out = []
    if not args.get("apiHost") or args.get("apiEndPoint") is None:
        out.append(
            NotApplied(
                "apiHost/apiEndPoint",
                "missing: the service keeps its generated URL (set both to configure it)",
            )
        )
    builder = args.get("apiHTTPQueryBuilder")
    if builder is not None and str(builder).lower() not in DIALECTS:
        out.append(
            NotApplied(
                "apiHTTPQueryBuilder",
                f"{builder!r} has no query dialect in {RUNTIME} (it knows "
                f"{', '.join(sorted(DIALECTS))}): search queries keep theirs",
            )
        )
    out += [
        NotApplied(key, f"no place in {RUNTIME}'s services")
        for key in sorted(set(args) - {"name", "id", "type", *SERVICE_KEYS})
    ]
    return out


def authentication_provider(args: Args) -> list[NotApplied]:
    """``providerType: backend`` is 1.4.1's one authentication (the ``/auth/*`` API of
    ``beURL``, which ``authBackendUrl`` sets): it takes effect as it is; any other type
    (Averos 2's keycloak, google, firebase, dummy providers) has no place in 1.4.1."""
    config = pairs(args.get("config"))
    config.pop(AUTH_URL_KEY, None)
    typed = "providerType" in args and str(args["providerType"]).lower() != RUNTIME_PROVIDER
    settings = [*(["providerType"] if typed else []), *(f"config.{k}" for k in sorted(config))]
    return [
        NotApplied(
            setting,
            f"provider {args.get('name')!r}: no place in {RUNTIME}: its one authentication is "
            f"the /auth/* API of beURL (AuthenticationService, LOGIN_API = '/auth/login' in "
            f"{PROOF}; set beURL with the config key {AUTH_URL_KEY})",
        )
        for setting in settings
    ]


def http_auth_config(args: Args) -> list[NotApplied]:
    """tokenHeader, tokenPrefix, withCredentials and publicRoutes take effect (an interceptor
    of the app's own: app_edits/http_auth.py); a value that is the runtime's own takes effect
    as it is."""
    out = []
    for key in sorted(k for k in args if k != "name" and k not in APPLIED):
        if key in RUNTIME_VALUES and not differs(args, key):
            continue
        out.append(
            NotApplied(
                key,
                f"httpAuthConfig: no place in {RUNTIME}: its ErrorInterceptorService "
                f"({PROOF}) refreshes the token once on a 401 (handle401Error), then "
                "AuthenticationService.logoutUser() navigates to '/': neither the count nor "
                "the target can be configured (the target could only move by overriding "
                "AuthenticationService, providedIn root, whose logoutUser() is also the user's "
                "own logout: averos-ci leaves both as they are)",
            )
        )
    return out


PREDICTIONS: dict[str, Callable[[Args], list[NotApplied]]] = {
    "ng-add": application,
    "add-simple-member": member_tag,
    "add-composite-member": delete_strategy,
    "field-mapping": field_mapping,
    "service-configuration": service_configuration,
    "authentication-provider": authentication_provider,
    "http-auth-config": http_auth_config,
}


def predict(command: str, args: Args) -> list[NotApplied]:
    found = PREDICTIONS.get(command)
    return found(args) if found is not None else []
