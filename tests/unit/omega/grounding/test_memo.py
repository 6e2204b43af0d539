"""memo.ByObject: derived once per live object, by identity, and forgotten on clear."""

from __future__ import annotations

from omega.grounding.memo import ByObject


def test_a_value_is_derived_once_per_object_and_again_after_clear() -> None:
    calls: list[str] = []

    def derive(text: str) -> int:
        calls.append(text)
        return len(text)

    memo: ByObject[list[str], int] = ByObject(lambda words: derive(" ".join(words)))
    first, equal = ["a", "bc"], ["a", "bc"]
    assert memo(first) == 4
    assert memo(first) == 4
    assert calls == ["a bc"]
    assert memo(equal) == 4  # an equal but distinct object is derived on its own
    assert calls == ["a bc", "a bc"]
    memo.clear()
    assert memo(first) == 4
    assert calls == ["a bc", "a bc", "a bc"]
