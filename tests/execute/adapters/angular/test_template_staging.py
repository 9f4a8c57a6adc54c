"""Two builders of one template never share a staging folder, even with the same process id
(containers sharing the cache folder each have their own process ids)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from averos_ci.execute.adapters.angular.options import AngularOptions
from averos_ci.execute.adapters.angular.template import cache, staging
from averos_ci.execute.adapters.angular.template.bootstrap import BootstrapSpec
from tests.execute.adapters.angular.test_angular_pinned import _spec


def test_a_second_builder_with_the_same_pid_leaves_the_first_ones_staging_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = _spec(tmp_path, AngularOptions())  # its cache: tmp_path / "cache"
    root = spec.cache_root
    monkeypatch.setattr(staging.os, "getpid", lambda: 7)  # both "processes" are pid 7
    stagings: list[Path] = []

    def create_workspace(target: Path, _spec: BootstrapSpec, **_: Any) -> None:
        stagings.append(target.parent)
        target.mkdir(parents=True)
        (target / "package.json").write_text(f'{{"builder": {len(stagings)}}}\n')
        if len(stagings) == 1:  # another builder starts and finishes meanwhile
            assert cache.ensure_template(root, spec) == cache.template_dir(root, spec) / "workspace"
        assert (target / "package.json").is_file(), "another builder removed this one's files"

    monkeypatch.setattr(cache, "create_workspace", create_workspace)
    made = cache.ensure_template(root, spec)
    assert made == cache.template_dir(root, spec) / "workspace"
    assert len(stagings) == 2 and stagings[0] != stagings[1]
    assert (made / "package.json").read_text() == '{"builder": 2}\n'  # the first one finished
    assert cache.cached_template(root, spec) == made
    assert sorted(p.name for p in (root / "templates").iterdir()) == [made.parent.name]
