"""PHI's deployment planner (§1.1-§1.4): problem classification in, batched agent deployment out.

Choices where the spec is silent or loose, each recorded in the plan's `rules` too:
- Inputs are case- and whitespace-tolerant; subtype may be None (the type alone decides).
- MEDIUM uncertainty or stakes (named in §6.1 and A.2, not in §1.2) sits between LOW and HIGH: 9-11 GENESIS
  agents, a standard ADVERSARY battery of 6 in one batch (44 and 46 in it), and two VERIFICATION passes
  (the final one by the first verifier only).
- GENESIS count: the low end of the level's range for a well-defined problem, two more for an ill-defined
  one (LOW 6/8, MEDIUM 9/11, HIGH 12/14). 16 is never chosen: its overflow would crowd the BRIDGE agents
  out of batch 2. Batch 1 takes the first 9 chosen (required ones first), batch 2 the overflow.
- Batch sizes: BRIDGE 2/3/4 by uncertainty (the Formalizer 21 and the type's BRIDGE priorities always);
  VERIFICATION 2/3/4 by stakes (the type's priorities always); Synthesis holds 48, 52, Synthesis Architect
  51, the type's META priorities, and Consensus Mapper 49 unless uncertainty is LOW.
- Session Memory (53) runs throughout, so it is `persistent` and in no batch; it holds one of the 10 parallel
  slots (§1.3.3, A.3) all the time, so no batch has more than 9 agents. Progress Monitor (48) and Quality
  Controller (52) are META and sit in the Synthesis batch.
- An ill-defined problem gets a Clarification batch (47, 1, 3, 4) before Exploration (§1.2: "achieve problem
  clarity before proceeding"); 1, 3 and 4 then explore the clarified problem in batch 1 as well.
- Every problem is treated as non-trivial (§1.3.2): >= 3 GENESIS categories, >= 1 VERIFICATION, >= 1
  ADVERSARY. Each subtype (or type, without one) prefers three §1.3.1 categories, a heuristic of this module.
- Stakes decide the ADVERSARY battery (LOW: Steelman 44 plus the type's priority adversaries; HIGH: all 12
  in two batches of 6); uncertainty decides how many attack rounds to plan (HIGH: 2), as "iterations".
- HIGH stakes' "multiple VERIFICATION passes" is the Verification batch plus a final pass of the same agents
  in Synthesis (as §1.3.3's "final VERIFICATION"); LOW stakes have only the Verification batch.
- Thresholds: final answer > 0.8 / 0.6 / 0.4 by stakes (A.2, §6.1); proceeding to the next tier 0.5 (A.2),
  lowered to 0.4 at HIGH uncertainty (§1.2 says "lower" without a number).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import chain, zip_longest
from types import MappingProxyType
from typing import Any

from omega.agents import roster

PROBLEM_TYPES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "EMPIRICAL": ("CAUSAL", "DESCRIPTIVE", "PREDICTIVE"),
    "NORMATIVE": ("ETHICAL", "STRATEGIC", "DESIGN"),
    "ANALYTICAL": ("LOGICAL", "MATHEMATICAL", "CONCEPTUAL"),
    "SYNTHETIC": ("INTEGRATIVE", "CREATIVE", "EXPLANATORY"),
    "META": ("TRACTABILITY", "FRAMING", "DECOMPOSITION"),
})
"""§1.1 taxonomy: type -> subtypes."""

LEVELS = ("LOW", "MEDIUM", "HIGH")

PRIORITY_AGENTS: Mapping[str, tuple[int, ...]] = MappingProxyType({
    "EMPIRICAL": (32, 33, 36, 37, 2),
    "NORMATIVE": (1, 41, 42, 8, 9),
    "ANALYTICAL": (27, 28, 29, 30, 21),
    "SYNTHETIC": (22, 25, 51, 14, 10),
    "META": (4, 47, 31, 45, 48),
})
"""§1.2 priority agents per problem type, in the spec's order."""

CLARITY_AGENTS = (47, 1, 3, 4)
"""§1.2: deployed when the problem is not well defined."""

MAX_PARALLEL = 10
PERSISTENT = (roster.SESSION_MEMORY,)
BATCH_CAPACITY = MAX_PARALLEL - len(PERSISTENT)

