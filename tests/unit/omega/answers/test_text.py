"""Text normalisation: canonical entities (articles, possessives, naive singulars), entity search in a span,
negation cues."""

from __future__ import annotations

from omega.answers.text import canonical_entity, contains_entity, is_negated


def test_canonical_entities_singularise_naively_but_keep_ss_us_is_and_short_words() -> None:
    assert canonical_entity("The Access Policies") == "access_policy"
    assert canonical_entity("Status Analysis") == "status_analysis"
    assert canonical_entity("gas yes") == "gas_yes"
    assert canonical_entity("ies") == "ies"


def test_a_possessive_s_is_dropped_from_a_canonical_entity() -> None:
    assert canonical_entity("The user's session tokens") == "user_session_token"


def test_an_entity_is_found_at_the_end_of_a_span() -> None:
    assert contains_entity("Admins need the session tokens", "session_token")
    assert contains_entity("Session tokens", "session_token")
    assert not contains_entity("Session", "session_token")


def test_a_contracted_not_is_a_negation() -> None:
    assert is_negated("Guests don't need MFA.")
    assert not is_negated("Guests need MFA.")
