"""§7.1 failure reasons a writer can act on (issue 42, item 4): the clause, the missing element, and the evidence
needed with the cited facts' scope."""

from __future__ import annotations

from omega.grounding.model import NOT_ENTAILED
from tests.unit.omega.grounding.support import fact, judge

SITES = fact("S1", "The trial enrolled adults at 214 sites in 17 countries.",
             {"population": "adults aged 60 or older", "timeframe": "2021 to 2023"})


def test_an_unstated_word_is_named_with_its_clause_and_the_scoped_evidence_it_needs() -> None:
    verdict = judge("The trial enrolled adults at 214 sites, which were chosen by lottery. [S1]", SITES)
    [failure] = [f for f in verdict.failures if f.code == NOT_ENTAILED]
    assert "'lottery'" in failure.reason
    assert 'in the clause "which were chosen by lottery."' in failure.reason
    assert failure.required_evidence.startswith(
        "requires a fact stating 'chosen', 'lottery' for population: adults aged 60 or older; timeframe: 2021 to 2023")


def test_the_scoped_requirement_names_at_most_four_words_and_the_full_list_follows() -> None:
    # a long list would bury the scope; the unabridged list stays in the evidence text after it
    verdict = judge("The trial enrolled adults at 214 sites, which were chosen by lottery, chance, draw and ballot. "
                    "[S1]", SITES)
    [failure] = [f for f in verdict.failures if f.code == NOT_ENTAILED]
    scoped, _, full = failure.required_evidence.partition("; timeframe: 2021 to 2023; ")
    assert scoped == "requires a fact stating 'chosen', 'lottery', 'chance', 'draw' for population: adults aged 60 " \
                     "or older"
    assert "'ballot'" in full
