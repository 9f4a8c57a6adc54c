"""``httpAuthConfig`` in the generated application.

@wiforge/averos 1.4.1's ``TokenInterceptorService`` (node_modules/@wiforge/averos/fesm2020/
wiforge-averos.mjs) sends ``Authorization: Bearer <token>`` with credentials on every request
but those to api.ipify.org, and its ``ErrorInterceptorService`` refreshes once on a 401
(``handle401Error``), then calls ``AuthenticationService.logoutUser()``, which navigates to
``/`` (``this.router.navigate(['/'])``; the routes send ``/`` on to ``public``).
Where the manifest says otherwise, ``tokenHeader``, ``tokenPrefix``, ``withCredentials`` and
``publicRoutes`` are applied by an interceptor of the application's own (:data:`INTERCEPTOR`),
registered after the runtime's (its providers come first): it moves the token to the
configured header and prefix, drops it on the public routes and sets the credentials flag.
``unauthorizedRedirect`` and ``maxRefreshRetries`` stay the runtime's: the count and the
target are fixed in ``handleError`` / ``logoutUser`` (unapplied.py says so when they differ).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..edits import Edited
from ..files import read_text, source_relative

# what 1.4.1 does without being told (the values that need no interceptor)
RUNTIME_VALUES: dict[str, Any] = {
    "tokenHeader": "Authorization",
    "tokenPrefix": "Bearer",
    "withCredentials": True,
    "publicRoutes": [],
    "unauthorizedRedirect": "/",  # logoutUser(): this.router.navigate(['/'])
    "maxRefreshRetries": 1,
}
APPLIED = ("tokenHeader", "tokenPrefix", "withCredentials", "publicRoutes")
INTERCEPTOR = "app/service/http-auth-config.interceptor.ts"
_IMPORT = "import { HttpAuthConfigInterceptor } from './service/http-auth-config.interceptor';"
_HTTP_IMPORT = "import { HTTP_INTERCEPTORS } from '@angular/common/http';"
_PROVIDER = "{ provide: HTTP_INTERCEPTORS, useClass: HttpAuthConfigInterceptor, multi: true },"
_PROVIDERS = re.compile(r"^([ \t]*)providers: \[", re.M)
_SOURCE = """import {{ Injectable }} from '@angular/core';
import {{ HttpEvent, HttpHandler, HttpInterceptor, HttpRequest }} from '@angular/common/http';
import {{ Observable }} from 'rxjs';

// averos-ci: the manifest's httpAuthConfig, applied after @wiforge/averos 1.4.1's
// TokenInterceptorService (which sends `Authorization: Bearer <token>` with credentials)
const TOKEN_HEADER = {header};
const TOKEN_PREFIX = {prefix};
const WITH_CREDENTIALS = {credentials};
const PUBLIC_ROUTES: string[] = {routes};

function isPublic(url: string): boolean {{
  const path = new URL(url, window.location.href).pathname;
  return PUBLIC_ROUTES.some(r => r.endsWith('*') ? path.startsWith(r.slice(0, -1)) : path === r);
}}

@Injectable()
export class HttpAuthConfigInterceptor implements HttpInterceptor {{
  intercept(req: HttpRequest<any>, next: HttpHandler): Observable<HttpEvent<any>> {{
    const sent = req.headers.get('Authorization');
    if (sent === null) {{
      return next.handle(req);
    }}
    const token = sent.replace(/^Bearer /, '');
    let headers = req.headers.delete('Authorization');
    if (!isPublic(req.url)) {{
      headers = headers.set(TOKEN_HEADER, TOKEN_PREFIX ? `${{TOKEN_PREFIX}} ${{token}}` : token);
    }}
    return next.handle(req.clone({{ headers, withCredentials: WITH_CREDENTIALS }}));
  }}
}}
"""


def differs(args: Mapping[str, Any], key: str) -> bool:
    return key in args and args[key] != RUNTIME_VALUES.get(key, object())


def http_auth_config(root: Path, args: Mapping[str, Any]) -> Edited:
    values = {k: args.get(k, RUNTIME_VALUES[k]) for k in APPLIED}
    if not any(differs(args, k) for k in APPLIED):
        return Edited()
    routes = [str(r) for r in values["publicRoutes"] or []]
    source = _SOURCE.format(
        header=json.dumps(str(values["tokenHeader"]).replace("'", "")).replace('"', "'"),
        prefix=json.dumps(str(values["tokenPrefix"] or "").replace("'", "")).replace('"', "'"),
        credentials="true" if values["withCredentials"] is not False else "false",
        routes=json.dumps(routes),
    )
    files = {source_relative(root, INTERCEPTOR): source}
    module = source_relative(root, "app/app.module.ts")
    text = read_text(root / module) if (root / module).is_file() else None
    if text is None or _PROVIDERS.search(text) is None:
        return Edited(notes=(f"httpAuthConfig: {module} has no providers array",))
    if _PROVIDER not in text:
        newline = "\r\n" if "\r\n" in text else "\n"
        text = _PROVIDERS.sub(lambda m: f"{m.group(0)}{newline}{m.group(1)}  {_PROVIDER}", text)
        text = f"{_HTTP_IMPORT}{newline}{_IMPORT}{newline}{text}"
    files[module] = text
    return Edited(files={p: t for p, t in files.items() if _read(root, p) != t})


def _read(root: Path, relative: str) -> str | None:
    path = root / relative
    return read_text(path) if path.is_file() else None
