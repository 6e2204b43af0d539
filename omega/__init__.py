"""Pure judgement core: no Kafka, Faust, asyncio, Avro, logging or clock imports."""

RULESET_VERSION = "omega-rules-0.2.0"  # 0.2: OMEN judged as its authors judge it (issue 17)
