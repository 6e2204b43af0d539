"""The OMEGA-57 roster (Appendix A.1) and the deployment groupings of §1.3: tiers, mandatory agents, GENESIS
categories.

Matching rule for names and tiers: tolerant of letter case, of whitespace around the text and of how the words
are separated (runs of spaces, `_` and `-` are one separator), nothing else. Agents write names as identifiers
("steelman_attacker") or drop A.1's hyphens ("Counter Model Seeker"); that is surface wording, not another name
(issue 18: strict on what the spec makes normative, tolerant on surface wording). "  steelman attacker ",
"Steelman-Attacker" and "Steelman  Attacker" name agent 44; "Steelman" and "SteelmanAttacker" do not.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from omega.agents.model import TIERS

FIRST_AGENT_ID = 1
LAST_AGENT_ID = 57


@dataclass(frozen=True, slots=True)
class Agent:
    """One row of Appendix A.1."""

    id: int
    name: str
    tier: str
    function: str


_A1 = (
    (1, "First Principles", "GENESIS", "Top-down axioms"),
    (2, "Bottom-Up Builder", "GENESIS", "Bottom-up data"),
    (3, "Constraint Mapper", "GENESIS", "Solution space"),
    (4, "Decomposition Critic", "GENESIS", "Sub-problems"),
    (5, "Physics Analogist", "GENESIS", "Physics analogies"),
    (6, "Biology Analogist", "GENESIS", "Biology analogies"),
    (7, "Math Structure Hunter", "GENESIS", "Math patterns"),
    (8, "Cross-Domain Connector", "GENESIS", "Cross-domain"),
    (9, "Gut Intuition", "GENESIS", "Intuitive"),
    (10, "Pattern Recognizer", "GENESIS", "Patterns"),
    (11, "Salience Detector", "GENESIS", "What stands out"),
    (12, "Embodied Reasoner", "GENESIS", "Spatial"),
    (13, "Creative Wanderer", "GENESIS", "Unconstrained"),
    (14, "Insight Generator", "GENESIS", "Aha moments"),
    (15, "Contradiction Embracer", "GENESIS", "Contradictions"),
    (16, "Random Explorer", "GENESIS", "Random"),
    (17, "Limit Explorer", "GENESIS", "Extremes"),
    (18, "Degenerate Case Finder", "GENESIS", "Degenerate"),
    (19, "Boundary Mapper", "GENESIS", "Boundaries"),
    (20, "Forbidden Path Explorer", "GENESIS", "Taboo"),
    (21, "Formalizer", "BRIDGE", "Formalization"),
    (22, "Connection Finder", "BRIDGE", "Connections"),
    (23, "Information Analyst", "BRIDGE", "Information theory"),
    (24, "Systems Analyst", "BRIDGE", "Systems"),
    (25, "Emergence Detector", "BRIDGE", "Emergence"),
    (26, "Observer Effect Tracker", "BRIDGE", "Observer effects"),
    (27, "Chain Verifier", "VERIFICATION", "Logic chains"),
    (28, "Tree Verifier", "VERIFICATION", "Argument trees"),
    (29, "Proof Checker", "VERIFICATION", "Proofs"),
    (30, "Counter-Model Seeker", "VERIFICATION", "Counterexamples"),
    (31, "Gap Detector", "VERIFICATION", "Gaps"),
    (32, "Empirical Tester", "VERIFICATION", "Evidence"),
    (33, "Causal Verifier", "VERIFICATION", "Causation"),
    (34, "Uncertainty Quantifier", "VERIFICATION", "Uncertainty"),
    (35, "Skeptic", "ADVERSARY", "Premise attack"),
    (36, "Statistician", "ADVERSARY", "Evidence attack"),
    (37, "Historian", "ADVERSARY", "Historical attack"),
    (38, "Edge Attacker", "ADVERSARY", "Boundary attack"),
    (39, "Confounder", "ADVERSARY", "Causal attack"),
    (40, "Gap Hunter", "ADVERSARY", "Completeness attack"),
    (41, "Assumption Exposer", "ADVERSARY", "Assumption attack"),
    (42, "Alternative Generator", "ADVERSARY", "Uniqueness attack"),
    (43, "Deflator", "ADVERSARY", "Significance attack"),
    (44, "Steelman Attacker", "ADVERSARY", "Best-case attack"),
    (45, "Falsifier", "ADVERSARY", "Testability"),
    (46, "Survivor Synthesizer", "ADVERSARY", "Attack synthesis"),
    (47, "Clarity Optimizer", "META", "Definitions"),
    (48, "Progress Monitor", "META", "Progress"),
    (49, "Consensus Mapper", "META", "Consensus"),
    (50, "Conflict Resolver", "META", "Conflicts"),
    (51, "Synthesis Architect", "META", "Integration"),
    (52, "Quality Controller", "META", "Quality"),
    (53, "Session Memory", "MEMORY", "Session state"),
    (54, "Pattern Memory", "MEMORY", "Patterns"),
    (55, "Failure Memory", "MEMORY", "Failures"),
    (56, "Success Memory", "MEMORY", "Successes"),
    (57, "PHI", "PHI", "Orchestrator"),
)

AGENTS: Mapping[int, Agent] = MappingProxyType({row[0]: Agent(*row) for row in _A1})
"""Appendix A.1 keyed by agent id."""

TIER_RANGES: Mapping[str, range] = MappingProxyType({
    "GENESIS": range(1, 21),
    "BRIDGE": range(21, 27),
    "VERIFICATION": range(27, 35),
    "ADVERSARY": range(35, 47),
    "META": range(47, 53),
    "MEMORY": range(53, 57),
    "PHI": range(57, 58),
})
"""The id block of each tier (§2.5), in the tier order of `omega.agents.model.TIERS`."""

SESSION_MEMORY = 53
PROGRESS_MONITOR = 48
QUALITY_CONTROLLER = 52
MANDATORY_AGENTS = (SESSION_MEMORY, PROGRESS_MONITOR, QUALITY_CONTROLLER)
"""§1.3.2: deployed for every problem, whatever its type."""

STEELMAN_ATTACKER = 44


@dataclass(frozen=True, slots=True)
class GenesisCategory:
    """One row of the §1.3.1 GENESIS deployment matrix."""

    key: str
    characteristic: str
    agents: tuple[int, ...]


GENESIS_CATEGORIES: tuple[GenesisCategory, ...] = (
    GenesisCategory("formal", "Needs formal structure", (1, 3, 7)),
    GenesisCategory("empirical", "Needs empirical grounding", (2, 9, 12)),
    GenesisCategory("creative", "Needs creative solutions", (13, 14, 16)),
    GenesisCategory("cross_domain", "Needs cross-domain insight", (5, 6, 8)),
    GenesisCategory("edge_case", "Needs edge case analysis", (17, 18, 19)),
    GenesisCategory("pattern", "Needs pattern recognition", (10, 11)),
    GenesisCategory("intractable", "Is potentially intractable", (15, 20)),
    GenesisCategory("decomposition", "Has clear decomposition", (4,)),
)
"""§1.3.1 in the spec's row order; every GENESIS agent is in exactly one category."""

