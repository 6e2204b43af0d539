"""Every number the OMEGA-57 session judge uses: Appendix A.2 thresholds, A.3 limits, the §4.1.1 signature
thresholds, the §2.3 propagation factors and the defaults the spec leaves open, in one overridable record.

The spec names the §2.3 factors but gives no values; the defaults below are this project's choices and are
documented field by field. Override with `dataclasses.replace(DEFAULTS, coherence_factor=0.95)`.
"""

from __future__ import annotations

from dataclasses import dataclass

STAKES = ("HIGH", "MEDIUM", "LOW")
"""§1.2 / §6.1 stakes levels."""


@dataclass(frozen=True, slots=True)
class Parameters:
    """The judge's parameters; every field documents its source (spec section or "project choice")."""

    # ---- Appendix A.2: confidence thresholds
    high_stakes_threshold: float = 0.80
    """A.2 / §6.1.2: overall confidence a HIGH-stakes final answer must exceed."""
    medium_stakes_threshold: float = 0.60
    """A.2 / §6.1.2: overall confidence a MEDIUM-stakes final answer must exceed."""
    low_stakes_threshold: float = 0.40
    """A.2 / §6.1.2: overall confidence a LOW-stakes final answer must exceed."""
    proceed_threshold: float = 0.50
    """A.2 "proceed to next tier": a partial answer at or above it still counts as medium confidence (§4.3)."""
    usable_threshold: float = 0.30
    """A.2 "agent output usable": an output below it is an agent (coherence) failure."""
    system_concern_threshold: float = 0.20
    """A.2 "system-level concern" / §6.2: aggregate confidence below it is an irrecoverable collapse."""

    # ---- Appendix A.3: iteration limits
    max_full_cycles: int = 10
    """A.3 / §6.2: iterations allowed; the 10th may still succeed, nothing runs after it."""
    max_agents_per_batch: int = 10
    """A.3 / §1.3.3: distinct agents per batch (recorded per batch in the session state)."""
    max_consecutive_failures: int = 3
    """A.3: consecutive failures of one agent before escalation (SERIOUS; HALT if it has no substitute)."""
    max_unresolved_contradictions: int = 3
    """A.3: unresolved contradictions of any severity beyond which a cascade is forming (SERIOUS)."""
    progress_stall_threshold: int = 2
    """A.3 / §4.1.1: N consecutive iterations without new claims is circular reasoning."""

    # ---- §4.1.1: signature thresholds
    collapse_threshold: float = 0.30
    """§4.1.1 confidence collapse: aggregate confidence strictly below it."""
    cascade_fatal_limit: int = 3
    """§4.1.1 contradiction cascade: more than this many FATAL contradictions unresolved."""
    divergence_iterations: int = 2
    """§4.1.1 convergence failure: the solution space grew in more than this many consecutive iterations."""
    resource_pressure: float = 0.80
    """§4.1.1 resource exhaustion: usage strictly above this share of the token, time or iteration budget."""
    quality_gate_rejections: int = 2
    """§4.1.1 quality gate failure: more than this many consecutive Quality Controller rejections."""

    # ---- §2.3: confidence propagation factors (values are project choices)
    coherence_factor: float = 0.90
    """Rule 1: min of the premises times this, for a conclusion drawn from two or more premises."""
    attack_weight: float = 0.50
    """Rule 3: survival_factor = 1 - attack_weight * attacker confidence (QUALIFIES counts half)."""
    decisive_attack_weight: float = 1.00
    """Rule 3: the weight instead for an attack flagged `blocks_progress`, so survival spans all of [0, 1]."""
    verification_factor_min: float = 0.50
    """Rule 4: verification_factor of a fully confident refutation."""
    verification_factor_max: float = 1.50
    """Rule 4: verification_factor of a fully confident confirmation (the result is capped at 1.0)."""
    independence_factor: float = 0.85
    """Rule 5: the factor when every agreeing agent is of one tier (fully correlated reasoning); it rises
    linearly to 1.0 as the agreeing agents span distinct tiers."""
    default_claim_confidence: float = 0.50
    """Base confidence of a referenced claim whose author has not spoken yet (the A.2 "proceed" midpoint)."""

    # ---- defaults the spec leaves open (project choices)
    default_stakes: str = "MEDIUM"
    """Stakes when PHI's INITIAL message states none."""
    default_token_budget: int = 2_000_000
    """Token budget when PHI states none (about ten full cycles of ~40 messages of ~5k tokens)."""
    default_time_budget_seconds: int = 4 * 3600
    """Time budget in seconds when PHI states none."""

    def threshold_for(self, stakes: str) -> float:
        """The §6.1 final-answer threshold of a stakes level (the default stakes' threshold if unknown)."""
        by_stakes = {"HIGH": self.high_stakes_threshold, "MEDIUM": self.medium_stakes_threshold,
                     "LOW": self.low_stakes_threshold}
        return by_stakes.get(stakes, by_stakes.get(self.default_stakes, self.medium_stakes_threshold))


DEFAULTS = Parameters()
"""The spec's values and the project's defaults."""
