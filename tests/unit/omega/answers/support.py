"""A paragraph whose every sentence is one valid DS005 fact under the default vocabulary, and the facts an
extractor finds in it: the fixture of the reliability tests (core and `omega check extraction`)."""

from __future__ import annotations

from typing import Any

SENTENCES = (
    ("Session tokens expire after 15 minutes.", "session_token", "expires_after", "15 minutes"),
    ("API keys expire after 30 days.", "api_key", "expires_after", "30 days"),
    ("Admin accounts require MFA.", "admin_account", "requires", "mfa"),
    ("Reports contain charts.", "report", "contains", "chart"),
    ("Widgets are part of dashboards.", "widget", "part_of", "dashboard"),
    ("Refresh tokens expire after 7 days.", "refresh_token", "expires_after", "7 days"),
)
PARAGRAPH = " ".join(s for s, *_ in SENTENCES)


def first_facts(count: int, source: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The first `count` sentences' facts as an extractor returns them (with `source` when given)."""
    out = []
    for sentence, subject, predicate, obj in SENTENCES[:count]:
        start = PARAGRAPH.index(sentence)
        fact: dict[str, Any] = {"span": {"start": start, "end": start + len(sentence)}, "subject": subject,
                                "predicate": predicate, "object": obj}
        if source is not None:
            fact["source"] = dict(source)
        fact["polarity"] = "affirm"
        out.append(fact)
    return out
