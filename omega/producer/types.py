"""The vocabulary the producer models share: id patterns, enums, ranges, JSON values, and the two base models.

Every constraint is the published JSON Schemas' (`spec/omen/schema-v0.7/`), as `omega.packets.schema_rules`
transcribes them. Two choices of the kit, both narrower than the spec, never wider:
* a free JSON value (`Json`) admits no null anywhere, and an optional field left as None is not written:
  a dump holds no null (the validator warns on a null optional field, and null says nothing a missing key
  does not), but where the spec gives null a meaning of its own: a belief change's required `new_value` /
  `prior_value` ("null if new", schema-index-v0.7.md §BeliefUpdatePacket), written even when None;
* models are strict (no "3" for 3, no True for 1) and finite (no NaN or Infinity: they have no JSON form and
  cannot be signed).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from typing_extensions import TypeAliasType

Json = TypeAliasType("Json", "str | int | float | bool | list[Json] | dict[str, Json]")
"""A JSON value without null (strings, numbers, booleans, arrays and objects of them)."""
JsonObject = dict[str, Json]


# OMEN identifiers: the prefix, then one or more of `[a-zA-Z0-9_-]`
PacketId = Annotated[str, StringConstraints(pattern=r"^pkt_[a-zA-Z0-9_-]+$")]
CorrelationId = Annotated[str, StringConstraints(pattern=r"^corr_[a-zA-Z0-9_-]+$")]
CampaignId = Annotated[str, StringConstraints(pattern=r"^camp_[a-zA-Z0-9_-]+$")]
TaskId = Annotated[str, StringConstraints(pattern=r"^task_[a-zA-Z0-9_-]+$")]
TokenId = Annotated[str, StringConstraints(pattern=r"^token_[a-zA-Z0-9_-]+$")]
PlanId = Annotated[str, StringConstraints(pattern=r"^plan_[a-zA-Z0-9_-]+$")]  # docs/omen-extra-packets.md suggests it

NonEmptyStr = Annotated[str, StringConstraints(min_length=1)]
UnitInterval = Annotated[float, Field(ge=0, le=1)]
NonNegativeInt = Annotated[int, Field(ge=0)]
NonNegativeNumber = Annotated[float, Field(ge=0)]

PacketType = Literal[
    "ObservationPacket", "BeliefUpdatePacket", "DecisionPacket", "VerificationPlanPacket",
    "ToolAuthorizationToken", "TaskDirectivePacket", "TaskResultPacket", "EscalationPacket",
    "IntegrityAlertPacket", "QueueUpdatePacket",
]
Layer = Annotated[int, Field(ge=1, le=6)] | Literal["Integrity"]
"""An ACE layer 1..6, or the Integrity overlay."""
Level = Literal["LOW", "MEDIUM", "HIGH", "CRITICAL"]
Irreversibility = Literal["REVERSIBLE", "PARTIAL", "IRREVERSIBLE"]
Uncertainty = Literal["LOW", "MEDIUM", "HIGH"]
Adversariality = Literal["BENIGN", "CONTESTED", "HOSTILE"]
QualityTier = Literal["SUBPAR", "PAR", "SUPERB"]
VerificationRequirement = Literal["OPTIONAL", "VERIFY_ONE", "VERIFY_ALL"]
EpistemicStatus = Literal["OBSERVED", "DERIVED", "REMEMBERED", "INFERRED", "HYPOTHESIZED", "UNKNOWN"]
FreshnessClass = Literal["REALTIME", "OPERATIONAL", "STRATEGIC", "ARCHIVAL"]
RefType = Literal["tool_output", "user_observation", "memory_item", "derived_calc"]
TaskClass = Literal["FIND", "LOOKUP", "SEARCH", "CREATE", "VERIFY", "COMPILE"]
ToolsState = Literal["tools_ok", "tools_partial", "tools_down"]

_COMMON = ConfigDict(strict=True, frozen=True, allow_inf_nan=False, populate_by_name=True)


class _Dumps(BaseModel):
    def to_json(self) -> dict[str, Any]:
        """The JSON object, with the spec's field names; unset optional fields are left out, never null."""
        # every optional field defaults to None: leaving out the defaults leaves out exactly those, while a
        # required field that may be null (a belief change's prior_value) is still written
        return self.model_dump(mode="json", by_alias=True, exclude_defaults=True)


class Closed(_Dumps):
    """An object the schema closes (`additionalProperties: false`): an unknown field is refused."""

    model_config = ConfigDict(**_COMMON, extra="forbid")


class Open(_Dumps):
    """An object the schema leaves open: declared fields are typed, any other key is kept (a JSON value)."""

    model_config = ConfigDict(**_COMMON, extra="allow")
    __pydantic_extra__: dict[str, Json]
