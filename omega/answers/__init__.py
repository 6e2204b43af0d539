"""DS005 verifiable answers: chunks -> validated facts -> fact store -> plan, retrieval, backward chaining,
conflict detection -> the answer contract (§7). Pure and deterministic: no clock, randomness, I/O or logging."""
