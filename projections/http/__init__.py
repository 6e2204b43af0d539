"""The HTTP read API (FastAPI) over an open read-model store.

    app             create_app: the memories' routes, /health, /metrics, the live routes and the live page
    live_routes     the live routes: /episodes, /alerts (and its SSE stream), /sessions/{id}/status
"""
