"""The HTTP read API (FastAPI) over an open read-model store: one APIRouter per resource, put together by
`app.read_model_api`; reads only.

    app             read_model_api: every router and the live page over one shared store
    reading         Reading: the store lent behind a lock to the request threads; read_checked (422), read_found
                    (404); the error answers (Problem)
    operations      /health and /metrics (LagProbe, metrics_text)
    memories        /sessions and a session's memories
    entries         /failures and /successes across sessions
    consistency     /consistency: the §3.5.5 cross-memory violations of every session
    live_models     the response models of the live resources
    live_queries    the query parameters the live resources share (severity, since, page size, cursor)
    episodes        /episodes and /episodes/{id}
    alerts          /alerts and /alerts/stream (Server-Sent Events)
    session_status  /sessions/{id}/status
"""