GENESIS_RANGE: Mapping[str, tuple[int, int]] = MappingProxyType({"LOW": (6, 8), "MEDIUM": (9, 11), "HIGH": (12, 16)})
_ILL_DEFINED_EXTRA = 2
_BRIDGE_COUNT = MappingProxyType({"LOW": 2, "MEDIUM": 3, "HIGH": 4})
_VERIFICATION_COUNT = MappingProxyType({"LOW": 2, "MEDIUM": 3, "HIGH": 4})
_FINAL_VERIFIERS = MappingProxyType({"LOW": 0, "MEDIUM": 1, "HIGH": BATCH_CAPACITY})
_STANDARD_ADVERSARIES = 6
FINAL_CONFIDENCE: Mapping[str, float] = MappingProxyType({"LOW": 0.4, "MEDIUM": 0.6, "HIGH": 0.8})
PROCEED_CONFIDENCE = 0.5
PROCEED_CONFIDENCE_HIGH_UNCERTAINTY = 0.4

# Fill orders once the required agents are in: the generalists of each tier first.
_BRIDGE_ORDER = (21, 22, 24, 23, 25, 26)
_VERIFICATION_ORDER = (27, 31, 34, 32, 28, 33, 29, 30)
_ADVERSARY_ORDER = (35, 41, 40, 42, 45, 38, 43, 39, 36, 37)
_SYNTHESIS_META = (roster.PROGRESS_MONITOR, roster.QUALITY_CONTROLLER, 51)
_CONSENSUS_MAPPER = 49
_FORMALIZER = 21
_SURVIVOR_SYNTHESIZER = 46

# Three §1.3.1 categories each subtype needs most (the type's row applies without a subtype).
_CATEGORY_PREFERENCE: Mapping[str, tuple[str, str, str]] = MappingProxyType({
    "EMPIRICAL": ("empirical", "pattern", "edge_case"),
    "CAUSAL": ("empirical", "pattern", "edge_case"),
    "DESCRIPTIVE": ("empirical", "pattern", "cross_domain"),
    "PREDICTIVE": ("pattern", "empirical", "edge_case"),
    "NORMATIVE": ("formal", "cross_domain", "creative"),
    "ETHICAL": ("formal", "cross_domain", "intractable"),
    "STRATEGIC": ("formal", "creative", "edge_case"),
    "DESIGN": ("creative", "formal", "decomposition"),
    "ANALYTICAL": ("formal", "edge_case", "pattern"),
    "LOGICAL": ("formal", "edge_case", "intractable"),
    "MATHEMATICAL": ("formal", "edge_case", "pattern"),
    "CONCEPTUAL": ("formal", "cross_domain", "decomposition"),
    "SYNTHETIC": ("cross_domain", "creative", "pattern"),
    "INTEGRATIVE": ("cross_domain", "pattern", "decomposition"),
    "CREATIVE": ("creative", "cross_domain", "intractable"),
    "EXPLANATORY": ("empirical", "cross_domain", "pattern"),
    "META": ("decomposition", "intractable", "formal"),
    "TRACTABILITY": ("intractable", "decomposition", "formal"),
    "FRAMING": ("formal", "creative", "intractable"),
    "DECOMPOSITION": ("decomposition", "formal", "edge_case"),
})


@dataclass(frozen=True, slots=True)
class DeploymentPlan:
    """A §1.3.3 batch sequence: `batches[i]` (agent ids, ascending) runs as `batch_names[i]`, in order.

    `persistent` agents run alongside every batch. `rules` lists, in order, every rule the plan applied.
    """

    problem_type: str
    subtype: str | None
    uncertainty: str
    stakes: str
    well_defined: bool
    batch_names: tuple[str, ...]
    batches: tuple[tuple[int, ...], ...]
    persistent: tuple[int, ...]
    genesis_categories: tuple[str, ...]
    verification_passes: int
    adversary_battery: str
    attack_rounds: int
    proceed_confidence: float
    final_confidence: float
    rules: tuple[str, ...]

    def batch(self, name: str) -> tuple[int, ...]:
        """The agents of the batch called `name`; KeyError when the plan has no such batch."""
        for batch_name, agents in zip(self.batch_names, self.batches, strict=True):
            if batch_name == name:
                return agents
        raise KeyError(name)

    def agents(self) -> tuple[int, ...]:
        """Every agent the plan deploys (persistent ones included), ascending, each once."""
        return tuple(sorted(set(chain(self.persistent, *self.batches))))

    def to_dict(self) -> dict[str, Any]:
        """The plan as JSON-ready data."""
        return {
            "problem_type": self.problem_type, "subtype": self.subtype, "uncertainty": self.uncertainty,
            "stakes": self.stakes, "well_defined": self.well_defined, "persistent": list(self.persistent),
            "batches": [{"name": n, "agents": list(a)} for n, a in zip(self.batch_names, self.batches, strict=True)],
            "genesis_categories": list(self.genesis_categories),
            "verification_passes": self.verification_passes, "adversary_battery": self.adversary_battery,
            "attack_rounds": self.attack_rounds, "proceed_confidence": self.proceed_confidence,
            "final_confidence": self.final_confidence, "agents": list(self.agents()), "rules": list(self.rules),
            "roster": [{"id": a, "name": roster.AGENTS[a].name, "tier": roster.AGENTS[a].tier} for a in self.agents()],
        }


