"""The fact store (queries, ?variable patterns, idempotent adds) and §4.4 conflict detection."""

from __future__ import annotations

from typing import Any

from omega.answers.conflicts import detect_conflicts
from omega.answers.model import Fact, fact_from_dict
from omega.answers.store import FactStore, match_fact, same_value
from omega.answers.vocabulary import DEFAULT_VOCABULARY as VOCAB


def fact(subject: str, predicate: str, obj: Any, version: str | None = None, polarity: str = "affirm",
         chunk: str = "c0", **qualifiers: Any) -> Fact:
    if version is not None:
        qualifiers["version"] = version
    return fact_from_dict({"span": {"start": 0, "end": 1}, "subject": subject, "predicate": predicate,
                           "object": obj, "source": {"docId": "d", "chunkId": chunk}, "polarity": polarity,
                           "qualifiers": qualifiers})


STORE = FactStore([fact("a", "part_of", "b"), fact("b", "part_of", "c"), fact("t", "expires_after", "15 minutes", "v2"),
                   fact("t", "expires_after", "30 minutes", "v1")])


def test_query_by_subject_predicate_and_version() -> None:
    assert [f.object for f in STORE.query("t", "expires_after", "v2")] == ["15 minutes"]
    assert len(STORE.query(predicate="part_of")) == 2
    assert STORE.query("t", "expires_after", "v9") == []
    assert STORE.query("nobody") == []


def test_a_version_is_queried_in_any_spelling_but_2_is_not_2_0() -> None:
    assert [f.object for f in STORE.query("t", "expires_after", "V2")] == ["15 minutes"]
    assert [f.object for f in STORE.query("t", "expires_after", "version 2")] == ["15 minutes"]
    assert [f.object for f in STORE.query("t", "expires_after", " 1 ")] == ["30 minutes"]
    assert STORE.query("t", "expires_after", "2.0") == []
    assert [f.version for f in STORE.query("t", "expires_after", "2")] == ["v2"]  # the spelling is kept


def test_a_version_in_a_pattern_matches_in_canonical_form_and_binds_it() -> None:
    pattern = {"subject": "t", "predicate": "expires_after", "object": "?d"}
    assert [b["?d"] for _, b in STORE.match({**pattern, "qualifiers": {"version": "Version 2"}})] == ["15 minutes"]
    assert STORE.match({**pattern, "qualifiers": {"version": "2.0"}}) == []
    assert sorted(b["?v"] for _, b in STORE.match({**pattern, "qualifiers": {"version": "?v"}})) == ["1", "2"]
    assert [f.object for f, _ in STORE.match(pattern, "V1")] == ["30 minutes"]


def test_pattern_variables_bind_and_must_agree() -> None:
    assert [b["?x"] for _, b in STORE.match({"subject": "a", "predicate": "part_of", "object": "?x"})] == ["b"]
    assert len(STORE.match({"subject": "?x", "predicate": "?p", "object": "?o"})) == 4
    assert STORE.match({"subject": "?x", "predicate": "part_of", "object": "?x"}) == []
    assert STORE.match({"subject": "t", "predicate": "expires_after", "qualifiers": {"version": "v3"}}) == []


def test_constants_match_after_normalisation_only() -> None:
    assert same_value("15 minutes", "15 min")
    assert same_value("MFA", "mfa")
    assert not same_value("15 minutes", "16 minutes")
    assert not same_value(True, 1)


def test_adding_the_same_fact_twice_keeps_one() -> None:
    again = STORE.with_facts([fact("a", "part_of", "b")])
    assert len(again) == len(STORE) == 4


def test_versions_that_disagree_conflict_when_no_version_is_asked() -> None:
    [(a, b, reason)] = detect_conflicts(STORE, VOCAB)
    assert {a.version, b.version} == {"v1", "v2"}
    assert reason.startswith("VERSION_DISAGREEMENT: t expires_after is ")
    assert reason.endswith("; no version was asked")
    # which fact comes first is source order (here: fact ids); each version shows canonical and as written
    assert "'15 minutes' in version 2 (written 'v2')" in reason
    assert "'30 minutes' in version 1 (written 'v1')" in reason


def test_a_stated_version_filters_the_other_out() -> None:
    assert detect_conflicts(STORE, VOCAB, "v2") == []
    assert detect_conflicts(STORE, VOCAB, "v1") == []


