"""``averos.config.json``: Averos's keys plus averos-ci's ``adapter`` / ``adapterOptions``.

Precedence: CLI flag > config file > default. Relative paths are relative to the config file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError
from pydantic.alias_generators import to_camel

from averos_ci._model import RunMode
from averos_ci._suggest import suggest
from averos_ci.errors import ConfigError
from averos_ci.source import Document, SourceError, load_document

CONFIG_FILE_NAME = "averos.config.json"
CONFIG_MAX_BYTES = 1024 * 1024


class ConfigFile(BaseModel):
    """The file as written; every key optional. An unknown key is a warning (Averos ignores
    keys it does not know, and another tool may share the file), unless it is a near miss
    of a known key (``adpter``): then it is an error, since ignoring it changes what runs."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    mode: RunMode | None = Field(
        default=None,
        description="`strict` stops at the first failed node (the rest is cancelled); "
        "`resilient` skips only the dependents of a failed node and runs the rest.",
    )
    timeout_ms: StrictInt | None = Field(
        default=None,
        ge=1,
        description="Bound on the whole run, in milliseconds: no node starts after it; "
        "progress is kept and the run exits 130 (continue with `--resume`). Unset: no bound.",
    )
    max_attempts: StrictInt | None = Field(
        default=None,
        ge=1,
        le=100,
        description="Attempts per node for retryable failures (exponential back-off).",
    )
    workspace_root: StrictStr | None = Field(
        default=None,
        description="The application workspace the adapter changes: a subfolder, never the "
        "repository root.",
    )
    manifest_path: StrictStr | None = Field(default=None, description="The manifest to apply.")
    logs_dir: StrictStr | None = Field(
        default=None,
        description="Events (`events.jsonl`), `summary.json`, per-node logs and Averos's own "
        "log files.",
    )
    state_path: StrictStr | None = Field(
        default=None,
        description="The applied state: what the last successful run applied (the base of "
        "the next plan).",
    )
    checkpoint_path: StrictStr | None = Field(
        default=None, description="The checkpoint journal of a run in progress (for `--resume`)."
    )
    development: StrictBool | None = Field(
        default=None, description="Passed to the adapter as `context.development`."
    )
    adapter: StrictStr | None = Field(
        default=None,
        description="The adapter that executes the nodes: a name registered in the "
        "`averos_ci.adapters` entry points (the built-in adapters: the adapters reference; "
        "the mock runs only when named).",
    )
    adapter_options: dict[str, Any] | None = Field(
        default=None, description="Object handed to the adapter's factory (per adapter)."
    )
    concurrency: StrictInt | None = Field(
        default=None,
        ge=1,
        le=64,
        description="Nodes run in parallel, only if the adapter supports it.",
    )
    listeners: list[StrictStr] | None = Field(
        default=None,
        description='Extra run event listeners, each `"module:attribute"` (a factory or an '
        "object with `on_event(event)`).",
    )
    github: dict[str, Any] | None = Field(
        default=None, description="How the GitHub flow behaves: the `github` settings."
    )
    policy: dict[str, Any] | None = Field(
        default=None,
        description="What a plan may do and who may approve it: the `policy` settings.",
    )
    averos_version: StrictStr | None = Field(
        default=None,
        description="Averos's key: the `@wiforge/averos` version the Angular adapter installs "
        "(`adapterOptions.averosVersion` wins).",
    )
    local_tgz: StrictStr | None = Field(
        default=None,
        description="Averos's key: install `@wiforge/averos` from this `npm pack` tarball, "
        "with no registry access.",
    )
    sensitive: list[StrictStr] | None = Field(
        default=None,
        description='More fields to mask in every plan output, each `"<node id glob>/<arg '
        "glob>\"` (authentication providers' `config` is always masked).",
    )


KNOWN_KEYS = frozenset(f.alias or n for n, f in ConfigFile.model_fields.items())
# Averos's keys for its `averos generate` (LLM) command: accepted, not used by averos-ci.
AVEROS_ONLY_KEYS = frozenset(
    {"llmProvider", "ollamaBaseUrl", "ollamaModel", "localLlmBaseUrl", "localLlmModel"}
    | {"llmTimeoutMs"}
)
AVEROS_ONLY_PREFIXES = ("localLlm",)
# Averos's loader takes "true"/"false" for booleans; JavaScript takes "600000" for numbers.
# difflib ratio above which an unknown key is taken for a misspelling (adpter, maxAtempts),
# high enough that unrelated keys (description, version) stay warnings.
TYPO_CUTOFF = 0.8
_BOOL_KEYS = frozenset({"development"})
_INT_KEYS = frozenset({"timeoutMs", "maxAttempts"})