def plan_deployment(
    problem_type: str, subtype: str | None, uncertainty: str, stakes: str, well_defined: bool = True
) -> DeploymentPlan:
    """PHI's deployment for a classified problem (§1.2 tree, §1.3 heuristics); ValueError on a bad input."""
    ptype, sub, unc, stk = _validated(problem_type, subtype, uncertainty, stakes)
    rules: list[str] = []
    priority = PRIORITY_AGENTS[ptype]
    rules.append(f"§1.2 {ptype} priority agents: {_ids(priority)}")
    batches: list[tuple[str, list[int]]] = []
    if not well_defined:
        batches.append(("Clarification", list(CLARITY_AGENTS)))
        rules.append(f"§1.2 not well defined: Clarification batch {_ids(CLARITY_AGENTS)} before Exploration")

    genesis, categories = _genesis(ptype, sub, unc, well_defined, priority, rules)
    exploration, overflow = genesis[:BATCH_CAPACITY], genesis[BATCH_CAPACITY:]
    batches.append(("Exploration", exploration))
    # The Formalizer always formalizes; the rest of the BRIDGE count shares batch 2 with the GENESIS overflow.
    bridge = _pick([*_of_tier(priority, "BRIDGE"), _FORMALIZER], _BRIDGE_ORDER,
                   min(_BRIDGE_COUNT[unc], BATCH_CAPACITY - len(overflow)))
    batches.append(("Formalization", bridge + overflow))
    rules.append(f"§1.3.3 Formalization: BRIDGE {_ids(bridge)}" + (f" + GENESIS overflow {_ids(overflow)}"
                                                                  if overflow else ""))

    verifiers = _pick(_of_tier(priority, "VERIFICATION"), _VERIFICATION_ORDER, _VERIFICATION_COUNT[stk])
    batches.append(("Verification", verifiers))
    attack, battery = _adversaries(priority, stk, rules)
    if battery == "FULL":
        half = (len(attack) + 1) // 2
        batches += [("Attack 1", attack[:half]), ("Attack 2", attack[half:])]
    else:
        batches.append(("Attack", attack))

    consensus = [_CONSENSUS_MAPPER] if unc != "LOW" else []
    meta = _pick([*_SYNTHESIS_META, *_of_tier(priority, "META"), *consensus], (), 0)
    final = verifiers[:min(_FINAL_VERIFIERS[stk], BATCH_CAPACITY - len(meta))]
    batches.append(("Synthesis", meta + final))
    passes = 2 if final else 1
    rules.append(f"{_source(stk)} stakes: {passes} VERIFICATION pass(es): {_ids(verifiers)}"
                 + (f", final pass {_ids(final)} in Synthesis (§1.3.3)" if final else ""))
    rules.append(f"§1.3.2 mandatory: Session Memory {roster.SESSION_MEMORY} persistent; Progress Monitor "
                 f"{roster.PROGRESS_MONITOR} and Quality Controller {roster.QUALITY_CONTROLLER} in Synthesis")
    rules.append(f"§1.3.3/A.3: at most {MAX_PARALLEL} agents in parallel; persistent {_ids(PERSISTENT)} holds a "
                 f"slot throughout, so at most {BATCH_CAPACITY} per batch")

    rounds = 2 if unc == "HIGH" else 1
    proceed = PROCEED_CONFIDENCE_HIGH_UNCERTAINTY if unc == "HIGH" else PROCEED_CONFIDENCE
    rules.append(f"{_source(unc)} uncertainty: {rounds} attack round(s); proceed to next tier at {proceed:.2f} (A.2)")
    rules.append(f"A.2/§6.1 {stk} stakes: final answer needs confidence > {FINAL_CONFIDENCE[stk]:.2f}")
    return DeploymentPlan(
        problem_type=ptype, subtype=sub, uncertainty=unc, stakes=stk, well_defined=well_defined,
        batch_names=tuple(name for name, _ in batches),
        batches=tuple(tuple(sorted(agents)) for _, agents in batches),
        persistent=PERSISTENT, genesis_categories=categories, verification_passes=passes,
        adversary_battery=battery, attack_rounds=rounds, proceed_confidence=proceed,
        final_confidence=FINAL_CONFIDENCE[stk], rules=tuple(rules),
    )


