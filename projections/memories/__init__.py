"""The pure memory rules: each reducer is `apply(memory | None, event) -> memory`, with no store, clock or I/O.

    log_events      LogEvent, the envelope the runner hands over, and readers of its JSON-text fields
    documents       memory documents: canonical JSON text, copy-on-write editing (Draft, edited), sorted lists, KINDS
    content         readers of an agent message's content items (hypotheses, statements, contradiction severity)
    triggers        what an event triggers in the specialised memories (§3.5 rules 2-4), decided once
    session_memory  Session Memory (agent 53): the timeline, problem, decisions, commitments, evidence
    session_hypotheses  Session Memory's hypotheses: proposed, supported, resolved, abandoned
    pattern_memory  Pattern Memory (agent 54)
    failure_memory  Failure Memory (agent 55)
    success_memory  Success Memory (agent 56)
    combined        the four together (Memories, apply_all, REDUCERS)
    consistency     check_consistency: the §3.5.5 cross-memory rules
"""
