"""Shape of an Averos manifest (flat canonical form): pydantic models, strict types.

Unknown keys are tolerated here and reported as warnings by :mod:`averos_ci.manifest.rules`;
the sets of known keys live next to the models they describe.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

Str = StrictStr
OptStr = StrictStr | None


class _Shape(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class SimpleMember(_Shape):
    memberNature: StrictStr
    ename: Str
    mname: Str
    memberType: Str
    listOfEnumValues: OptStr = None
    memberTag: OptStr = None
    enableTag: StrictBool | None = None
    renamedFrom: OptStr = None


class CompositeMember(_Shape):
    memberNature: StrictStr
    ename: Str
    fename: Str
    memberName: Str
    fieldRelationType: Str
    deleteStrategy: OptStr = None
    memberUpdateStrategy: OptStr = None
    renamedFrom: OptStr = None


class MemberNature(_Shape):
    memberNature: StrictStr


class Entity(_Shape):
    name: Str
    sname: OptStr = None
    members: list[dict[str, Any]] = Field(default_factory=list)
    renamedFrom: OptStr = None


class Service(_Shape):
    name: Str
    ename: OptStr = None


class ServiceConfiguration(_Shape):
    name: Str
    id: Str
    type: OptStr = None
    apiHost: OptStr = None
    apiPort: Annotated[StrictInt, Field(ge=1, le=65535)] | None = None
    apiProtocol: OptStr = None
    apiEndPoint: OptStr = None
    apiHTTPQueryBuilder: OptStr = None


class UseCase(_Shape):
    name: Str
    ename: Str
    useCaseType: Str


class BlankPage(_Shape):
    name: Str
    updateRouteMenu: StrictBool | None = None
    targetMenu: OptStr = None
    targetSpace: OptStr = None


class MappingEntry(_Shape):
    fieldKey: Str
    mapTo: Str


class FieldMapping(_Shape):
    name: Str
    ename: Str
    mapping: list[MappingEntry] = Field(default_factory=list)


class AuthConfigEntry(_Shape):
    key: Str
    value: StrictStr | StrictInt | StrictBool | float | None = None


class AuthenticationProvider(_Shape):
    name: Str
    providerType: Str
    config: list[AuthConfigEntry] = Field(default_factory=list)


class HttpAuthConfig(_Shape):
    name: OptStr = None
    tokenHeader: OptStr = None
    tokenPrefix: OptStr = None
    publicRoutes: list[StrictStr] | None = None
    unauthorizedRedirect: OptStr = None
    withCredentials: StrictBool | None = None
    maxRefreshRetries: StrictInt | None = None


class TranslationEntry(_Shape):
    localeID: Str
    localeValue: Str
    targetEntity: OptStr = None


class Language(_Shape):
    languageCode: Str
    translationEntries: list[TranslationEntry] = Field(default_factory=list)


class Application(_Shape):
    applicationName: Str
    description: OptStr = None
    defaultLanguageCode: OptStr = None
    enableAuthentication: StrictBool | None = None
    enableExternalEntityMapping: StrictBool | None = None
    defaultAuthenticationProvider: OptStr = None
    httpAuthConfig: HttpAuthConfig | None = None
    entities: list[Entity] = Field(default_factory=list)
    services: list[Service] = Field(default_factory=list)
    serviceConfigurations: list[ServiceConfiguration] = Field(default_factory=list)
    useCases: list[UseCase] = Field(default_factory=list)
    blankPages: list[BlankPage] = Field(default_factory=list)
    fieldMappings: list[FieldMapping] = Field(default_factory=list)
    authentication: list[AuthenticationProvider] = Field(default_factory=list)
    languages: list[Language] = Field(default_factory=list)


def known_keys(model: type[BaseModel]) -> frozenset[str]:
    return frozenset(model.model_fields)


DESIGNER_ROOT_KEYS = frozenset({"project", "diagrams", "metadata", "version"})
