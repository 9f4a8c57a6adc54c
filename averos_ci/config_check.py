"""The check of a resolved config that ``plan`` and ``run`` both make before anything else.

A config ``run`` would refuse must fail ``plan`` too, with the same error and exit code (2),
or a pull request is approved and then fails on merge. So both commands call
:func:`check_config`, which builds the adapter through the registry exactly as ``run`` does
(name, entry points, the adapter's ``adapterOptions`` model), resolves the listeners and
looks for the manifest; each error is located at its key in ``averos.config.json`` when the
value came from there (a value given by a CLI flag has no place in the file).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from averos_ci.config import RunConfig, load_config
from averos_ci.errors import AverosCIError, ConfigError, InputError
from averos_ci.source import Document, SourceError, load_document

__all__ = ["check_config", "load_checked_config"]

# The RunConfig field behind each top-level key of averos.config.json that is checked here.
_FIELDS = {"adapter": "adapter", "adapterOptions": "adapter_options", "listeners": "listeners"}


def check_config(cfg: RunConfig) -> None:
    """Raise what ``run`` would raise for ``cfg`` before it plans; return when it is usable."""
    from averos_ci.execute.adapters import (
        AdapterOptionsError,
        UnknownAdapter,
        adapter_options,
        get_adapter,
    )
    from averos_ci.execute.listeners import listener_target

    doc = _document(cfg)
    try:
        get_adapter(cfg.adapter, adapter_options(cfg))
    except UnknownAdapter as exc:
        raise _located(exc, cfg, doc, ("adapter",)) from None
    except AdapterOptionsError as exc:
        raise _located(exc, cfg, doc, ("adapterOptions", *exc.pointer), key=exc.key) from None
    except ConfigError as exc:  # the adapter's own checks of its options
        raise _located(exc, cfg, doc, ("adapterOptions",)) from None
    except InputError as exc:  # the adapter's package cannot be loaded
        raise _located(exc, cfg, doc, ("adapter",)) from None
    for index, spec in enumerate(cfg.listeners):
        try:
            listener_target(spec)
        except ConfigError as exc:
            raise _located(exc, cfg, doc, ("listeners", index)) from None
    _check_manifest(cfg, doc)


def load_checked_config(path: Path | None) -> RunConfig:
    """The config at ``path`` (``None``: ``./averos.config.json``) once :func:`check_config`
    passed: what ``validate`` reads, so a config ``plan`` refuses fails the pre-commit hook
    too, with the same error."""
    cfg = load_config(path)
    check_config(cfg)
    return cfg


def _document(cfg: RunConfig) -> Document | None:
    if cfg.config_path is None:
        return None
    try:
        return load_document(cfg.config_path, what="config file")
    except SourceError:  # loaded a moment ago; if it changed since, report without a place
        return None


def _located(
    exc: AverosCIError,
    cfg: RunConfig,
    doc: Document | None,
    pointer: Sequence[str | int],
    *,
    key: bool = False,
) -> AverosCIError:
    """``exc`` placed at ``pointer`` in the config file, if the value was written there."""
    top = str(pointer[0])
    if doc is None or top not in doc.data or _FIELDS.get(top) in cfg.from_cli:
        return exc
    exc.path = str(doc.path)
    exc.line, exc.column = doc.locate(pointer, key=key)
    return exc


def _check_manifest(cfg: RunConfig, doc: Document | None) -> None:
    path = cfg.manifest_path
    if path.exists() or "manifest_path" in cfg.from_cli:
        return  # the manifest loader says the rest (a --manifest path is the user's own)
    if doc is not None and "manifestPath" in doc.data:
        line, col = doc.locate(("manifestPath",))
        raise ConfigError(
            f"manifestPath: no such file {path}",
            path=doc.path,
            line=line,
            column=col,
            hint="manifestPath is relative to the config file's folder",
        )
    where = "the config file's folder" if doc is not None else "the current directory"
    raise InputError(
        "manifest not found",
        path=path,
        hint=f"no manifestPath is set, so the manifest is {path.name} in {where}: "
        "set manifestPath in averos.config.json or pass --manifest",
    )
