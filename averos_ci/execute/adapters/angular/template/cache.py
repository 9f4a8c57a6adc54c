"""The template-workspace cache: one ready workspace (ng new + ng add + @types/node, its
node_modules included) per set of versions, copied into place in seconds.

Warm it before tests or CI runs::

    python -m averos_ci.execute.adapters.angular warm
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
from pathlib import Path

from averos_ci._fs import atomic_write_text
from averos_ci._interrupt import sigterm_interrupts
from averos_ci.errors import AverosCIError, ExitCode

from ..options import AngularOptions, cache_root
from .bootstrap import BootstrapSpec, create_workspace, local_tarball
from .pinned import pinned_set
from .staging import publish, staging_folder, sweep
from .toolchain import check_registry
from .workspace import link_tree

READY = "ready.json"


def template_key(spec: BootstrapSpec) -> str:
    data = json.dumps(spec.key_fields(), sort_keys=True).encode()
    return f"{spec.app_name}-{hashlib.sha256(data).hexdigest()[:12]}"


def template_dir(root: Path, spec: BootstrapSpec) -> Path:
    return root / "templates" / template_key(spec)


def cached_template(root: Path, spec: BootstrapSpec) -> Path | None:
    base = template_dir(root, spec)
    return base / "workspace" if (base / READY).is_file() else None


def find_matching_template(root: Path, options: AngularOptions) -> Path | None:
    """Any ready template built with these versions (the app name is not known yet)."""
    found = matching_templates(root, options)
    return found[0] if found else None


def matching_templates(root: Path, options: AngularOptions) -> list[Path]:
    tarball = local_tarball(options)
    wanted = {
        "localTgz": tarball.sha256[:16] if tarball else None,
        "angularCli": options.angular_cli_version,
        "averos": tarball.version if tarball else options.averos_version,
        "typesNode": options.types_node_version,
        "collection": options.collection,
    }
    out = []
    for ready in sorted((root / "templates").glob(f"*/{READY}")):
        try:
            fields = json.loads(ready.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if all(fields.get(k) == v for k, v in wanted.items()):
            out.append(ready.parent / "workspace")
    return out


def link_cached_modules(root: Path, options: AngularOptions) -> tuple[Path, str] | None:
    """Give a checked-out workspace (no node_modules) the node_modules of a cached template
    with the same ``package-lock.json``, as hard links (a copy across mounts): seconds
    instead of an `npm ci`. The template it came from and "linked" or "copied", or ``None``
    (no matching template: install instead)."""
    if (root / "node_modules").exists():
        return None
    try:
        lock = (root / "package-lock.json").read_bytes()
    except OSError:
        return None
    for template in matching_templates(cache_root(options), options):
        try:
            same = (template / "package-lock.json").read_bytes() == lock
        except OSError:
            continue
        if same and (template / "node_modules").is_dir():
            return template, link_tree(template / "node_modules", root / "node_modules")
    return None


def ensure_template(root: Path, spec: BootstrapSpec, *, log: Path | None = None) -> Path:
    """The cached template workspace for ``spec``; built (minutes, needs npm) if missing."""
    found = cached_template(root, spec)
    if found is not None:
        sweep(found.parent.parent)  # a build killed here before: nothing may rebuild it now
        return found
    base = template_dir(root, spec)
    base.parent.mkdir(parents=True, exist_ok=True)
    with staging_folder(base.parent, prefix=f".{base.name}.tmp-") as staging:
        create_workspace(
            staging / "workspace",
            spec,
            log=log,
            prepare_for_links=True,
            modules_from=_donor(root, spec),
        )
        atomic_write_text(staging / READY, json.dumps(spec.key_fields(), indent=2) + "\n")
        if base.exists() and cached_template(root, spec) is None:  # a leftover without READY
            shutil.rmtree(base)
        try:
            publish(staging, base)
        except OSError:  # another process finished the same template first: use theirs
            if cached_template(root, spec) is None:
                raise
    return base / "workspace"


def _donor(root: Path, spec: BootstrapSpec) -> Path | None:
    """A ready template (e.g. of another application name) holding the pinned packages of
    ``spec``: the new template shares its node_modules (hard links) instead of installing."""
    pinned = pinned_set(spec)
    if pinned is None:
        return None
    for ready in sorted((root / "templates").glob(f"*/{READY}")):
        if pinned.installed_in(ready.parent / "workspace"):
            return ready.parent / "workspace"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m averos_ci.execute.adapters.angular")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("warm", "path"):
        cmd = sub.add_parser(name)
        cmd.add_argument("--app-name", default="ToDoApp")
        cmd.add_argument("--language", default="en")
        cmd.add_argument("--options", default="{}", help="adapterOptions as JSON")
    args = parser.parse_args(argv)
    sigterm_interrupts()
    options = AngularOptions.model_validate(json.loads(args.options))
    root = cache_root(options)
    try:
        spec = BootstrapSpec.from_options(options, app_name=args.app_name, language=args.language)
        if args.command == "path":
            print(template_dir(root, spec) / "workspace")
            return 0
        if cached_template(root, spec) is None:
            check_registry(spec.toolchain, cache_dir=root, registry=options.registry)
        print(ensure_template(root, spec, log=root / "logs" / "warm.log"))
    except AverosCIError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return int(exc.exit_code)
    except KeyboardInterrupt:  # the build's commands are ended and its folder removed
        print("interrupted", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
