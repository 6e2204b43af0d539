"""The read-model stores: they store what the projector hands them, one transaction per batch, and answer reads.

    protocol        ReadModelStore, Position, DocKey: what a store offers
    index_rows      the failure / success index rows a document implies, and a batch's changes to them
    base            SqlStore: the SQL and the connection handling both backends share
    sqlite          SqliteStore (embedded default, stdlib sqlite3)
    postgres        PostgresStore (psycopg 3)
    urls            open_store: a store from `sqlite:PATH` or `postgresql://...`
"""
