"""The gates the §6 conditions read: what the agents the spec names said in their last messages (QC's verdict,
convergence, gaps, the survivable core, the steelman, intractability, PHI's answer and action).
"""

from __future__ import annotations

from omega.agents.message_reading import (
    CONFLICT,
    FALSIFIER,
    GAP_AGENTS,
    PHI,
    PROGRESS,
    QC,
    STEELMAN,
    SURVIVOR,
    SYNTHESIS,
    content_of,
    items,
    phi_action,
    text_of,
    verdict_tag,
)
from omega.agents.model import AgentMessage
from omega.agents.session_state import Gates
from omega.records import replace

QC_VERDICTS = ("SHIP", "SHIP WITH CAVEATS", "REJECT")
GAPS_CLEAR_TAGS = ("NO CRITICAL GAPS", "COMPLETE", "NO GAPS")
GAPS_OPEN_TAGS = ("GAPS FOUND", "CRITICAL GAPS", "CRITICAL GAP")
SURVIVES_TAGS = ("SURVIVABLE CORE", "SURVIVES")
DEFEATED_TAGS = ("DEFEATED", "ATTACK SUCCEEDED")
INTRACTABLE_TAGS = ("UNDECIDABLE", "UNAVAILABLE", "INTRACTABLE")


def gates(g: Gates, message: AgentMessage) -> Gates:
    """The facts §6 reads, from the agents the spec names (see the session module docstring)."""
    tag, content, agent, it = verdict_tag(message.verdict), content_of(message), message.agent_id, message.iteration
    blocks = message.flags.blocks_progress
    if agent == QC:
        qc = str(content.get("qc_verdict", tag or "")).strip().upper()
        if qc in ("SHIP", "SHIP WITH CAVEATS"):
            caveats = tuple(str(c) for c in items(content.get("caveats")))
            g = replace(g, qc_verdict=qc, qc_iteration=it, qc_consecutive_rejections=0, qc_caveats=caveats)
        elif qc == "REJECT":
            g = replace(g, qc_verdict=qc, qc_iteration=it, qc_consecutive_rejections=g.qc_consecutive_rejections + 1)
    if agent == PROGRESS and (tag == "CONVERGED" or content.get("converged") is True):
        g = replace(g, converged_iteration=it)
    if agent in GAP_AGENTS:
        gaps = content.get("critical_gaps")
        count = len(gaps) if isinstance(gaps, list) else gaps if isinstance(gaps, int) and gaps is not True else None
        if tag in GAPS_CLEAR_TAGS or count == 0:
            g = replace(g, gaps_clear=True)
        elif tag in GAPS_OPEN_TAGS or (count is not None and count > 0):
            g = replace(g, gaps_clear=False)
    if agent == SURVIVOR:
        core = content.get("survivable_core")
        g = replace(g, survivable_core=core if isinstance(core, bool) else tag in SURVIVES_TAGS)
    if agent == STEELMAN:
        defeated = content.get("defeated")
        g = replace(g, steelman_defeated=defeated if isinstance(defeated, bool) else tag in DEFEATED_TAGS or blocks)
    if message.agent_tier == "ADVERSARY" and blocks:
        g = replace(g, blocking_attack_iteration=it)
    if agent == FALSIFIER and tag == "UNTESTABLE" and blocks:
        g = replace(g, untestable_critical=message.verdict)
    if tag in INTRACTABLE_TAGS and blocks:
        g = replace(g, intractable=message.verdict)
    if agent in (CONFLICT, PHI) and (tag == "UNRESOLVABLE" or content.get("unresolvable") is True):
        g = replace(g, unresolvable_declared=it)
    if message.agent_tier in ("META", "PHI"):
        answer = text_of(content, "answer")
        if answer is not None:
            g = replace(g, answer=answer, answer_by=agent)
        elif agent == SYNTHESIS and g.answer_by in (None, SYNTHESIS):
            g = replace(g, answer=message.verdict.split("|", 1)[0].strip(), answer_by=SYNTHESIS)
        if content.get("unanswerable") is True:
            g = replace(g, unanswerable=True)
    return replace(g, phi_action=phi_action(message)) if agent == PHI else g
