"""Application settings: languages (CON-10, REF-10), authentication (CON-11, REF-08),
pages' menus and spaces (CON-08), service protocols (CON-12)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from averos_ci.manifest import names as N
from averos_ci.manifest.report import Reporter
from averos_ci.manifest.rules.common import Members, suggest_or_name

if TYPE_CHECKING:
    from averos_ci.manifest.schema import Application


def check_settings(app: Application, members: Members, r: Reporter) -> None:
    codes = {lang.languageCode for lang in app.languages}
    for i, lang in enumerate(app.languages):
        if lang.languageCode not in N.LANGUAGE_CODES:
            r.error(
                "CON-10",
                f"unknown language code {lang.languageCode!r}",
                ("languages", i, "languageCode"),
                hint="Averos supports " + ", ".join(sorted(N.LANGUAGE_CODES)),
            )
    default = app.defaultLanguageCode
    if default is not None:
        if default not in N.LANGUAGE_CODES:
            r.error(
                "CON-10",
                f"unknown defaultLanguageCode {default!r}",
                ("defaultLanguageCode",),
                hint="Averos supports " + ", ".join(sorted(N.LANGUAGE_CODES)),
            )
        elif app.languages and default not in codes:
            r.warning(
                "REF-10",
                f"defaultLanguageCode {default!r} has no languages entry",
                ("defaultLanguageCode",),
            )
    if app.enableAuthentication:
        provider = app.defaultAuthenticationProvider
        types = {a.providerType for a in app.authentication}
        if not provider:
            r.error(
                "CON-11",
                "authentication is enabled but no defaultAuthenticationProvider is set",
                ("enableAuthentication",),
                hint="set defaultAuthenticationProvider or enableAuthentication: false",
            )
        elif types and provider not in types:
            r.error(
                "REF-08",
                f"defaultAuthenticationProvider {provider!r} matches no "
                "authentication providerType",
                ("defaultAuthenticationProvider",),
                hint=suggest_or_name(provider, types, what="providerTypes"),
            )
    for i, page in enumerate(app.blankPages):
        if page.targetMenu and page.targetMenu not in N.TARGET_MENUS:
            r.error(
                "CON-08",
                f"unknown targetMenu {page.targetMenu!r}",
                ("blankPages", i, "targetMenu"),
                hint="one of both, side, top",
            )
        if page.targetSpace and page.targetSpace not in N.TARGET_SPACES:
            r.error(
                "CON-08",
                f"unknown targetSpace {page.targetSpace!r}",
                ("blankPages", i, "targetSpace"),
                hint="one of logged, public",
            )
    for i, sc in enumerate(app.serviceConfigurations):
        if sc.apiProtocol and sc.apiProtocol not in N.API_PROTOCOLS:
            r.error(
                "CON-12",
                f"apiProtocol must be http or https, not {sc.apiProtocol!r}",
                ("serviceConfigurations", i, "apiProtocol"),
            )
