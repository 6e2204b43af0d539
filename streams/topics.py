"""Every topic in one place: its logical name, key, value schema, producer and consumer (docs/concepts.md's table)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TopicSpec:
    """One topic of the contract. `value_schema` None means raw JSON bytes."""

    logical: str
    name: str
    key: str
    value_schema: str | None
    producer: str
    consumer: str


PACKETS_JSON = TopicSpec("packets_json", "omen.packets.json", "producer's choice (ideally correlation_id)", None,
                         "OMEN producers (JSON)", "ingress agent")
PACKETS = TopicSpec("packets", "omen.packets", "correlation_id", "omega.omen.Packet",
                    "ingress agent; Avro producers", "packet validator agent")
VERDICTS = TopicSpec("verdicts", "omen.verdicts", "correlation_id", "omega.events.PacketVerdict",
                     "packet validator agent", "alerting consumers, projections")
ALERTS = TopicSpec("alerts", "omega.alerts", "episode or session id", "omega.events.Alert",
                   "validator and monitor agents", "on-call consumers, projections")
ESCALATIONS = TopicSpec("escalations", "omega.escalations", "episode or session id", "omega.events.Escalation",
                        "validator and monitor agents", "humans / Layer 1")
DEAD_LETTERS = TopicSpec("dead_letters", "omega.deadletters", "source topic", "omega.events.DeadLetter",
                         "every agent", "operators")

AGENT_MESSAGES_RAW = TopicSpec("agent_messages_raw", "omega57.messages.raw", "session_id", None,
                               "OMEGA-57 agents (YAML or JSON text, one or more messages)", "session monitor agent")
AGENT_MESSAGES = TopicSpec("agent_messages", "omega57.messages", "session_id", "omega.agents.AgentMessage",
                           "session monitor agent (accepted messages, canonical)", "memory projections")
TERMINATIONS = TopicSpec("terminations", "omega57.terminations", "session_id", "omega.agents.TerminationReport",
                         "session monitor agent", "PHI, users, memory projections")

ORACLE_REQUESTS = TopicSpec("oracle_requests", "phaseq.requests", "case id", None,
                            "Phase Q clients (a test-set line as JSON)", "oracle agent")
ORACLE_VERDICTS = TopicSpec("oracle_verdicts", "phaseq.verdicts", "case id", "omega.oracle.OracleVerdict",
                            "oracle agent", "Phase Q scorers and reports")

DOCUMENTS = TopicSpec("documents", "ds005.documents", "docId", None,
                      "DS005 clients ({docId, version?, text, facts?} as JSON)", "documents agent")
FACTS = TopicSpec("facts", "ds005.facts", "corpus", "omega.answers.Fact",
                  "documents agent", "facts agent (the facts table, keyed corpus/fact id)")
QUESTIONS = TopicSpec("questions", "ds005.questions", "corpus", None,
                      "DS005 clients ({id?, question, plan?, version?} as JSON)", "questions agent")
ANSWERS = TopicSpec("answers", "ds005.answers", "question id", "omega.answers.Answer",
                    "questions agent", "DS005 clients and scorers")

GROUNDING_FACTS = TopicSpec("grounding_facts", "grounding.facts", "corpus", None,
                             "fact extractors and users (a §3.1 Atomic Fact as JSON)", "grounding facts agent")
GROUNDING_REQUESTS = TopicSpec("grounding_requests", "grounding.requests", "corpus", None,
                               "paragraph generators and editors (JSON)", "grounding verifier agent")
GROUNDING_VERDICTS = TopicSpec("grounding_verdicts", "grounding.verdicts", "paragraph_id",
                               "omega.grounding.GroundingVerdict", "grounding verifier agent", "UIs, scorers")
GROUNDING_AUDIT = TopicSpec("grounding_audit", "grounding.audit", "paragraph_id", "omega.grounding.GroundingAuditEvent",
                            "grounding verifier agent", "audit projections (§10)")

ALL_TOPICS: tuple[TopicSpec, ...] = (PACKETS_JSON, PACKETS, VERDICTS, ALERTS, ESCALATIONS, DEAD_LETTERS,
                                     AGENT_MESSAGES_RAW, AGENT_MESSAGES, TERMINATIONS,
                                     ORACLE_REQUESTS, ORACLE_VERDICTS,
                                     DOCUMENTS, FACTS, QUESTIONS, ANSWERS,
                                     GROUNDING_FACTS, GROUNDING_REQUESTS, GROUNDING_VERDICTS, GROUNDING_AUDIT)
BY_LOGICAL = {t.logical: t for t in ALL_TOPICS}


def topic_name(spec: TopicSpec, prefix: str = "") -> str:
    """The physical topic name under an optional prefix (tests isolate themselves with one)."""
    return f"{prefix}{spec.name}"


# Who may write what (the broker's ACLs, `deploy/kafka/kafka.sh acls`). INPUTS are written by clients (the
# producer principal), OUTPUTS by the worker; `packets` is both (Avro producers and the ingress agent).
INPUTS: tuple[TopicSpec, ...] = (PACKETS_JSON, PACKETS, AGENT_MESSAGES_RAW, ORACLE_REQUESTS, DOCUMENTS, QUESTIONS,
                                 GROUNDING_FACTS, GROUNDING_REQUESTS)
OUTPUTS: tuple[TopicSpec, ...] = tuple(t for t in ALL_TOPICS if t not in INPUTS or t is PACKETS)
ROLES: dict[str, tuple[TopicSpec, ...]] = {"inputs": INPUTS, "outputs": OUTPUTS, "all": ALL_TOPICS}


def main(argv: list[str] | None = None) -> None:
    """`python -m streams.topics inputs|outputs|all [--prefix P]`: the physical names, one per line."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m streams.topics", description=main.__doc__)
    parser.add_argument("role", choices=sorted(ROLES))
    parser.add_argument("--prefix", default="")
    args = parser.parse_args(argv)
    for spec in ROLES[args.role]:
        print(topic_name(spec, args.prefix))  # noqa: T201 - this is the command's output


if __name__ == "__main__":
    main()
