"""Phase Q precision oracles A, B and C with a hashed evidence chain (spec: `seeds/phase-q-oracle-rules.md`,
`phase-q-pipeline.md`). Pure: no clock, randomness, logging, Kafka or Avro.

    report          judge_case: the three oracles, the worst verdict, the chain and result hash; CaseJudgement
                    (report line, CLI line, the `OracleVerdict` record) and build_report, the Phase Q report
    case            OracleCase, a case as the test set writes it (parse_case)
    config          OracleConfig: the thresholds, only from the config's named symbols
    view            CaseView: what every oracle reads about a case, computed once
    oracle_a        Oracle-A, the symbolic rules: one function per rule id
    oracle_b        Oracle-B, ablation and adversarial variants: one function per check id
    oracle_c        Oracle-C, cross-reference and format: one function per check id
    variants        Oracle-B's deterministic variants: negation, permutation, injection, truncation, substitution
    sourcing        fact sourcing (RULE-PREC-004) and the derivation rules DERIV-CONJ-001, DERIV-CANON-001
    canonical_form  DERIV-CANON-001: the canonical form of a claim and of a fact
    normalise       Q-INV-05 normalisation and the shared text primitives (segments, terms, numbers)
    evidence        Q-INV-06 traceability: one evidence record per step and the case's hashed chain
    model           Violation, RuleOutcome and OracleResult: what the oracles return
"""

__all__ = [
    "canonical_form", "case", "config", "evidence", "model", "normalise", "oracle_a", "oracle_b", "oracle_c",
    "report", "sourcing", "variants", "view",
]
