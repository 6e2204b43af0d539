"""§2.3 confidence propagation: the five rules, and how they apply over the §2.2 references of messages.

Claims. A claim is `(author, element)`: an agent's verdict, or a specific finding another message names as
`source_element` (whitespace collapsed, case folded). A reference names the verdict when its element is the
author's latest verdict line (its text before " | ", with or without the [TAG]) or the word "verdict".
A referenced claim whose author has
not spoken yet starts at `default_claim_confidence`; otherwise at the author's latest confidence. A new
message of an agent replaces its verdict claim (fresh base, no effects); its element claims keep what was
done to them (a refuted finding stays refuted until someone verifies it again).

References, by the tier of the referencing agent (self-references are ignored):

    tier \\ type   SUPPORTS              CONTRADICTS              QUALIFIES                EXTENDS / USES
    VERIFICATION  rule 4, vf = 1+(max-1)c rule 4, vf = 1-(1-min)c  rule 4, vf = 1-(1-min)c/2 premise
    ADVERSARY     rule 3, sf = 1 (failed) rule 3, sf = 1-w*c        rule 3, sf = 1-w*c/2      premise
    other tiers   rule 5 (agrees)         - (flags record it)       -                        EXTENDS agrees; premise

c is the referencing agent's confidence, w is `attack_weight` (`decisive_attack_weight` when the attacking
message has `blocks_progress`). One agent's effect on a claim replaces its earlier one (a re-run attack is
not counted twice). A claim's confidence = rule 5 over its author and its agreeing agents, then its rule 4
and rule 3 effects in arrival order (rule 4 capped at 1.0 each time).

Premises (rules 1 and 2). The USES/EXTENDS references of a message are what its conclusion requires: its
effective confidence is capped by rule 1 over them (coherence factor only for two or more premises), or by
rule 2 when its content says `premise_rule: OR` (alternatives). One level only: a premise counts with its
own confidence, not its premises' (no recursion, so reference cycles are harmless).

Aggregate. The session's confidence in an iteration is the plain mean of the effective confidences of the
claim-bearing agents in play (GENESIS, BRIDGE and the answer-building META agents 47, 49, 50, 51) that spoke
in the iteration or had a claim referenced in it. An agent's effective confidence is the weakest of its
verdict and of its element claims referenced in the iteration, capped by its premises. Evaluators
(VERIFICATION, ADVERSARY, Progress Monitor 48, Quality Controller 52) are excluded: their confidence is in
their judgement, which enters through rules 3 and 4; MEMORY records and PHI orchestrates.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from omega.agents.limits import DEFAULTS, Parameters
from omega.agents.model import AgentMessage
from omega.agents.roster import AGENTS
from omega.records import replace

EVALUATOR_TIERS = frozenset({"VERIFICATION", "ADVERSARY"})
PROCESS_AGENTS = frozenset({48, 52})
"""META agents that judge the process (Progress Monitor, Quality Controller), not the answer."""
NON_CLAIM_TIERS = frozenset({"VERIFICATION", "ADVERSARY", "MEMORY", "PHI"})
ATTACK = "ATTACK"
VERIFY = "VERIFY"
_TAG = re.compile(r"^\[[^\]]*\]")


# ------------------------------------------------------------------------------------------- the five rules
def and_rule(confidences: Sequence[float], coherence_factor: float) -> float:
    """Rule 1: conf(C) = min(conf(A), conf(B), ...) * coherence_factor."""
    return min(confidences) * coherence_factor


def or_rule(confidences: Sequence[float]) -> float:
    """Rule 2: conf(C) = max(conf(A), conf(B), ...)."""
    return max(confidences)


def attack_rule(confidence: float, survival_factor: float) -> float:
    """Rule 3: conf(A)_new = conf(A)_old * survival_factor, survival_factor in [0, 1]."""
    return confidence * min(1.0, max(0.0, survival_factor))


def verification_rule(confidence: float, verification_factor: float, params: Parameters = DEFAULTS) -> float:
    """Rule 4: conf(A)_new = conf(A)_old * verification_factor (factor clamped to its range), capped at 1.0."""
    factor = min(params.verification_factor_max, max(params.verification_factor_min, verification_factor))
    return min(1.0, confidence * factor)


def consensus_rule(confidences: Sequence[float], independence: float, weights: Sequence[float] | None = None) -> float:
    """Rule 5: weighted_mean(c1..cN) * independence_factor (equal weights unless given)."""
    w = [1.0] * len(confidences) if weights is None else list(weights)
    return sum(c * x for c, x in zip(confidences, w, strict=True)) / sum(w) * independence


# ------------------------------------------------------------------------------------------- the factors
def survival_factor(attacker_confidence: float, reference_type: str, decisive: bool,
                    params: Parameters = DEFAULTS) -> float:
    """Rule 3's factor for an ADVERSARY reference: a failed attack (SUPPORTS) leaves 1.0; CONTRADICTS removes
    weight * c, QUALIFIES half of it; `decisive` (blocks_progress) uses the decisive weight."""
    if reference_type == "SUPPORTS":
        return 1.0
    weight = params.decisive_attack_weight if decisive else params.attack_weight
    strength = attacker_confidence * weight * (0.5 if reference_type == "QUALIFIES" else 1.0)
    return min(1.0, max(0.0, 1.0 - strength))


def verification_factor(verifier_confidence: float, reference_type: str, params: Parameters = DEFAULTS) -> float:
    """Rule 4's factor for a VERIFICATION reference, in [min, max]: SUPPORTS raises by the verifier's
    confidence, CONTRADICTS lowers by it, QUALIFIES lowers by half of it."""
    c = min(1.0, max(0.0, verifier_confidence))
    if reference_type == "SUPPORTS":
        return 1.0 + (params.verification_factor_max - 1.0) * c
    drop = (1.0 - params.verification_factor_min) * c
    return 1.0 - (drop / 2 if reference_type == "QUALIFIES" else drop)


def independence_factor(tiers: Sequence[str], params: Parameters = DEFAULTS) -> float:
    """Rule 5's factor: 1.0 for one agent or all-distinct tiers, `independence_factor` when all share a tier."""
    if len(tiers) < 2:
        return 1.0
    spread = (len(set(tiers)) - 1) / (len(tiers) - 1)
    return params.independence_factor + (1.0 - params.independence_factor) * spread


