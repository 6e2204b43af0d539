"""§5.2 deterministic planning: constrained question templates (regular expressions, no LLM) -> QueryPlan.

Choices: a version is read from "in v2.0" / "in V2.0" / "in version 2.0" / "(v2.0)" / "for v 2" (a `version`
or `v` prefix, any case, optionally with a dot or a space before the number), and from a bare number after
"in" that closes a clause ("in 2.0?", "in 2.0, is ..."; never "in 20 minutes"), and the plan carries its
canonical form (`omega.answers.versions`: "2.0" for all of these; "in v2" gives "2", which is not "2.0") —
the question text keeps the asker's spelling. A subject phrase is canonicalised and resolved against the
store's subjects (exact, else the unique subject that starts with it: "session" -> "session_token"); a
question no template matches gets an empty plan, which answers `unsupported`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from omega.answers.evaluators import duration_minutes
from omega.answers.model import QueryPlan
from omega.answers.text import canonical_entity
from omega.answers.versions import canonical_version

_NUMBER = r"\d+(?:\.\d+)*"
_V = r"v(?:\.\s*|\s)?"
_PREFIXED = rf"(?:version(?:\.\s*|\s+|(?=\d))(?:{_V})?|{_V}){_NUMBER}"
_VERSION = re.compile(rf"[\s,(]*\b(?:(?:in|for|under) )?(?P<v>{_PREFIXED})\b\)?"
                      rf"|[\s,(]*\bin (?P<bare>{_NUMBER})(?=\s*(?:[?,;)!]|$))", re.IGNORECASE)
_NP = r"(?P<s>[a-z][\w -]*?)"
_OBJ = r"(?P<o>[a-z][\w -]*?)"
_DUR = r"(?P<n>\d+(?:\.\d+)?) ?(?P<u>seconds?|minutes?|hours?|days?|weeks?)"
_TS = r"(?P<t>\d{4}-\d{2}-\d{2}(?:t[\d:.]+z?)?)"

# the vocabulary predicates a derived question rests on (the plan's retrieval hints, §5.1)
PREMISES = {"valid_after_inactivity": ("expires_after",), "created_before": ("created_at",),
            "created_after": ("created_at",), "longer_than": ("valid_for", "expires_after")}
Builder = Callable[[dict[str, str]], tuple[str, str, Any, dict[str, Any]]]


def _lookup(predicate: str) -> Builder:
    return lambda g: (g["s"], predicate, "?value", {})


def _yes_no(predicate: str) -> Builder:
    return lambda g: (g["s"], predicate, canonical_entity(g["o"]), {})


def _minutes(g: dict[str, str]) -> float:
    minutes = duration_minutes(f"{g['n']} {g['u']}")
    return 0.0 if minutes is None else minutes


TEMPLATES: tuple[tuple[re.Pattern[str], Builder], ...] = tuple((re.compile(rx), b) for rx, b in (
    (rf"^if (?:a |the )?(?:user|client|caller)s? (?:is|are|was|were|stays?) (?:idle|inactive) for {_DUR},? "
     rf"(?:is|are) (?:their |the |its )?{_NP} (?:still )?valid\??$",
     lambda g: (g["s"], "valid_after_inactivity", "?answer", {"inactivityMinutes": _minutes(g)})),
    (rf"^(?:is|are) {_NP} (?:still )?valid after {_DUR} (?:of )?(?:inactivity|idle time|idling)\??$",
     lambda g: (g["s"], "valid_after_inactivity", "?answer", {"inactivityMinutes": _minutes(g)})),
    (rf"^(?:is|are) {_NP} valid for (?:more|longer) than {_DUR}\??$",
     lambda g: (g["s"], "longer_than", "?answer", {"thanMinutes": _minutes(g)})),
    (rf"^(?:how long|after how long|how many \w+) (?:before|until|do|does|will) {_NP} expires?"
     r"(?: from inactivity| after inactivity| when idle)?\??$", _lookup("expires_after")),
    (rf"^when (?:do|does) {_NP} expire\??$", _lookup("expires_after")),
    (rf"^how long (?:is|are) {_NP} valid(?: for)?\??$", _lookup("valid_for")),
    (rf"^when (?:was|were) {_NP} created\??$", _lookup("created_at")),
    (rf"^(?:was|were) {_NP} created before {_TS}\??$", lambda g: (g["s"], "created_before", "?answer",
                                                                   {"before": g["t"].upper()})),
    (rf"^(?:was|were) {_NP} created after {_TS}\??$", lambda g: (g["s"], "created_after", "?answer",
                                                                  {"after": g["t"].upper()})),
    (rf"^what (?:does|do) {_NP} require\??$", _lookup("requires")),
    (rf"^(?:does|do) {_NP} require {_OBJ}\??$", _yes_no("requires")),
    (rf"^what (?:does|do) {_NP} contain\??$", _lookup("contains")),
    (rf"^(?:does|do) {_NP} contain {_OBJ}\??$", _yes_no("contains")),
    (rf"^what (?:is|are) {_NP} (?:a )?part of\??$", _lookup("part_of")),
    (rf"^(?:is|are) {_NP} (?:a )?part of {_OBJ}\??$", _yes_no("part_of")),
    (rf"^what is the value of {_NP}\??$", _lookup("has_value")),
    (rf"^what (?:type is|is the type of) {_NP}\??$", _lookup("has_type")),
    (rf"^what is the status of {_NP}\??$", _lookup("has_status")),
))


def split_version(question: str) -> tuple[str, str | None]:
    """The question without its version phrase, and the version in canonical form (`2.0`), or None."""
    match = _VERSION.search(question)
    if match is None:
        return question, None
    rest = (question[:match.start()] + question[match.end():]).strip()
    return re.sub(r"\s+([?,])", r"\1", rest), canonical_version(match.group("v") or match.group("bare"))


def resolve_subject(phrase: str, subjects: Iterable[str]) -> str:
    """The store subject a phrase names: exact canonical form, else the unique one starting with it."""
    canonical = canonical_entity(phrase)
    known = sorted(set(subjects))
    if canonical in known:
        return canonical
    extended = [s for s in known if s.startswith(canonical + "_")]
    return extended[0] if len(extended) == 1 else canonical


def plan_question(question: str, subjects: Iterable[str] = ()) -> QueryPlan:
    """A QueryPlan for a templated question; an empty plan (answered `unsupported`) when none matches."""
    text, version = split_version(question.strip())
    normal = re.sub(r"\s+", " ", text.lower()).strip()
    for pattern, build in TEMPLATES:
        match = pattern.match(normal)
        if match is None:
            continue
        phrase, predicate, obj, params = build({k: v for k, v in match.groupdict().items() if v is not None})
        subject = resolve_subject(phrase, subjects)
        return QueryPlan(version=version, subjects=(subject,), predicates=PREMISES.get(predicate, (predicate,)),
                         goal={"subject": subject, "predicate": predicate, "object": obj}, params=params)
    return QueryPlan(version=version)