def test_one_version_in_two_spellings_is_one_version_for_conflicts() -> None:
    same = [fact("t", "valid_for", "2 days", "v1"), fact("t", "valid_for", "2 days", "1", chunk="c1")]
    assert detect_conflicts(same, VOCAB) == []
    assert detect_conflicts(same, VOCAB, "V1") == []
    differ = [fact("t", "valid_for", "2 days", "v1"), fact("t", "valid_for", "3 days", "1", chunk="c1")]
    [(a, b, reason)] = detect_conflicts(differ, VOCAB, "version 1")
    assert (a.version, b.version) == ("v1", "1")
    assert reason == ("VALUE_MISMATCH: t valid_for is '2 days' in c0 and '3 days' in c1 "
                      "(version 1 (written 'v1' and '1'))")
    [(_, _, unasked)] = detect_conflicts(differ, VOCAB)
    assert unasked.startswith("VALUE_MISMATCH")
    assert detect_conflicts(differ, VOCAB, "1.0") == []


def test_polarity_mismatch_is_always_a_conflict() -> None:
    pairs = detect_conflicts([fact("g", "requires", "mfa", "v1"), fact("g", "requires", "mfa", "v1", "negate")], VOCAB)
    assert [r.split(":")[0] for _, _, r in pairs] == ["POLARITY_MISMATCH"]
    pairs = detect_conflicts([fact("g", "requires", "mfa"), fact("g", "requires", "mfa", polarity="negate")], VOCAB)
    assert len(pairs) == 1


def test_different_values_in_one_version_conflict_but_equal_normalised_values_do_not() -> None:
    same = detect_conflicts([fact("t", "valid_for", "60 minutes", "v1"), fact("t", "valid_for", "1 hour", "v1")], VOCAB)
    assert same == []
    two = [fact("t", "valid_for", "2 days", "v1"), fact("t", "valid_for", "3 days", "v1", chunk="c1")]
    differ = detect_conflicts(two, VOCAB)
    assert differ[0][2].startswith("VALUE_MISMATCH")


def test_relational_objects_do_not_conflict_and_conditions_split_keys() -> None:
    assert detect_conflicts([fact("x", "requires", "a"), fact("x", "requires", "b")], VOCAB) == []
    assert detect_conflicts([fact("t", "valid_for", "1 day", condition="guest"),
                             fact("t", "valid_for", "7 days", condition="member")], VOCAB) == []


def test_three_answers_give_the_minimal_two_pairs() -> None:
    facts = [fact("t", "valid_for", f"{n} days", f"v{n}") for n in (1, 2, 3)]
    assert len(detect_conflicts(facts, VOCAB)) == 2


def test_a_value_mismatch_names_the_one_version_both_facts_share() -> None:
    def reason(version: str | None, asked: str | None = None) -> str:
        [(_, _, why)] = detect_conflicts([fact("t", "valid_for", "2 days", version),
                                          fact("t", "valid_for", "3 days", version, chunk="c1")], VOCAB, asked)
        return why

    prefix = "VALUE_MISMATCH: t valid_for is '2 days' in c0 and '3 days' in c1 "
    assert reason("v1") == prefix + "(version 1 (written 'v1'))"
    assert reason("v1", "1") == prefix + "(version 1 (written 'v1'))"
    assert reason("1") == prefix + "(version 1)"
    assert reason(None) == prefix + "(version none)"


def test_a_version_pattern_never_matches_a_fact_without_a_version() -> None:
    unversioned = fact("t", "valid_for", "2 days")
    for wanted in ("v1", "?v", None):
        assert match_fact({"predicate": "valid_for", "qualifiers": {"version": wanted}}, unversioned) is None


def test_a_null_version_pattern_matches_any_versioned_fact_and_binds_nothing() -> None:
    assert match_fact({"predicate": "valid_for", "qualifiers": {"version": None}},
                      fact("t", "valid_for", "2 days", "v1")) == {}


def test_a_version_variable_already_bound_must_name_the_facts_version_in_any_spelling() -> None:
    pattern = {"predicate": "valid_for", "qualifiers": {"version": "?v"}}
    v1 = fact("t", "valid_for", "2 days", "v1")
    assert match_fact(pattern, v1) == {"?v": "1"}
    assert match_fact(pattern, v1, {"?v": "version 1"}) == {"?v": "version 1"}
    assert match_fact(pattern, v1, {"?v": "v2"}) is None
    assert match_fact(pattern, v1, {"?v": 1}) is None