_CATEGORY_BY_KEY = {c.key: c for c in GENESIS_CATEGORIES}
_CATEGORY_OF_AGENT = {a: c for c in GENESIS_CATEGORIES for a in c.agents}
_SEPARATORS = re.compile(r"[\s_-]+")


def normalise(text: str) -> str:
    """The matching key of a name or tier: case folded, runs of spaces, `_` and `-` as one space, trimmed."""
    return _SEPARATORS.sub(" ", text).strip().casefold()


_BY_NAME = {normalise(row[1]): AGENTS[row[0]] for row in _A1}


def is_agent_id(value: object) -> bool:
    """True for an int (not a bool) in 1..57."""
    return isinstance(value, int) and not isinstance(value, bool) and FIRST_AGENT_ID <= value <= LAST_AGENT_ID


def agent(agent_id: int) -> Agent:
    """The roster row of `agent_id`; ValueError when it is not an agent id."""
    if not is_agent_id(agent_id):
        raise ValueError(f"{agent_id!r} is not an agent id ({FIRST_AGENT_ID}..{LAST_AGENT_ID})")
    return AGENTS[agent_id]


def agent_by_name(name: str) -> Agent | None:
    """The agent called `name` (case and surrounding whitespace ignored), or None."""
    return _BY_NAME.get(normalise(name))


def name_matches(agent_id: int, name: str) -> bool:
    """Whether `name` is the roster name of `agent_id` under the module's matching rule."""
    return is_agent_id(agent_id) and normalise(name) == normalise(AGENTS[agent_id].name)


def parse_tier(text: str) -> str | None:
    """The tier `text` names (case and surrounding whitespace ignored), in its canonical spelling, or None."""
    key = normalise(text)
    return next((tier for tier in TIERS if tier.casefold() == key), None)


def tier_of(agent_id: int) -> str:
    """The tier of `agent_id`."""
    return agent(agent_id).tier


def agents_in_tier(tier: str) -> tuple[int, ...]:
    """Agent ids of a tier, ascending; ValueError for an unknown tier."""
    canonical = parse_tier(tier)
    if canonical is None:
        raise ValueError(f"{tier!r} is not a tier ({'|'.join(TIERS)})")
    return tuple(TIER_RANGES[canonical])


def genesis_category(agent_id: int) -> GenesisCategory:
    """The §1.3.1 category of a GENESIS agent; ValueError for any other agent."""
    found = _CATEGORY_OF_AGENT.get(agent_id) if is_agent_id(agent_id) else None
    if found is None:
        raise ValueError(f"{agent_id!r} is not a GENESIS agent (1..20)")
    return found


def category(key: str) -> GenesisCategory:
    """The §1.3.1 category with this key; ValueError for an unknown key."""
    found = _CATEGORY_BY_KEY.get(key)
    if found is None:
        raise ValueError(f"{key!r} is not a GENESIS category ({', '.join(_CATEGORY_BY_KEY)})")
    return found
