"""Pure judgement core: no Kafka, Faust, asyncio, Avro, logging or clock imports."""

RULESET_VERSION = "omega-rules-0.1.0"
