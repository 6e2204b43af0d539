"""The hand-written rule library of §6.1 for the default vocabulary, with the §6.2 evaluators behind the
derived predicates. A rule maps a goal to body alternatives (sub-goal patterns) and concludes derived facts
and the head's object; it returns None when a required query parameter is missing (never guess).

Derived predicates: valid_after_inactivity (param inactivityMinutes; expired when inactivity >= the expiry,
since "expires after 15 minutes" means it is gone at minute 15), created_before / created_after (params
before / after, ISO timestamps), longer_than (param thanMinutes; over valid_for, else expires_after).
Relational rules: part_of, contains and requires are transitive; contains/part_of are inverses; a part
inherits the requirements of its whole (part_of then requires).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from omega.answers.evaluators import compare, duration_minutes, number_param, timestamp_ms

Pattern = dict[str, Any]
Derived = list[dict[str, Any]]
Body = Callable[[Pattern, int], list[list[Pattern]]]
Conclude = Callable[[Pattern, dict[str, Any], Mapping[str, Any]], tuple[Derived, Any] | None]


@dataclass(frozen=True)
class Rule:
    """A head predicate, its body alternatives, the parameters it needs, and how it concludes."""

    name: str
    head: str
    body: Body
    conclude: Conclude
    params: tuple[str, ...] = ()


def _v(name: str, depth: int) -> str:
    # rule-internal variables carry the depth, so a recursive use of the same rule binds fresh ones
    return f"?_{name}{depth}"


def _transitive(predicate: str) -> Rule:
    def body(goal: Pattern, depth: int) -> list[list[Pattern]]:
        mid = _v("m", depth)
        return [[{"subject": goal.get("subject"), "predicate": predicate, "object": mid},
                 {"subject": mid, "predicate": predicate, "object": goal.get("object")}]]

    def conclude(goal: Pattern, b: dict[str, Any], params: Mapping[str, Any]) -> tuple[Derived, Any]:
        obj = b.get(str(goal.get("object")), goal.get("object"))
        subject = b.get(str(goal.get("subject")), goal.get("subject"))
        return [{"subject": subject, "predicate": predicate, "object": obj, "rule": f"{predicate}_transitive"}], obj

    return Rule(f"{predicate}_transitive", predicate, body, conclude)


def _inverse(head: str, other: str) -> Rule:
    def body(goal: Pattern, depth: int) -> list[list[Pattern]]:
        return [[{"subject": goal.get("object"), "predicate": other, "object": goal.get("subject")}]]

    def conclude(goal: Pattern, b: dict[str, Any], params: Mapping[str, Any]) -> tuple[Derived, Any]:
        obj = b.get(str(goal.get("object")), goal.get("object"))
        subject = b.get(str(goal.get("subject")), goal.get("subject"))
        return [{"subject": subject, "predicate": head, "object": obj, "rule": f"{head}_inverse_of_{other}"}], obj

    return Rule(f"{head}_inverse_of_{other}", head, body, conclude)


def _inherited_requirement() -> Rule:
    def body(goal: Pattern, depth: int) -> list[list[Pattern]]:
        whole = _v("w", depth)
        return [[{"subject": goal.get("subject"), "predicate": "part_of", "object": whole},
                 {"subject": whole, "predicate": "requires", "object": goal.get("object")}]]

    def conclude(goal: Pattern, b: dict[str, Any], params: Mapping[str, Any]) -> tuple[Derived, Any]:
        obj = b.get(str(goal.get("object")), goal.get("object"))
        return [{"subject": goal.get("subject"), "predicate": "requires", "object": obj,
                 "rule": "requires_inherited_from_whole"}], obj

    return Rule("requires_inherited_from_whole", "requires", body, conclude)


def _comparison(head: str, premises: tuple[str, ...], param: str, parse: Callable[[object], float | None],
                op: str, derived_predicate: str, yes_when: bool) -> Rule:
    """A derived yes/no predicate: premise value `op` the parameter; the answer is Yes when the result is
    `yes_when`. The parameter is read with `parse` for timestamps, as a number otherwise."""

    def body(goal: Pattern, depth: int) -> list[list[Pattern]]:
        return [[{"subject": goal.get("subject"), "predicate": p, "object": _v("value", depth)}] for p in premises]

    def conclude(goal: Pattern, b: dict[str, Any], params: Mapping[str, Any]) -> tuple[Derived, Any] | None:
        raw = params.get(param)
        wanted = parse(raw) if parse is timestamp_ms else number_param(dict(params), param)
        value = next((parse(v) for k, v in b.items() if k.startswith("?_value")), None)
        result = compare(value, op, wanted)
        if result is None:
            return None
        derived = {"subject": goal.get("subject"), "predicate": derived_predicate, "object": result,
                   "evaluation": f"{value:g} {op} {wanted:g}" if parse is duration_minutes else f"{op} {raw}",
                   "rule": head}
        return [derived], "Yes" if result == yes_when else "No"

    return Rule(head, head, body, conclude, (param,))


RULES: tuple[Rule, ...] = (
    _comparison("valid_after_inactivity", ("expires_after",), "inactivityMinutes", duration_minutes, "<=",
                "session_expired", False),
    _comparison("created_before", ("created_at",), "before", timestamp_ms, "<", "created_before_checked", True),
    _comparison("created_after", ("created_at",), "after", timestamp_ms, ">", "created_after_checked", True),
    _comparison("longer_than", ("valid_for", "expires_after"), "thanMinutes", duration_minutes, ">",
                "duration_exceeds", True),
    _transitive("part_of"),
    _transitive("requires"),
    _transitive("contains"),
    _inverse("contains", "part_of"),
    _inverse("part_of", "contains"),
    _inherited_requirement(),
)
DERIVED_PREDICATES = frozenset(r.head for r in RULES if r.params)
