"""What the core asks of an adapter besides running nodes: its *facts*.

The run itself is :class:`~averos_ci.execute.contracts.ExecutionAdapter` (``preflight``,
``open``, ``execute``, ``close``). Everything else the core would otherwise decide by the
adapter's name is a hook here, with a default that fits an adapter which has nothing to say:
a new adapter subclasses :class:`AdapterBase` (or defines the same attributes) and overrides
only what it knows. The registry (:mod:`averos_ci.execute.adapters.registry`) reads these hooks
from the class an entry point names, so the planner, the console and the summaries never
name an adapter.

Class-level hooks (asked while planning, before any adapter is built):

- :meth:`~AdapterBase.config_options` — ``adapterOptions`` completed from the config file;
- :meth:`~AdapterBase.identity_options` — the options a plan's identity (planHash) covers;
- :meth:`~AdapterBase.loaded_files` — code the adapter loads from the repository, by content;
- :meth:`~AdapterBase.next_step` — the console's last line after a successful run;
- :meth:`~AdapterBase.node_toolchain` — where ``preview`` finds Node.js and its cache;
- ``generates`` — false: a run writes no application (``summary.json`` says so);
- ``version`` — what the applied state records as the adapter's version.

Instance hooks (the built adapter): ``not_applied(node)``, ``notice``, ``regenerates``,
``prepare_scratch(root)``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from averos_ci.config import RunConfig
    from averos_ci.execute.contracts import NotApplied
    from averos_ci.plan.model import PlanNode

Reader = Callable[[str], bytes | None]  # a config-relative posix path -> its bytes, or None


@dataclass(frozen=True)
class NodeToolchain:
    """Where the Node.js tools an adapter uses live: ``preview`` builds with the same ones."""

    cache_dir: Path
    min_node_version: str


class AdapterBase:
    """Defaults of every hook; adapters subclass it and override what they know."""

    name: ClassVar[str]
    supports_concurrency: ClassVar[bool] = False
    generates: ClassVar[bool] = True  # False: its runs write no application
    version: ClassVar[str | None] = None  # recorded in the state (None: averos-ci's version)

    # -- class-level facts (asked while planning; no adapter is built) -----------------
    @classmethod
    def config_options(cls, options: Mapping[str, Any], config: RunConfig) -> dict[str, Any]:
        """``adapterOptions`` completed from the rest of the config (top-level keys, the
        config's folder); the result builds the adapter and feeds the plan's identity."""
        return dict(options)

    @classmethod
    def identity_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options that change what the adapter produces: what an approval covers.
        All of them unless narrowed (knobs that change no result stay out)."""
        return dict(options)

    @classmethod
    def loaded_files(
        cls, options: Mapping[str, Any], *, base_dir: Path, read: Reader
    ) -> dict[str, str]:
        """Config-relative path -> content hash of each repository file the adapter loads
        and runs (read only through ``read``): a change of that code is a new plan."""
        return {}

    @classmethod
    def next_step(cls, *, workspace_root: Path, config: Path | None) -> str | None:
        """The console's last line after a successful (not dry) run, or None."""
        return None

    @classmethod
    def node_toolchain(cls, options: Mapping[str, Any]) -> NodeToolchain | None:
        """The Node.js toolchain its ``adapterOptions`` choose, for ``preview``; None: the
        defaults."""
        return None

    # -- instance facts (the built adapter) -------------------------------------------
    @property
    def regenerates(self) -> bool:
        """Runs regenerate and merge (averos_ci.execute.regen) instead of editing in place."""
        return False

    @property
    def notice(self) -> str | None:
        """Said before a run and at the top of its summary (e.g. nothing is generated)."""
        return None

    def not_applied(self, node: PlanNode) -> list[NotApplied]:
        """Settings of ``node`` this adapter has no way to apply, and why: a prediction
        from the node alone (no workspace read), shown in the plan before approval."""
        return []

    def prepare_scratch(self, root: Path) -> None:
        """``root`` is a clean generation's scratch workspace (averos_ci.execute.regen)."""
