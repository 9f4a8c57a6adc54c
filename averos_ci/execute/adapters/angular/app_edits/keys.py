"""The entity's keys on the wire: what ``memberTag: ID`` and ``fieldMappings`` change in the
generated entity service.

Averos's newer generator writes ``src/assets/entity/entity-config.json``
(``externalKeysMapping``: app member -> backend key) and its runtime renames the keys in what
the services send and read. @wiforge/averos 1.4.1 reads no such file (its ``AverosConfig``
has only ``beURL`` and ``supportedLanguages``; node_modules/@wiforge/averos/fesm2020/
wiforge-averos.mjs), so the mapping is generated into the service itself: one table
(:data:`KEYS_LINE`, JSON, sorted: the same bytes every run) and two functions applied to
every body it sends and every record it reads, to the search criteria's accessors and to the
identifier ``getEntitiesByIds`` queries.

Each function here is a pure function of the file's text: re-running it rewrites nothing.
"""

from __future__ import annotations

import json
import re

# the one line the other edits read and rewrite
KEYS_LINE = "const AVEROS_CI_KEYS: { [member: string]: string } = "
_KEYS = re.compile(
    r"^const AVEROS_CI_KEYS: \{ \[member: string\]: string \} = (\{[^\r\n]*\});(?=\r?$)", re.M
)
_HELPERS = """
// averos-ci: the entity's keys on the wire (memberTag ID, fieldMappings): app member -> backend key
{keys_line}{keys};
const AVEROS_CI_BACKEND_KEYS: {{ [key: string]: string }} = Object.fromEntries(
  Object.entries(AVEROS_CI_KEYS).map(([member, key]) => [key, member]));

function renameKeys(value: any, names: {{ [key: string]: string }}): any {{
  if (Array.isArray(value)) {{
    return value.map(item => renameKeys(item, names));
  }}
  if (value === null || typeof value !== 'object' || value instanceof Date) {{
    return value;
  }}
  const out: any = {{}};
  Object.keys(value).forEach(key => {{
    const renamed = names[key] ?? key;
    if (!(renamed in out) || names[key] !== undefined) {{
      out[renamed] = value[key];
    }}
  }});
  return out;
}}

function toBackend(value: any): any {{
  return renameKeys(value, AVEROS_CI_KEYS);
}}

function fromBackend(value: any): any {{
  return renameKeys(value, AVEROS_CI_BACKEND_KEYS);
}}
"""
_CLASS = re.compile(r"^@Injectable\(", re.M)
_OPERATORS = re.compile(r"import \{ mergeMap \} from 'rxjs/operators';")
# the calls of the averos-service template (1.4.1) that send or read records
_CALLS = (
    (
        re.compile(r"(this\.httpClient\.patch<any>\(`\$\{this\.\w+\}/\$\{id\}`), data\)"),
        r"\1, toBackend(data)).pipe(map(fromBackend))",
    ),
    (
        re.compile(r"(this\.httpClient\.post<any>\(this\.\w+), value\)"),
        r"\1, toBackend(value)).pipe(map(fromBackend))",
    ),
    (
        re.compile(
            r"(this\.httpClient\.get<any(?:\[\])?>\("
            r"(?:this\.\w+(?:, opts)?|`\$\{this\.\w+\}/\$\{id\}`)\))"
        ),
        r"\1.pipe(map(fromBackend))",
    ),
)
_QUERY = re.compile(r"^([ \t]*)(query = criteria\.toHttpQuery\()", re.M)
_RENAME_CRITERIA = (
    "criteria.getCriteriaMap().forEach(c => "
    "{ c.entityAccessor = AVEROS_CI_KEYS[c.entityAccessor] ?? c.entityAccessor; });"
)
_BY_IDS = re.compile(r"(\{\s*)(\w+)(:\s*\{\s*entityAccessor:\s*)'(\w+)'")


def keys_of(service: str) -> dict[str, str] | None:
    """The service's table, or None when it has none yet."""
    found = _KEYS.search(service)
    return None if found is None else dict(json.loads(found.group(1)))


def with_keys(service: str, keys: dict[str, str], *, id_member: str | None) -> str | None:
    """``service`` mapping ``keys`` (app member -> backend key) and querying its identifier
    ``id_member`` by its backend key; None when the service is not the template's."""
    table = json.dumps(dict(sorted(keys.items())), separators=(", ", ": "))
    if keys_of(service) is None:
        at = _CLASS.search(service)
        if at is None or _QUERY.search(service) is None:
            return None
        newline = "\r\n" if "\r\n" in service else "\n"
        helpers = _HELPERS.format(keys_line=KEYS_LINE, keys=table).lstrip("\n") + "\n"
        service = service[: at.start()] + helpers.replace("\n", newline) + service[at.start() :]
        service = _OPERATORS.sub("import { map, mergeMap } from 'rxjs/operators';", service)
        for pattern, replacement in _CALLS:
            service = pattern.sub(replacement, service)
        service = _QUERY.sub(
            lambda m: f"{m.group(1)}{_RENAME_CRITERIA}{newline}{m.group(0)}", service
        )
    else:
        service = _KEYS.sub(lambda _: f"{KEYS_LINE}{table};", service, count=1)
    if id_member is not None:
        backend = keys.get(id_member, id_member)
        service = _BY_IDS.sub(lambda m: f"{m.group(1)}{backend}{m.group(3)}'{backend}'", service)
    return service
