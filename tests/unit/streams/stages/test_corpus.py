"""The corpus key shared by DS005 and grounded generation: its default, its validation, and the per-corpus view
of a `corpus/id`-keyed table."""

from __future__ import annotations

import pytest

from streams.stages.base import InputRejected
from streams.stages.corpus import CorpusView, corpus_of, fact_key, keyed_by


def test_a_record_without_a_corpus_belongs_to_the_default_corpus() -> None:
    assert corpus_of({"id": "F1"}) == "default"
    assert corpus_of({"corpus": "trials"}) == "trials"


@pytest.mark.parametrize("bad", ["", "a/b", 7, None, ["x"]])
def test_a_corpus_that_cannot_be_a_key_prefix_is_rejected(bad: object) -> None:
    with pytest.raises(InputRejected) as caught:
        corpus_of({"corpus": bad})
    assert caught.value.error_class == "INVALID_CORPUS"


def test_only_a_record_keyed_by_exactly_its_corpus_counts_as_keyed() -> None:
    assert keyed_by("trials", b"trials")
    assert not keyed_by("trials", b"F1")
    assert not keyed_by("trials", None)


def test_the_view_sees_one_corpus_by_bare_id_and_nothing_of_the_others() -> None:
    table = {fact_key("a", "F1"): {"id": "F1"}, fact_key("a", "F2"): {"id": "F2"}, fact_key("ab", "F3"): {"id": "F3"}}
    view = CorpusView(table, "a")
    assert sorted(view) == ["F1", "F2"]
    assert len(view) == 2
    assert view.get("F1") == {"id": "F1"}
    assert view.get("F3") is None
    with pytest.raises(KeyError):
        view["F3"]