# ------------------------------------------------------------------------------------------- claims
@dataclass(frozen=True, slots=True)
class Support:
    """An agreeing agent of a claim (rule 5)."""

    agent_id: int
    tier: str
    confidence: float


@dataclass(frozen=True, slots=True)
class Effect:
    """A rule 3 (ATTACK) or rule 4 (VERIFY) factor applied to a claim by one agent."""

    rule: str
    agent_id: int
    factor: float


@dataclass(frozen=True, slots=True)
class Claim:
    """A claim and everything done to it; its confidence is computed by `claim_confidence`."""

    author: int
    author_tier: str
    element: str
    base: float
    supports: tuple[Support, ...] = ()
    effects: tuple[Effect, ...] = ()
    touched: int = 0  # the last iteration the claim was made or referenced


@dataclass(frozen=True, slots=True)
class Output:
    """An agent's latest output as far as propagation is concerned."""

    agent_id: int
    tier: str
    iteration: int
    premises: tuple[str, ...] = ()
    premise_rule: str = "AND"
    verdict: str = ""  # normalised verdict line before " | ", tag included


@dataclass(frozen=True, slots=True)
class ConfidenceBook:
    """All claims of a session keyed by `claim_key`, each agent's latest output keyed by str(agent id), and
    the agents that ever confirmed (rule 4 factor > 1) or attacked (rule 3) a claim in the session."""

    claims: Mapping[str, Claim] = field(default_factory=lambda: MappingProxyType({}))
    outputs: Mapping[str, Output] = field(default_factory=lambda: MappingProxyType({}))
    verifiers: tuple[int, ...] = ()
    attackers: tuple[int, ...] = ()


