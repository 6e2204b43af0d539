"""OMEN v0.7 packet validation: `validator.evolve(ledger, packet) -> (ledger, outputs)`, one packet at a time.

    validator            evolve: the validator stages in the spec's order, verdicts and alerts out
    verdict              PacketVerdict (derived id, the `omega.events.PacketVerdict` record), status_of
    schema               check_schema: the structural check, interpreter plus compiled fast path (source_for)
    schema_rules         the structural rules of every packet type, written as data
    schema_vocabulary    the field-spec vocabulary the rules are written in: Str, Int, Obj, OneOf, req, opt, record
    schema_messages      the words of SCHEMA messages and the JSON types they name, as jsonschema has them
    schema_compile       compile_rules: the rule tables as straight-line predicates (imports no checker)
    authenticity         HMAC-SHA256 packet signatures and the AUTH rule
    invariants           INV-001..INV-012: the packet-local rules, one pure function per rule id; invariants_for
    invariants_episode   the invariants that need the episode ledger (INV-005, INV-007, INV-008)
    invariants_evidence  INV-004: no live claim without recent evidence, the verification it calls for exempt
    fsm                  fsm_step: the episode state machine's step and the enforcement rules E1-E7
    fsm_table            the FSM's states and transition table; where a packet leads, on the table or off it
    episode              how an accepted packet changes the ledger (usage, budgets, directives, approvals)
    ledger               EpisodeLedger: one record per correlation_id, what the validator keeps between packets
    judgements           Judgements: an episode's judged packets by id, an immutable mapping growing in O(1)
    lateness             event-time order within a bounded lateness: ripe waiting packets, late arrivals
    conformance          the producer conformance report: verdicts grouped by rule and field, fixes ordered
"""

__all__ = [
    "authenticity", "conformance", "episode", "fsm", "fsm_table", "invariants", "invariants_episode",
    "invariants_evidence", "judgements", "lateness", "ledger", "schema", "schema_compile", "schema_messages",
    "schema_rules", "schema_vocabulary", "validator", "verdict",
]
