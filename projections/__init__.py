"""Memory projections: the OMEGA-57 memories (Session 53, Pattern 54, Failure 55, Success 56, spec §3) rebuilt
from the log into a read model.

    events          LogEvent, the envelope the runner hands over, and readers of its JSON-text fields
    triggers        what an event triggers in the specialised memories (§3.5 rules 2-4), decided once
    session_memory, pattern_memory, failure_memory, success_memory
                    one pure reducer each: apply(memory | None, event) -> memory
    memories        the four together (Memories, apply_all)
    consistency     check_consistency: the §3.5.5 cross-memory rules
    store           the ReadModelStore protocol and the SQL both backends share
    sqlite_store    SqliteStore (embedded default), postgres_store: PostgresStore (psycopg 3)
    projector       Projector: cached memories, batched transactions with tracking positions, rebuild
Dependencies point one way: this package imports `omega`, never `streams`.
"""