def _validated(
    problem_type: str, subtype: str | None, uncertainty: str, stakes: str
) -> tuple[str, str | None, str, str]:
    def word(value: object, what: str, allowed: tuple[str, ...]) -> str:
        text = value.strip().upper() if isinstance(value, str) else None
        if text not in allowed:
            raise ValueError(f"{what} must be one of {'|'.join(allowed)}, got {value!r}")
        return text

    ptype = word(problem_type, "problem_type", tuple(PROBLEM_TYPES))
    sub = None
    if subtype is not None:
        sub = subtype.strip().upper() if isinstance(subtype, str) else None
        if sub not in PROBLEM_TYPES[ptype]:
            # the valid subtypes of the type given, whatever was wrong with the subtype
            owner = next((t for t, subs in PROBLEM_TYPES.items() if sub in subs), None)
            where = f"belongs to {owner}, not {ptype}" if owner else f"is not a subtype of {ptype}"
            raise ValueError(f"subtype {sub if owner else repr(subtype)} {where} (allowed: "
                             f"{'|'.join(PROBLEM_TYPES[ptype])} or None)")
    return ptype, sub, word(uncertainty, "uncertainty", LEVELS), word(stakes, "stakes", LEVELS)


def _genesis(
    ptype: str, sub: str | None, unc: str, well_defined: bool, priority: tuple[int, ...], rules: list[str]
) -> tuple[list[int], tuple[str, ...]]:
    """GENESIS agents in selection order (required first), and the §1.3.1 categories they cover."""
    low, high = GENESIS_RANGE[unc]
    count = low if well_defined else low + _ILL_DEFINED_EXTRA
    preferred = _CATEGORY_PREFERENCE[sub or ptype]
    order = [*preferred, *(c.key for c in roster.GENESIS_CATEGORIES if c.key not in preferred)]
    clarity = [] if well_defined else _of_tier(CLARITY_AGENTS, "GENESIS")
    chosen = _pick([*clarity, *_of_tier(priority, "GENESIS")], (), 0)
    for key in preferred:  # §1.3.2: at least 3 GENESIS agents from different categories
        if not any(roster.genesis_category(a).key == key for a in chosen):
            chosen.append(next(a for a in roster.category(key).agents if a not in chosen))
    # Round-robin over the categories, so the rest of the count stays as diverse as it can be.
    rounds = zip_longest(*(roster.category(key).agents for key in order))
    fill = [a for a in chain.from_iterable(rounds) if a is not None]
    chosen = _pick(chosen, fill, count)
    covered = tuple(key for key in order if any(roster.genesis_category(a).key == key for a in chosen))
    rules.append(f"{_source(unc)} uncertainty: {len(chosen)} GENESIS agents (range {low}-{high}"
                 + ("" if well_defined else f", +{_ILL_DEFINED_EXTRA} as the problem is not well defined") + ")")
    rules.append(f"§1.3.1 GENESIS categories for {sub or ptype}: preferred {', '.join(preferred)}; covered "
                 f"{', '.join(covered)}")
    return chosen, covered


def _adversaries(priority: tuple[int, ...], stakes: str, rules: list[str]) -> tuple[list[int], str]:
    required = _pick([roster.STEELMAN_ATTACKER, *_of_tier(priority, "ADVERSARY")], (), 0)
    if stakes == "HIGH":
        attack, battery = list(roster.TIER_RANGES["ADVERSARY"]), "FULL"
        rules.append(f"§1.2 HIGH stakes: full ADVERSARY battery {_ids(attack)} in two batches")
    elif stakes == "MEDIUM":
        attack = _pick([*required, _SURVIVOR_SYNTHESIZER], _ADVERSARY_ORDER, _STANDARD_ADVERSARIES)
        battery = "STANDARD"
        rules.append(f"{_source(stakes)} stakes: standard ADVERSARY battery {_ids(attack)}")
    else:
        attack, battery = required, "ABBREVIATED"
        rules.append(f"§1.2 LOW stakes: abbreviated ADVERSARY {_ids(attack)} (Steelman Attacker "
                     f"{roster.STEELMAN_ATTACKER} + the type's priority adversaries)")
    return attack, battery


def _pick(required: list[int] | tuple[int, ...], fill: tuple[int, ...] | list[int], count: int) -> list[int]:
    """`required` (deduplicated, in order), then agents of `fill` not yet in, until there are `count`."""
    chosen: list[int] = []
    for agent_id in chain(required, fill):
        if agent_id not in chosen and (len(chosen) < count or agent_id in required):
            chosen.append(agent_id)
    return chosen


def _source(level: str) -> str:
    return "MEDIUM (not in §1.2, between LOW and HIGH)" if level == "MEDIUM" else f"§1.2 {level}"


def _of_tier(agents: tuple[int, ...], tier: str) -> list[int]:
    return [a for a in agents if roster.tier_of(a) == tier]


def _ids(agents: tuple[int, ...] | list[int]) -> str:
    return ", ".join(str(a) for a in sorted(agents))