@dataclass(frozen=True)
class RunConfig:
    """Resolved configuration: absolute paths, every value set."""

    config_path: Path | None
    base_dir: Path
    mode: RunMode = RunMode.STRICT
    timeout_ms: int | None = None
    max_attempts: int = 1
    workspace_root: Path = Path("app")  # never the repository root (the adapter refuses it)
    manifest_path: Path = Path("averos.manifest.yaml")
    logs_dir: Path = Path(".averos/logs")
    state_path: Path = Path(".averos/state.json")
    checkpoint_path: Path = Path(".averos/checkpoints.json")
    development: bool = False
    # None: the registry's default (averos_ci.execute.adapters.registry.DEFAULT_ADAPTER),
    # so the default is said in one place, beside the adapters
    adapter: str | None = None
    adapter_options: dict[str, Any] = field(default_factory=dict)
    concurrency: int = 1
    listeners: tuple[str, ...] = ()
    github: dict[str, Any] = field(default_factory=dict)
    policy: dict[str, Any] | None = None  # None: no policy section
    averos_version: str | None = None
    local_tgz: Path | None = None
    sensitive: tuple[str, ...] = ()  # rules added to averos_ci.plan.sensitive.DEFAULT_RULES
    warnings: tuple[str, ...] = ()
    from_cli: frozenset[str] = frozenset()  # fields set by a CLI flag, not the config file

    def with_overrides(self, **overrides: Any) -> RunConfig:
        """Apply CLI flags (``None`` means "not given"); relative paths resolve against CWD."""
        values = {k: v for k, v in overrides.items() if v is not None}
        if values.get("adapter", self.adapter) != self.adapter:  # e.g. --adapter mock
            # the file's options are its adapter's (resolve a default first to keep them for
            # the default: averos_ci.execute.adapters.with_adapter_named)
            values.setdefault("adapter_options", {})
        for key in ("workspace_root", "manifest_path", "logs_dir", "state_path", "checkpoint_path"):
            if key in values:
                values[key] = Path(values[key]).resolve()
        return replace(self, **values, from_cli=self.from_cli | frozenset(values))


_PATH_KEYS = ("workspace_root", "manifest_path", "logs_dir", "state_path", "checkpoint_path")


def default_config(base_dir: Path | None = None) -> RunConfig:
    base = (base_dir or Path.cwd()).resolve()
    cfg = RunConfig(config_path=None, base_dir=base)
    return replace(cfg, **{k: base / getattr(cfg, k) for k in _PATH_KEYS})


def load_config(path: str | Path | None, *, required: bool = True) -> RunConfig:
    """Load and resolve a config file. ``path=None`` looks for ``averos.config.json`` in CWD."""
    if path is None:
        candidate = Path.cwd() / CONFIG_FILE_NAME
        if not candidate.exists() and not required:
            return default_config()
        path = candidate
    path = Path(path).resolve()
    try:
        doc = load_document(path, max_bytes=CONFIG_MAX_BYTES, what="config file")
    except SourceError as exc:
        raise ConfigError(
            exc.message, path=exc.path, line=exc.line, column=exc.column, hint=exc.hint
        ) from None
    data, warnings = _averos_value_forms(doc, path)
    try:
        parsed = ConfigFile.model_validate(data)
    except ValidationError as exc:
        message, line, col = doc.locate_validation_error(exc)
        raise ConfigError(
            message,
            path=path,
            line=line,
            column=col,
            hint="see docs/reference/configuration.md#averos-config-json",
        ) from None
    for key in doc.data:
        if key not in KNOWN_KEYS and not _averos_only(key):
            line, col = doc.locate((key,), key=True)
            near = suggest(key, KNOWN_KEYS, cutoff=TYPO_CUTOFF)
            if near is not None:  # a misspelt key: ignoring it would change what runs
                raise ConfigError(
                    f"unknown config key {key!r}",
                    path=path,
                    line=line,
                    column=col,
                    hint=f"{near} (see docs/reference/configuration.md#averos-config-json)",
                )
            warnings.append(f"{path}:{line}:{col}: warning CFG-01 unknown config key {key!r}")
    base = path.parent
    cfg = default_config(base)
    values: dict[str, Any] = {}
    for name in ConfigFile.model_fields:
        value = getattr(parsed, name)
        if value is None:
            continue
        if name in _PATH_KEYS or name == "local_tgz":
            value = (base / value).resolve()
        elif name == "listeners":
            value = tuple(value)
        elif name == "sensitive":
            value = _sensitive_rules(value, doc, path)
        values[name] = value
    return replace(cfg, config_path=path, warnings=tuple(warnings), **values)


def _sensitive_rules(rules: list[str], doc: Document, path: Path) -> tuple[str, ...]:
    from averos_ci.plan.sensitive import RULE_HINT, RuleError, check_rule

    for index, rule in enumerate(rules):
        try:
            check_rule(rule)
        except RuleError as exc:
            line, col = doc.locate(("sensitive", index))
            raise ConfigError(
                f"/sensitive/{index}: {exc}", path=path, line=line, column=col, hint=RULE_HINT
            ) from None
    return tuple(dict.fromkeys(rules))


def _averos_only(key: str) -> bool:
    return key in AVEROS_ONLY_KEYS or key.startswith(AVEROS_ONLY_PREFIXES)


def _averos_value_forms(doc: Document, path: Path) -> tuple[Any, list[str]]:
    """Averos's documented value forms (``"development": "true"``, ``"timeoutMs": "600000"``)
    converted to JSON booleans/numbers, each with a located warning naming the canonical form."""
    data = doc.data
    warnings: list[str] = []
    if not isinstance(data, dict):
        return data, warnings
    data = dict(data)
    for key, value in doc.data.items():
        if not isinstance(value, str):
            continue
        text = value.strip()
        canonical: bool | int | None = None
        if key in _BOOL_KEYS and text in ("true", "false"):
            canonical = text == "true"
        elif key in _INT_KEYS and text.isascii() and text.isdigit():
            canonical = int(text)
        if canonical is None:
            continue
        data[key] = canonical
        line, col = doc.locate((key,))
        written = json.dumps(canonical)
        warnings.append(
            f"{path}:{line}:{col}: warning CFG-02 {key!r} is the string {value!r}; "
            f'accepted as {written} — write "{key}": {written}'
        )
    return data, warnings
