"""Pure judgement core: no Kafka, Faust, asyncio, Avro, logging or clock imports.

    bytes_json      bytes in JSON values ({"utf8"} / {"base64"}) and back: jsonable, unjsonable (both shells)
    canonical       canonical JSON and content hashes, the basis of every derived id (`derived_id`)
    counts          `summed`: a summary of counts and Counters added up from its parts (both shells merge them)
    eventtime       ISO-8601 event time from the data <-> epoch milliseconds; parsing only, no clock
    events          Alert and Escalation, the outputs every judge shares besides its verdicts
    records         `replace`, a fast `dataclasses.replace` for the core's frozen, slotted records
    strictjson      JSON text to values, strictly: NaN and Infinity refused (NonFiniteConstant)
    violations      Violation and Severity, the one shape every rule reports in
    packets         OMEN v0.7 packet validation: schema, authenticity, invariants, FSM, episode ledger, verdicts
    agents          the OMEGA-57 session judge: messages, roster, confidence, failures, rules, termination, planner
    grounding       the grounded-generation contract: sentence verdicts against cited Atomic Facts, audit
    answers         DS005 verifiable answers: facts, fact store, plans, backward chaining, the answer contract
    oracle          the Phase Q precision oracles A, B and C with their hashed evidence chain
    producer        the producer kit: typed OMEN packet builders and Episode (ids, chaining, clock, signing)
Dependencies point one way: `streams` and `projections` import this package, never the reverse; no import
cycle within it (tests/unit/test_architecture.py checks both).

One rule for where Avro-shaped records are built: in the core, next to the type they serialise. Every output
the core decides has its record built here as a plain dict matching its `schemas_avro/` record field for field
(`to_dict()` / `to_record()` / `*_record()`, with `*_from_record` beside it where the shell reads one back).
Why: the record is part of the decision. Its derived ids (verdict, alert, audit, report ids), the canonical
JSON text of open fields and its null conventions fix the bytes a replay must reproduce, so they are pure
functions of core values, pinned by core tests without a broker or fastavro, and a field added to a record and
to its builder changes in one place. The core still imports no Avro library and writes no wire notation (no
`(name, datum)` union branches). `streams/wire/` stays schema-generic: it validates and encodes any datum
against the registered schema, and converts inputs whose shape an outside spec owns (OMEN packets:
`PacketConverter`, compiled from the schema, not written field by field).
"""

__all__ = [
    "RULESET_VERSION",
    "agents", "answers", "bytes_json", "canonical", "counts", "events", "eventtime", "grounding", "oracle", "packets",
    "producer", "records", "strictjson", "violations",
]

RULESET_VERSION = "omega-rules-0.2.0"  # 0.2: OMEN judged as its authors judge it (issue 17)