def normalise_element(text: str) -> str:
    """The matching form of a claim element: whitespace collapsed, case folded."""
    return " ".join(text.split()).casefold()


def claim_key(agent_id: int, element: str = "") -> str:
    """The key of a claim: "<author>#<normalised element>" ("<author>#" is the agent's verdict)."""
    return f"{agent_id}#{normalise_element(element)}"


def reference_key(book: ConfidenceBook, agent_id: int, element: str) -> str:
    """The claim a reference names: the author's verdict claim when the element is its verdict line (with or
    without the tag) or "verdict", else the element's own claim."""
    text = normalise_element(element)
    output = book.outputs.get(str(agent_id))
    verdict = output.verdict if output is not None else None
    untagged = _TAG.sub("", verdict, count=1).strip() if verdict else None
    if text in ("", "verdict") or text in (verdict, untagged):
        return claim_key(agent_id)
    return claim_key(agent_id, element)


def claim_confidence(claim: Claim, params: Parameters = DEFAULTS) -> float:
    """Rule 5 over the author and its supporters, then the rule 4 / rule 3 effects in arrival order."""
    tiers = [claim.author_tier, *(s.tier for s in claim.supports)]
    value = consensus_rule([claim.base, *(s.confidence for s in claim.supports)], independence_factor(tiers, params))
    for effect in claim.effects:
        value = attack_rule(value, effect.factor) if effect.rule == ATTACK else \
            verification_rule(value, effect.factor, params)
    return min(1.0, max(0.0, value))


def apply_message(book: ConfidenceBook, message: AgentMessage, params: Parameters = DEFAULTS) -> ConfidenceBook:
    """The book after `message`: its verdict claim replaced, then each of its references applied."""
    claims = dict(book.claims)
    verdict = claim_key(message.agent_id)
    claims[verdict] = Claim(message.agent_id, message.agent_tier, "", message.confidence, touched=message.iteration)
    premises: list[str] = []
    verifiers, attackers = set(book.verifiers), set(book.attackers)
    for ref in message.references:
        if ref.source_agent == message.agent_id:
            continue  # an agent cannot verify, attack or support itself
        key = reference_key(book, ref.source_agent, ref.source_element)
        claim = claims.get(key) or _new_claim(ref.source_agent, ref.source_element, claims, params)
        claims[key] = _referenced(claim, message, ref.type, params)
        effect = next((e for e in claims[key].effects if e.agent_id == message.agent_id), None)
        if effect is not None and effect.rule == VERIFY and effect.factor > 1.0:
            verifiers.add(message.agent_id)
        elif effect is not None and effect.rule == ATTACK:
            attackers.add(message.agent_id)
        if ref.type in ("USES", "EXTENDS"):
            premises.append(key)
    output = Output(message.agent_id, message.agent_tier, message.iteration, tuple(dict.fromkeys(premises)),
                    _premise_rule(message.content), normalise_element(message.verdict.split("|", 1)[0]))
    outputs = {**book.outputs, str(message.agent_id): output}
    return ConfidenceBook(claims, outputs, tuple(sorted(verifiers)), tuple(sorted(attackers)))


def with_claim(book: ConfidenceBook, author: int, tier: str, element: str, base: float,
               iteration: int) -> ConfidenceBook:
    """The book with the claim `(author, element)` made at `base` if it does not exist yet (e.g. a hypothesis)."""
    key = claim_key(author, element)
    if key in book.claims:
        return book
    claim = Claim(author, tier, normalise_element(element), base, touched=iteration)
    return replace(book, claims={**book.claims, key: claim})


def _new_claim(author: int, element: str, claims: Mapping[str, Claim], params: Parameters) -> Claim:
    verdict = claims.get(claim_key(author))
    base = verdict.base if verdict is not None else params.default_claim_confidence
    row = AGENTS.get(author)
    return Claim(author, row.tier if row is not None else "", normalise_element(element), base)


