"""The shell around the pure core: Kafka in, the core's judgement, Kafka out; and the same judgement embedded.

    settings        Settings: every OMEGA_* environment value, read once and checked
    topics          the topic contract (TopicSpec per logical topic, names with their prefix)
    logs            structlog set-up (JSON lines; repeated lines thinned)
    auth_policy     the packet signature key policy (YAML/JSON) -> omega.packets.authenticity.AuthPolicy
    records         key_text, json_view (bytes by omega.bytes_json), details_decoded: one view of records
    replay/         embedded replay, no broker (its own map: inputs, replayer, jobs)
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
        avro_writer     generated Avro binary writers: the fast path of SchemaRegistry.encode
        avro_reader     generated Avro binary readers: the fast path of SchemaRegistry.decode
        avro_codegen    what the generated writers and readers share
    kafka/          the broker side, no stages
        transport       Faust's consumer with a bounded long-poll and the input-order check
        input_order     InputOrder: a partition's next record only (rewinds and gaps named)
        offset_probe    OffsetProbe: the first stored offset at or after a position
        partitioning    partition_of: the Java client's murmur2 partitioner
        clients         ensure_topics, publish_records, tail_topic (aiokafka)
        projection_source   the projector's Kafka source
        tracing         W3C trace context: an input's traceparent carried to its outputs, hop by hop
        otel            optional OpenTelemetry export of the worker's spans (OTEL_EXPORTER_OTLP_ENDPOINT)
    worker/         the Faust app
        app             create_app: tables, OmegaApp, one AgentSpec row per agent, the one agent loop
        guard           run_guarded: one record's step, its failures as dead letters (unexpected errors, oversize)
        watchdog        the stall watch: waiting work unmoved too long stops the worker
        gc_pauses       GcPauses: survivors of full collections frozen, so a collection pauses ~20 ms, not ~150
        wire            the Schema Registry edges: registry-framed inputs resolved, outputs framed (OMEGA_AVRO_WIRE)
        idle_release    IdleRelease: a quiet packets partition's waiting packets released (OMEGA_IDLE_RELEASE_MS)
        write_behind    WriteBehind: a table written once per key per batch (OMEGA_BATCH_MAX > 1)
        metrics         WorkerMetrics: Prometheus /metrics, /healthz and the status page
        web_urls        where the worker's web server answers (logged once it listens)
        event_loop      uvloop or the standard library's event loop
    http/           OpenAI-compatible HTTP clients
        client          one chat-completions client on httpx
        llm             the DS005 fact extractor's LLM (`complete(prompt, options)`)
        judge           the optional semantic entailment judge of grounding
    cli/            the `omega` command, one module per command group
        main            the groups and their commands (`__main__`: `python -m streams.cli`)
        options         the exit codes and the options several commands share; outputs_for, packet_stage_for
        replay          `omega replay`, `omega check packets`, `omega check messages` (files, no broker)
        kafka           `omega worker`, `omega publish`, `omega tail`
        topic_codec     recorded events <-> topic bytes for `omega publish` and `omega tail`
        memory          `omega project`, `omega memory show|serve|hash`, `omega check memories`
        answers         `omega ingest`, `omega ask`, `omega check answers|extraction` (DS005)
        grounding       `omega check grounding`
        oracle          `omega check oracle` (Phase Q)
        agents          `omega plan`: which OMEGA-57 agents to deploy
        auth            `omega sign packets` (HMAC-SHA256)
        schemas         `omega schemas register|export|check` (Schema Registry)
        watch           `omega watch`: the live view in a terminal
        checking        what every `omega check` shares: --format, --fail-on, the stderr summary
        conformance_report  `omega check packets --report`: the producer conformance report
        summary         the readable replay summary
        progress        progress bars, only when a person watches
Dependencies point one way: cli -> worker -> kafka, stages -> wire -> omega; stages/ and wire/ reach no Faust or
aiokafka, and kafka/ reaches no stage, not even through other modules (tests/unit/test_architecture.py).
"""
