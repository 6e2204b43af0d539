"""The live read models (issue 25): OMEN episodes, OMEGA-57 session status and the alert feed.

    model           the pure reducers of the live documents and alert rows (LiveDelta)
    projection      LiveProjection: the projector's cache of live documents, undone when a batch fails
    tables          LiveTables: the live tables' DDL, writes and reads, mixed into the SQL store
    views           the live views over an open store (episodes, one episode, the alert feed, a session's status)
    page            the live page: `GET /`, its assets, Swagger UI and ReDoc
"""
