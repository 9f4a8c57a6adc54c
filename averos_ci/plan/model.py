"""The execution plan: what reviewers approve and what the engine executes."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Literal, Required

from pydantic import Field, PrivateAttr, SerializerFunctionWrapHandler, model_serializer
from typing_extensions import TypedDict

from averos_ci._model import WireModel
from averos_ci.plan.canonical import canonical_json

PLAN_FORMAT_VERSION = 2  # 2: attribute-level changes in every diff entry
# Keys the JSON rendering writes beside the plan, derived from what the planHash covers (the
# adapter's notApplied prediction, the summary of the changes): not part of the plan or its
# hash, dropped when a saved plan is read back.
BESIDE_THE_PLAN = frozenset({"notApplied", "summary"})


class Action(StrEnum):
    CREATE = "create"
    UPDATE = "update"
    SKIP = "skip"


class Phase(StrEnum):
    """Averos's phase order; the enum order is the execution order."""

    APPLICATION = "application"
    ENTITY = "entity"
    SIMPLE_FIELD = "simple-field"
    COMPOSITE_FIELD = "composite-field"
    MAPPING = "mapping"
    VALIDATOR = "validator"
    SERVICE_CONFIG = "service-config"
    USE_CASE = "use-case"
    PAGE = "page"
    AUTH = "auth"
    TRANSLATION = "translation"
    TRANSLATION_ENTRY = "translation-entry"

    @property
    def rank(self) -> int:
        return _PHASE_RANK[self]


_PHASE_RANK = {phase: i for i, phase in enumerate(Phase)}


class Bucket(StrEnum):
    TO_ADD = "toAdd"
    TO_UPDATE = "toUpdate"
    CONFLICTS = "conflicts"
    TO_REMOVE = "toRemove"
    UNCHANGED = "unchanged"


class PlanNode(WireModel):
    """One operation: ``command`` names the Averos schematic, ``args`` its options (camelCase)."""

    id: str
    phase: Phase
    command: str
    action: Action
    depends_on: tuple[str, ...] = ()
    args: dict[str, Any] = Field(default_factory=dict)


class AttrOp(StrEnum):
    ADD = "add"  # the attribute is new (every attribute of a created element)
    UPDATE = "update"
    REMOVE = "remove"  # the attribute is gone (every attribute of a removed element)


class AttributeChange(WireModel):
    """One attribute of an element, before and after: the plan's Terraform-style detail.

    ``field`` is a schematic option (an element arg, or ``command``). On the wire ``before`` is
    absent for ``add``, ``after`` for ``remove``, and ``sensitive`` when false.
    """

    field: str
    op: AttrOp
    before: Any = None
    after: Any = None
    sensitive: bool = False  # rendered as ``(sensitive)``, never as its value

    @model_serializer(mode="wrap")
    def _compact(self, handler: SerializerFunctionWrapHandler) -> AttributeWire:
        return attribute_wire(handler(self))


class AttributeWire(TypedDict, total=False):
    """The JSON shape of an :class:`AttributeChange` (what the plan schema documents)."""

    field: Required[str]
    op: Required[Literal["add", "update", "remove"]]
    before: Any  # absent for "add"
    after: Any  # absent for "remove"
    sensitive: bool  # absent when false


def attribute_wire(data: dict[str, Any]) -> AttributeWire:
    """The compact wire form (see :class:`AttributeChange`); the planner builds it directly."""
    out: AttributeWire = {"field": data["field"], "op": AttrOp(data["op"]).value}
    if data["op"] != AttrOp.ADD:
        out["before"] = data.get("before")
    if data["op"] != AttrOp.REMOVE:
        out["after"] = data.get("after")
    if data.get("sensitive"):
        out["sensitive"] = True
    return out


class Change(WireModel):
    """One element of the semantic diff."""

    id: str  # the element's node id, e.g. ``simple-field:ToDoTask:status``
    kind: str  # element kind, e.g. ``simple-member``
    bucket: Bucket
    fields: tuple[str, ...] = ()  # changed fields (toUpdate / conflicts)
    reason: str | None = None  # why a conflict or a removal cannot be executed
    renamed_from: str | None = None
    # Attribute-level changes: every arg for toAdd (after) and toRemove (before, what would be
    # lost); the changed ones for toUpdate and conflicts (a rename's name fields included).
    attributes: tuple[AttributeChange, ...] = ()


class PlanDiff(WireModel):
    to_add: tuple[Change, ...] = ()
    to_update: tuple[Change, ...] = ()
    conflicts: tuple[Change, ...] = ()
    to_remove: tuple[Change, ...] = ()
    unchanged: tuple[str, ...] = ()  # ids only: the unchanged bulk would dwarf the plan


class PlanCounts(WireModel):
    create: int
    update: int
    skip: int
    conflicts: int
    remove: int


class ExecutionPlan(WireModel):
    format_version: int = PLAN_FORMAT_VERSION
    plan_hash: str
    manifest_hash: str
    base_state_hash: str
    application_name: str
    applicable: bool  # False while conflicts remain
    counts: PlanCounts
    diff: PlanDiff
    nodes: tuple[PlanNode, ...]
    execution: dict[str, Any] | None = None  # what runs it (averos_ci.execute.adapters.identity)
    # drift repair: unchanged node id -> generated files found missing (re-run, idempotently)
    repair: dict[str, tuple[str, ...]] = Field(default_factory=dict, exclude_if=lambda v: not v)
    # the code change (averos_ci.plan.patch), when the adapter regenerates: part of the planHash
    code_patch: dict[str, Any] | None = Field(default=None, exclude_if=lambda v: v is None)
    _wire: dict[str, Any] | None = PrivateAttr(default=None)  # set by the planner (read-only)
    # the JSON of the cached wire's nodes and diff entries (averos_ci.plan.canonical)
    _item_json: dict[int, list[str]] | None = PrivateAttr(default=None)

    def to_wire(self) -> dict[str, object]:
        """The JSON-ready dict. The planner caches it: treat the result as read-only."""
        if self.__pydantic_private__ and self._wire is not None:
            return self._wire
        return super().to_wire()

    def item_json(self) -> Mapping[int, list[str]]:
        """The encodings the planner made of :meth:`to_wire`'s nodes and diff entries."""
        if self.__pydantic_private__ and self._wire is not None and self._item_json:
            return self._item_json
        return {}

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        data = super().model_dump(**kwargs)
        if data.get("execution") is None:
            data.pop("execution", None)  # a bare manifest's plan has no execution part
        return data

    @property
    def has_changes(self) -> bool:
        """Anything to apply: a node to run, an element to remove, or a file to change."""
        return (
            any(n.action is not Action.SKIP for n in self.nodes)
            or bool(self.diff.to_remove)
            or bool(self.code_patch and self.code_patch.get("files"))
        )

    def executable_nodes(self) -> list[PlanNode]:
        return [n for n in self.nodes if n.action is not Action.SKIP]

    def node(self, node_id: str) -> PlanNode:
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, no insignificant white space, trailing newline."""
        return canonical_json(self.to_wire())
