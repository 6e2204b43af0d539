"""The grounded-generation contract: sentence-level PASS/FAIL against cited Atomic Facts, refusal, audit.

    paragraph     verify_paragraph and evolve: a paragraph version's verdict (§6.2) and its state across versions
    verdict       verify_sentence: every §6.1 check in order, PASS or FAIL; SentenceVerdict and its record
    request       ParagraphRequest: the paragraph to verify, read from the generator's JSON
    facts         AtomicFact with provenance, validated on entry (parse_fact, fact_from_record)
    model         the failure-mode codes, Failure with its fixing evidence, CONTRACT_VERSION
    audit         audit_record (the §10 GroundingAuditEvent) and reconstruct, a paragraph's history from them
    metrics       contract_metrics of a labelled evaluation
    judge         the optional semantic judge: EntailmentJudge protocol (served by the shell) and its bound
    citations     §3.3 inline attribution, "citation presence" and uncited fact use
    entailment    "semantic entailment", decided deterministically
    numeric       "numerical accuracy": every number of a sentence is a number of its cited facts
    qualifiers    "qualifier integrity": no qualifier added, dropped or altered
    scope         "scope and strength fidelity": no claim stronger or wider than its facts
    conflicts     §9 and G-5: conflicting facts refused (cited, or allowed and one adopted), both with attribution pass
    rephrasing    §5.1 rephrasing: lemmas (lemminflect), WordNet 3.0 synonyms and derived forms (data/wordnet-3.0.tsv)
    frames        roles and comparisons bound: reversed comparisons, swapped roles
    frame_reading a clause read as frames: a comparison's two sides, a predicate's agent, patient and baseline
    agency        a change given an agent the facts only place in sequence (strengthening)
    groups        values bound to their groups: a number moved to another arm, version or year
    group_names   the words that name a value's group, and where a group's name starts and ends
    clause_values a value moved between a fact's clauses, by name or by direction
    explain       §7.1 failure reasons: the clause and the scoped evidence needed
    memo          per-object memos of what checks derive from a fact
    binding       clause-local relation binding (issue 19, rule 1)
    modifiers     rank, order, frequency and proportion modifiers as content (issue 19, rule 3)
    names         names a fact states in another form (issue 19, rule 5)
    quantities    numbers with their units, as a sentence or a fact states them
    tokens        tokens and their normal form, the basis of entailment (analyse)
    words         surface normalisation, the tokeniser and a text's clauses
"""

__all__ = [
    "agency", "audit", "binding", "citations", "clause_values", "conflicts", "entailment", "explain", "facts",
    "frame_reading", "frames", "group_names", "groups", "judge", "memo", "metrics", "model", "modifiers", "names",
    "numeric", "paragraph", "qualifiers", "quantities", "rephrasing", "request", "scope", "tokens", "verdict",
    "words",
]