def _referenced(claim: Claim, message: AgentMessage, ref_type: str, params: Parameters) -> Claim:
    """One reference applied to a claim, per the table of the module docstring."""
    tier, who, c = message.agent_tier, message.agent_id, message.confidence
    effect: Effect | None = None
    support: Support | None = None
    if tier == "VERIFICATION" and ref_type in ("SUPPORTS", "CONTRADICTS", "QUALIFIES"):
        effect = Effect(VERIFY, who, verification_factor(c, ref_type, params))
    elif tier == "ADVERSARY" and ref_type in ("SUPPORTS", "CONTRADICTS", "QUALIFIES"):
        effect = Effect(ATTACK, who, survival_factor(c, ref_type, message.flags.blocks_progress, params))
    elif tier not in EVALUATOR_TIERS and ref_type in ("SUPPORTS", "EXTENDS"):
        support = Support(who, tier, c)
    effects = claim.effects if effect is None else (*(e for e in claim.effects if e.agent_id != who), effect)
    supports = claim.supports if support is None else (*(s for s in claim.supports if s.agent_id != who), support)
    return replace(claim, effects=effects, supports=supports, touched=max(claim.touched, message.iteration))


def _premise_rule(content: Any) -> str:
    rule = content.get("premise_rule") if isinstance(content, Mapping) else None
    return "OR" if isinstance(rule, str) and rule.strip().upper() in ("OR", "ANY") else "AND"


# ------------------------------------------------------------------------------------------- aggregate
def is_claim_bearing(agent_id: int, tier: str) -> bool:
    """Whether an agent's confidence is confidence in the answer (see the module docstring)."""
    return tier not in NON_CLAIM_TIERS and agent_id not in PROCESS_AGENTS


def effective_confidence(book: ConfidenceBook, agent_id: int, iteration: int,
                         params: Parameters = DEFAULTS) -> float | None:
    """The weakest of the agent's verdict and its element claims referenced in `iteration`, capped by its
    premises (rule 1, or rule 2 under `premise_rule: OR`) when its latest output is of `iteration`."""
    parts = [claim_confidence(c, params) for k, c in book.claims.items()
             if c.author == agent_id and (k == claim_key(agent_id) or c.touched == iteration)]
    if not parts:
        return None
    value = min(parts)
    output = book.outputs.get(str(agent_id))
    if output is not None and output.iteration == iteration:
        premises = [claim_confidence(book.claims[k], params) for k in output.premises if k in book.claims]
        if premises:
            combined = or_rule(premises) if output.premise_rule == "OR" else \
                and_rule(premises, params.coherence_factor) if len(premises) > 1 else premises[0]
            value = min(value, combined)
    return value


def agents_in_play(book: ConfidenceBook, iteration: int) -> tuple[int, ...]:
    """Claim-bearing agents that spoke in `iteration` or had a claim referenced in it, ascending."""
    spoke = {o.agent_id for o in book.outputs.values() if o.iteration == iteration
             and is_claim_bearing(o.agent_id, o.tier)}
    touched = {c.author for c in book.claims.values() if c.touched == iteration
               and is_claim_bearing(c.author, c.author_tier)}
    return tuple(sorted(spoke | touched))


def aggregate_confidence(book: ConfidenceBook, iteration: int, params: Parameters = DEFAULTS) -> float | None:
    """The session's confidence in `iteration`: the mean effective confidence of the agents in play."""
    values = [v for a in agents_in_play(book, iteration)
              if (v := effective_confidence(book, a, iteration, params)) is not None]
    return sum(values) / len(values) if values else None


def verifiers_and_attackers(book: ConfidenceBook) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Agents that confirmed a claim in the session (rule 4 factor > 1), and agents that attacked one (rule 3)."""
    return book.verifiers, book.attackers
