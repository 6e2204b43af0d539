"""W3C trace context (streams/kafka/tracing.py): a valid input traceparent is found in either header form Faust
gives; every output gets a child with the same trace id and flags and a span id of its own, the same on every
run; invalid or all-zero parents are not carried."""

from __future__ import annotations

from streams.kafka.tracing import child_of, parent_of

PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"  # the W3C Trace Context spec's own example


def test_a_valid_traceparent_is_found_in_pairs_or_a_mapping_whatever_its_case() -> None:
    assert parent_of([("other", b"x"), ("traceparent", PARENT.encode())]) == PARENT
    assert parent_of({"Traceparent": PARENT}) == PARENT
    assert parent_of(None) is None
    assert parent_of([]) is None


def test_invalid_or_all_zero_parents_are_not_carried() -> None:
    for bad in ("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  # unknown version
                "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  # trace id all zeros
                "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  # parent id all zeros
                "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  # upper case
                "garbage"):
        assert parent_of([("traceparent", bad.encode())]) is None, bad


def test_a_child_keeps_trace_and_flags_and_derives_its_span_from_the_output() -> None:
    first = child_of(PARENT, "omen.verdicts", b"verdict one")
    assert first == child_of(PARENT, "omen.verdicts", b"verdict one")  # a redelivery or a replay: the same
    version, trace_id, span_id, flags = first.split("-")
    assert (version, trace_id, flags) == ("00", "4bf92f3577b34da6a3ce929d0e0e4736", "01")
    assert span_id != "00f067aa0ba902b7"
    assert len(span_id) == 16
    assert parent_of([("traceparent", first.encode())]) == first  # a valid traceparent itself
    assert child_of(PARENT, "omen.verdicts", b"verdict two").split("-")[2] != span_id
    assert child_of(PARENT, "omega.alerts", b"verdict one").split("-")[2] != span_id
