"""The stores opened read-only (what the read commands use). SQLite: reads what a writer stored, never changes
the database file, refuses every write, creates nothing when the file is missing. PostgreSQL (its server is
integration territory): the session is made READ ONLY and no schema or table is created."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest

from projections.projector import Projector
from projections.store.base import ReadOnlyStoreError
from projections.store.postgres import PostgresStore
from projections.store.sqlite import SqliteStore
from projections.store.urls import open_store
from tests.unit.projections.factories import Log, session_script


def _written(path: Path) -> str:
    """A store file holding one session, closed; its content hash."""
    log = Log()
    log.extend(session_script("s1"))
    with SqliteStore(path) as store:
        Projector(store).process(log.events)
        return store.content_hash()


def test_a_read_only_store_reads_what_was_written_and_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    written = _written(path)
    before, mtime = path.read_bytes(), path.stat().st_mtime_ns
    with SqliteStore(path, read_only=True) as store:
        assert store.sessions() == ["s1"]
        assert set(store.session("s1")) == {"session", "pattern", "failure", "success"}
        assert store.content_hash() == written
        assert store.positions() != {}
    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == mtime


def test_a_write_through_a_read_only_store_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    written = _written(path)
    log = Log()
    log.extend(session_script("s2"))
    with SqliteStore(path, read_only=True) as store:
        with pytest.raises(ReadOnlyStoreError, match=r"SqliteStore\('.*m.sqlite', read_only=True\) is open read-only"):
            Projector(store).process(log.events)
        with pytest.raises(ReadOnlyStoreError, match="read-only"):
            store.reset()
        # SQLite refuses it as well: the connection itself is read-only, not only the store's methods
        with pytest.raises(sqlite3.OperationalError, match="readonly database"):
            store.connection.execute("DELETE FROM memory_documents")
        assert store.sessions() == ["s1"]
    with SqliteStore(path) as store:
        assert store.content_hash() == written


def test_a_read_only_store_on_a_missing_file_fails_and_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "typo" / "m.sqlite"
    with pytest.raises(sqlite3.OperationalError, match="unable to open"):
        SqliteStore(missing, read_only=True).open()
    assert not missing.parent.exists()


def test_a_read_only_store_on_a_file_without_the_tables_fails_and_creates_none(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        SqliteStore(empty, read_only=True).open()
    assert empty.read_bytes() == b""


def test_a_path_with_uri_characters_is_opened_as_that_file(tmp_path: Path) -> None:
    path = tmp_path / "a?b#c%20d.sqlite"
    written = _written(path)
    with SqliteStore(path, read_only=True) as store:
        assert store.content_hash() == written


def test_an_in_memory_store_cannot_be_read_only() -> None:
    with pytest.raises(ValueError, match="needs a file"):
        SqliteStore(":memory:", read_only=True)


def test_open_store_passes_read_only_on(tmp_path: Path) -> None:
    ro = open_store(f"sqlite:{tmp_path / 'm.sqlite'}", read_only=True)
    assert isinstance(ro, SqliteStore)
    assert ro.read_only
    rw = open_store(f"sqlite:{tmp_path / 'm.sqlite'}")
    assert isinstance(rw, SqliteStore)
    assert not rw.read_only


class FakeConnection:
    """Records the statements a PostgresStore sends; every query answers no rows."""

    def __init__(self) -> None:
        self.statements: list[str] = []

    def execute(self, statement: Any, params: Any = None) -> FakeConnection:
        self.statements.append(statement.as_string(None) if hasattr(statement, "as_string") else
                               statement.decode() if isinstance(statement, bytes) else str(statement))
        return self

    def cursor(self) -> Any:
        connection = self

        class Cursor:
            def __enter__(self) -> Cursor:
                return self

            def __exit__(self, *exc: object) -> None:
                return None

            def execute(self, statement: Any, params: Any = None) -> None:
                connection.execute(statement, params)

            def fetchall(self) -> list[Any]:
                return []

        return Cursor()

    def transaction(self) -> Any:
        from contextlib import nullcontext

        return nullcontext()

    def close(self) -> None:
        return None


def test_a_read_only_postgres_session_is_read_only_and_creates_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    conn = FakeConnection()
    monkeypatch.setattr(psycopg, "connect", lambda url, autocommit: conn)
    store = PostgresStore("postgresql://u@h/db", schema="s", read_only=True)
    store.open()
    assert conn.statements[0] == "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY"
    assert not [s for s in conn.statements if s.startswith("CREATE")]
    with pytest.raises(ReadOnlyStoreError, match=r"PostgresStore\(schema='s', read_only=True\) is open read-only"):
        store.reset()
    assert not [s for s in conn.statements if s.startswith(("TRUNCATE", "DELETE", "INSERT"))]


def test_a_writable_postgres_session_creates_its_schema_and_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    conn = FakeConnection()
    monkeypatch.setattr(psycopg, "connect", lambda url, autocommit: conn)
    PostgresStore("postgresql://u@h/db", schema="s").open()
    assert conn.statements[0] == 'CREATE SCHEMA IF NOT EXISTS "s"'
    assert "READ ONLY" not in " ".join(conn.statements)
    assert any(s.startswith("CREATE TABLE IF NOT EXISTS memory_documents") for s in conn.statements)
