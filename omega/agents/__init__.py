"""OMEGA-57 orchestration monitor: `session.evolve(state, event) -> (state, outputs)`, one message at a time.

    session          evolve and replay: the session judge, alerts, escalations and the termination report out
    session_state    SessionState and its §3.1 records, with the JSON round trip of the Faust table
    session_mapping  how one accepted message changes the session state
    session_gates    the gates the §6 conditions read, from the agents the spec names (QC, gaps, steelman, ...)
    message_reading  an accepted message read tolerantly: agent ids, verdict tag, content items, batch, PHI's action
    records          records only: TerminationReport and TerminationMetrics (the §6.5 Avro record)
    termination      §6 success, failure and partial conditions, the §6.4 decision order, build_report
    failures         §4.1 failure signatures, their severities, recoveries and §4.4 escalation levels
    rules            §1.3 deployment rules and §1.3.4 iteration triggers as alerts
    confidence       §2.3 confidence propagation over the §2.2 references (ConfidenceBook)
    model            AgentMessage (the validated §2.1 message), MessageRejected, SessionEvent
    validation       validate_message: a §2.1 message block to an AgentMessage, or every reason it is not one
    message_fields   the blocks and keys of a §2.1 message; NORMATIVE: every refusable field with its spec line
    field_problems   why one field's value is not what §2.1 asks (agent id, timestamp, iteration, ...); kind_of
    messages         agent output text to messages; the `omega.agents.AgentMessage` record and its inverse
    documents        agent output text to JSON documents, read safely before any validation
    crossrefs        cross-references of a message (responding_to, inputs_used, contradiction_with), read tolerantly
    roster           the Appendix A.1 roster and the §1.3 groupings: tiers, mandatory agents, GENESIS categories
    limits           Parameters: every threshold and limit the judge uses, in one overridable record
    planner          PHI's deployment planner (§1.1-§1.4): problem classification in, DeploymentPlan out
The judgements (failures, rules, termination, session_mapping, session_gates) read `session_state`; it holds
records only (ConfidenceBook, `records`, `omega.events`) and imports none of them, so no import goes back.
"""

__all__ = [
    "confidence", "crossrefs", "documents", "failures", "field_problems", "limits", "message_fields",
    "message_reading", "messages", "model", "planner", "records", "roster", "rules", "session", "session_gates",
    "session_mapping", "session_state", "termination", "validation",
]
