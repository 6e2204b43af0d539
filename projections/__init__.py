"""Memory projections: the OMEGA-57 memories (Session 53, Pattern 54, Failure 55, Success 56, spec §3) and the live
read models, rebuilt from the log into a read model, in floors: pure rules below, storage and serving above.

    memories/       the pure memory rules: event -> memory, no store, clock or I/O
    live/           the live read models (episodes, session status, alert feed): reducers, tables, views, page
    store/          the read-model stores: SQLite and PostgreSQL over one shared SQL base; they only store
    http/           the FastAPI read API, one APIRouter per resource
    batches         reduce_batch: a batch's events through the reducers, skipped when at or before the position
    projector       Projector: cached memories, the reducers called per batch, the batch handed to the store
    runner          Runner: an EventSource (FileSource here, Kafka in the shell) fed to the projector
    metrics         ProjectorMetrics: `omega project`'s Prometheus counters
The live page's assets are package data under static/. Floors, bottom up: memories/ (imports only `omega`), the
live reducers, store/, batches and projector, runner, http/ (tests/unit/projections/test_layering.py); this
package never imports `streams`.
"""
