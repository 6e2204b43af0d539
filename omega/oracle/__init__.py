"""Phase Q precision oracles A, B and C with a hashed evidence chain (spec: `seeds/phase-q-oracle-rules.md`,
`phase-q-pipeline.md`). Pure: no clock, randomness, logging, Kafka or Avro."""
