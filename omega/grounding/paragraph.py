"""A paragraph version's verdict (§6.2) and the paragraph's state across versions (§7.2).

Verified iff it has at least one sentence and every sentence passes. The displayable paragraph holds only the
passing sentences, with their attributions (§7.1: failed sentences are suppressed); None if none passes.

`evolve(state, request)` keeps every version of every sentence. A sentence whose text differs from its latest
earlier version is an edit (as is one the producer marks `edited_by_user`); it is re-verified like any other,
and an unsupported edit is flagged in its rationale: it is blocked, the last verified text stays the last one.
A redelivered request (same version and hash) changes nothing and gives the same outputs; a different request
under a version already seen replaces that version (last write wins) and is judged again.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from omega.canonical import derived_id
from omega.grounding.judge import EntailmentJudge
from omega.grounding.model import CONTRACT_VERSION, PASS
from omega.grounding.qualifiers import Established, established_by
from omega.grounding.request import ParagraphRequest
from omega.grounding.verdict import SentenceVerdict, verify_sentence


@dataclass(frozen=True, slots=True)
class ParagraphVerdict:
    """The verdict on one paragraph version."""

    request: ParagraphRequest
    request_hash: str
    sentences: tuple[SentenceVerdict, ...]

    @property
    def verdict_id(self) -> str:
        """Derived from paragraph, version, request hash and contract version."""
        return derived_id("gv_", self.request.paragraph_id, str(self.request.version), self.request_hash,
                          CONTRACT_VERSION)

    @property
    def verified(self) -> bool:
        """At least one sentence, and every sentence PASS."""
        return bool(self.sentences) and all(s.passed for s in self.sentences)

    @property
    def displayable(self) -> str | None:
        """The passing sentences with their attributions, in order; None if none passes."""
        return " ".join(s.text.strip() for s in self.sentences if s.passed) or None

    def to_record(self) -> dict[str, Any]:
        """Matches the `omega.grounding.GroundingVerdict` record."""
        return {
            "verdict_id": self.verdict_id, "event_time": self.request.event_time,
            "paragraph_id": self.request.paragraph_id, "version": self.request.version,
            "request_hash": self.request_hash, "contract_version": CONTRACT_VERSION,
            "sentences": [s.to_record() for s in self.sentences], "paragraph_verified": self.verified,
            "displayable_paragraph": self.displayable,
        }


@dataclass(frozen=True, slots=True)
class SentenceVersion:
    """One version of one sentence, and its outcome."""

    version: int
    text: str
    outcome: str
    edited_by_user: bool


@dataclass(frozen=True, slots=True)
class ParagraphState:
    """Every version applied (version -> request hash) and every sentence's versions (by order)."""

    paragraph_id: str
    applied: Mapping[int, str]
    history: Mapping[int, tuple[SentenceVersion, ...]]

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form for the table (keys as strings)."""
        return {"paragraph_id": self.paragraph_id, "applied": {str(v): h for v, h in self.applied.items()},
                "history": {str(i): [[s.version, s.text, s.outcome, s.edited_by_user] for s in versions]
                            for i, versions in self.history.items()}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ParagraphState:
        """Back from `to_dict`."""
        return cls(data["paragraph_id"], {int(v): h for v, h in data["applied"].items()},
                   {int(i): tuple(SentenceVersion(*s) for s in versions) for i, versions in data["history"].items()})


def verify_paragraph(request: ParagraphRequest, judge: EntailmentJudge | None = None) -> ParagraphVerdict:
    """Verify every sentence of one paragraph version against its allowed facts."""
    return ParagraphVerdict(request, request.request_hash, tuple(v for v, _ in verify_in_turn(request, judge)))


def verify_in_turn(request: ParagraphRequest, judge: EntailmentJudge | None = None
                   ) -> Iterator[tuple[SentenceVerdict, Established]]:
    """Each sentence's verdict in order, and the qualifiers its passing predecessors established for it
    (`qualifiers`)."""
    evidence, established = request.evidence, Established()
    for sentence in request.sentences:
        verdict = verify_sentence(sentence, evidence, judge, established)
        yield verdict, established
        if verdict.passed:
            established |= established_by([evidence.facts[c] for c in verdict.cited_fact_ids if c in evidence.facts])


def evolve(
    state: ParagraphState | None, request: ParagraphRequest, judge: EntailmentJudge | None = None
) -> tuple[ParagraphState, ParagraphVerdict]:
    """Judge a paragraph version in the light of its earlier versions; record its sentences' versions."""
    history = dict(state.history) if state is not None else {}
    earlier = {i: [v for v in versions if v.version < request.version] for i, versions in history.items()}
    edited = tuple(replace(s, edited_by_user=s.edited_by_user or _changed(earlier.get(s.index), s.text))
                   for s in request.sentences)
    verdict = verify_paragraph(replace(request, sentences=edited), judge)
    verdict = replace(verdict, request_hash=request.request_hash,
                      sentences=tuple(_flag(v, earlier.get(v.index)) for v in verdict.sentences))
    if state is not None and state.applied.get(request.version) == verdict.request_hash:
        return state, verdict  # redelivery: same outputs, nothing to record
    for sentence in verdict.sentences:
        kept = tuple(v for v in history.get(sentence.index, ()) if v.version != request.version)
        entry = SentenceVersion(request.version, sentence.text, sentence.outcome, sentence.edited_by_user)
        history[sentence.index] = tuple(sorted((*kept, entry), key=lambda v: v.version))
    applied = {**(state.applied if state is not None else {}), request.version: verdict.request_hash}
    return ParagraphState(request.paragraph_id, applied, history), verdict


def _changed(earlier: list[SentenceVersion] | None, text: str) -> bool:
    return earlier is not None and len(earlier) > 0 and earlier[-1].text != text


def _flag(verdict: SentenceVerdict, earlier: list[SentenceVersion] | None) -> SentenceVerdict:
    """An unsupported edit is flagged and blocked (§7.2): the rationale names the last verified version."""
    if not verdict.edited_by_user or verdict.passed:
        return verdict
    verified = [v for v in earlier or [] if v.outcome == PASS]
    kept = f"version {verified[-1].version} stays the last verified text" if verified else "no verified version"
    return replace(verdict, rationale=f"unsupported edit, blocked ({kept}); {verdict.rationale}")
