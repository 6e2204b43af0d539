"""DS005 verifiable answers: chunks -> validated facts -> fact store -> plan, retrieval, backward chaining,
conflict detection -> the answer contract (§7). Pure and deterministic: no clock, randomness, I/O or logging.

    model         Chunk, Fact (§4.1), Rejection, QueryPlan (§5.1) and their JSON forms
    chunking      deterministic chunking with stable chunk ids
    extraction    §3 extraction: the LLM client protocol, the prompt and parser, the rule-based default
    validation    validate_and_filter: §4.1 schema, §4.2 vocabulary, §4.3 spans
    ingest        §2: text and metadata -> chunks -> extraction -> validation -> facts and rejections
    consistency   §8 extraction consistency (pairwise Jaccard over repeated runs)
    vocabulary    the §4.2 predicate vocabulary with argument types
    store         FactStore: an immutable, indexed fact set, queried by pattern with `?variables`
    planner       §5.2 plan_question: constrained question templates -> QueryPlan
    retrieval     §5.3 retrieve: a bounded, deterministically ranked candidate set
    reasoning     §6.1 backward chaining: direct support, then the rule library, bounded by depth
    rules         the hand-written §6.1 rule library for the default vocabulary
    evaluators    §6.2 evaluators: durations, timestamps, comparisons (None when unparseable)
    conflicts     §4.4 answer-time conflict detection
    answer        the §7 AnswerContract: plan -> backward chaining -> conflict check -> verdict with its chain
    records       the Fact and Answer records (schemas_avro/) of those JSON forms, and the answer id
    suite         an evaluation suite: build the store, answer every question, score the expectations
    text          text normalisation shared by extraction, validation and planning
    versions      one canonical form for versions
The JSON forms here are the spec's (camelCase); `records` builds their snake_case records (see the rule in
`omega`'s docstring).
"""

__all__ = [
    "answer", "chunking", "conflicts", "consistency", "evaluators", "extraction", "ingest", "model", "planner",
    "reasoning", "records", "retrieval", "rules", "store", "suite", "text", "validation", "versions", "vocabulary",
]
