"""The shell around the pure core: Kafka in, the core's judgement, Kafka out; and the same judgement embedded.

    settings        Settings: every OMEGA_* environment value, read once and checked
    topics          the topic contract (TopicSpec per logical topic, names with their prefix)
    logs            structlog set-up (JSON lines; repeated lines thinned)
    auth_policy     the packet signature key policy (YAML/JSON) -> omega.packets.authenticity.AuthPolicy
    replay          Replayer: recorded files through the worker's own steps, tables as dicts
    replay_inputs   read_inputs: files, directories, gzip, stdin -> InputRecords in log order
    replay_jobs     `omega replay --jobs N`: the log split by partition key over processes, merged in input order
    producer_publish  the producer kit's I/O: packets to Kafka (keyed by correlation id) or JSONL; the wall clock
    stages/         Faust-free work per record: raw bytes + Source -> Emits
        base            Source, Emit, Outputs (the encoder all stages share: records, dead letters), strict JSON
        keyed           KeyedTable (a Faust table or a dict), put_checked (STATE_TOO_LARGE), DecodedCache
        packets         PacketStage: OMEN ingress (JSON -> Avro), packet judgement, watermark ticks; IngressSteps
        episodes        EpisodeSteps: the validator's step over the episodes table (ledgers + judgements)
        lateness        WaitingRoom: packets waiting for their partition's watermark (OMEGA_MAX_LATENESS_MS > 0)
        messages        MonitorStage, SessionSteps: OMEGA-57 agent output -> messages, session judgement
        oracle          OracleStage: Phase Q requests -> oracle verdicts
        answers         AnswersStage, FactSteps, FactStoreView: DS005 documents, facts, questions
        grounding       GroundingStage, GroundingSteps: Atomic Facts and paragraph requests
        corpus          the corpus key shared by the DS005 and grounding topics
        keys            natural_key: the key each input topic's records should carry (`omega publish` keys by it)
    wire/           bytes on the topics
        codec           SchemaRegistry: Avro single-object encoding (fastavro), fingerprints
        avro_json       JSON <-> Avro datum conversion with readable errors: compile_schema, records
        avro_nodes      its nodes for every other Avro type (primitives, enum, array, map, unions, free JSON)
        avro_compiled   a record's field loop generated as straight-line code (the fast path of to_avro)
        omen_avro       PacketConverter: OMEN packet JSON <-> its Avro record
        confluent       RegistryFraming: Schema Registry framing (0x00 + id) <-> single-object, subject names
    kafka/          the broker side, no stages
        transport       Faust's consumer with a bounded long-poll and the input-order check
        input_order     InputOrder: a partition's next record only (rewinds and gaps named)
        offset_probe    OffsetProbe: the first stored offset at or after a position
        partitioning    partition_of: the Java client's murmur2 partitioner
        clients         ensure_topics, publish_records, tail_topic (aiokafka)
        projection_source   the projector's Kafka source
    worker/         the Faust app
        app             create_app: tables, OmegaApp, one AgentSpec row per agent, the one agent loop
        guard           run_guarded: one record's step, its failures as dead letters (unexpected errors, oversize)
        watchdog        the stall watch: waiting work unmoved too long stops the worker
        gc_pauses       GcPauses: survivors of full collections frozen, so a collection pauses ~20 ms, not ~150
        wire            the Schema Registry edges: registry-framed inputs resolved, outputs framed (OMEGA_AVRO_WIRE)
        idle_release    IdleRelease: a quiet packets partition's waiting packets released (OMEGA_IDLE_RELEASE_MS)
    http/           OpenAI-compatible HTTP clients (the DS005 extractor's LLM, the grounding judge)
    cli/            the `omega` command, one module per command group
Dependencies point one way: cli -> worker -> kafka, stages -> wire -> omega; stages/ and wire/ import no Faust or
aiokafka, and kafka/ imports no stages (tests/unit/test_architecture.py).
"""
