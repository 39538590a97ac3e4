"""A persistent store on PostgreSQL, for sessions shared across processes and machines.

:class:`PostgresContextStore` keeps the same contract, tables and archive as
:class:`~contextfold.stores.sqlite.SQLiteContextStore` (message content is JSON in a ``text``
column, since ``jsonb`` cannot hold NUL), on psycopg 3's async API. It accepts an
``AsyncConnection`` (statements from coroutines sharing it are serialised) or an
``AsyncConnectionPool`` (each operation borrows a connection for one transaction),
and guarantees, across any number of processes:

* appends to one session never lose or duplicate a message: each append takes the
  next number from the session row with ``INSERT … ON CONFLICT DO UPDATE … RETURNING``,
  which row-locks the session until the append commits;
* ``replace_history`` / ``replace_prefix`` / ``fork`` lock the same row (``FOR UPDATE``),
  so they never interleave with an append, and are one transaction;
* content round-trips exactly, NUL characters included; content JSON cannot
  represent (a NaN or infinite float in a tool input, say) raises :class:`ValueError`
  before anything is written, and a value the server refuses raises
  :class:`~contextfold.errors.StoreError`, never a psycopg exception;
* :meth:`PostgresContextStore.compaction_lock` is single-flight across processes, via
  ``pg_try_advisory_lock`` on a key derived from the session id (the server releases
  it when the holder's connection ends, so a dead holder blocks nobody);
* a compaction commits with :meth:`~PostgresContextStore.replace_snapshot`, a
  compare-and-swap on the snapshot it summarized: if another commit changed that
  range since (a holder whose lock was lost, a store without the lock), nothing is
  written (``tests/compaction/test_multiprocess.py``).

The schema is the SQLite store's, at the same :data:`SCHEMA_VERSION`; a database
recorded at a newer version raises :class:`~contextfold.errors.SchemaVersionError`.

Requires the ``postgres`` extra (``pip install 'contextfold[postgres]'``); without it,
importing this module raises :class:`ImportError` saying so.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias

from contextfold._cancel import finish
from contextfold._extras import requires_extra

with requires_extra("postgres", "contextfold.postgres"):
    import psycopg
    from psycopg import AsyncConnection

from contextfold.errors import StoreError
from contextfold.stores._connection_state import state_of
from contextfold.stores._sql.schema import (
    SCHEMA_VERSION,
    SQLSession,
    install_schema,
    upgrade_to_3,
)
from contextfold.stores._sql.store import SQLStore
from contextfold.stores.base import ArchivedMessage, CompactionRecord

if TYPE_CHECKING:
    from psycopg_pool import AsyncConnectionPool

__all__ = [
    "SCHEMA_VERSION",
    "ArchivedMessage",
    "CompactionRecord",
    "PostgresContextStore",
    "connect",
    "ensure_schema",
]

Connection: TypeAlias = "AsyncConnection[Any]"
Target: TypeAlias = "AsyncConnection[Any] | AsyncConnectionPool[Any]"

_SCHEMA_LOCK_KEY = 0x636F6E7465787466  # "contextf": serialises schema creation
_UPGRADES = {  # schema version -> statements to the next one
    # 1 -> 2: content from JSONB (which cannot hold U+0000) to JSON text.
    1: tuple(
        f"ALTER TABLE {table} ALTER COLUMN content TYPE TEXT USING content::text"
        for table in ("contextfold_messages", "contextfold_archive")
    ),
    2: upgrade_to_3("BIGINT"),
}


@functools.lru_cache(maxsize=256)
def _pg(sql: str) -> str:
    """Our SQL uses ``?`` placeholders (and no literal ``?`` or ``%``); psycopg wants ``%s``."""
    return sql.replace("?", "%s")


@contextmanager
def _data_errors() -> Iterator[None]:
    """Translate psycopg's ``DataError`` (a value the server or driver refused) to ours.

    The stores validate content before writing (see
    :func:`contextfold.stores._rows.encode_message`); this is the boundary that keeps a
    value they did not foresee from escaping as a driver exception.
    """
    try:
        yield
    except psycopg.DataError as exc:
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise StoreError(f"PostgreSQL refused a value contextfold sent: {detail}") from exc


class _Driver:
    """:class:`~contextfold.stores._sql.schema.SQLSession` over a psycopg async connection."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Sequence[Any]]:
        with _data_errors():
            cursor = await self._conn.execute(_pg(sql), tuple(params))
            return list(await cursor.fetchall())

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        with _data_errors():
            await self._conn.execute(_pg(sql), tuple(params))

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with _data_errors():
            async with self._conn.cursor() as cursor:
                await cursor.executemany(_pg(sql), [tuple(r) for r in rows])


@asynccontextmanager
async def _borrow(target: Target) -> AsyncIterator[Connection]:
    """Exclusive use of a connection: the shared one under its lock, or one from the pool."""
    if isinstance(target, AsyncConnection):
        async with state_of(target).lock:
            yield target
    else:
        async with target.connection() as conn:
            yield conn


async def connect(dsn: str, **kwargs: Any) -> Connection:
    """An autocommit ``AsyncConnection`` to ``dsn`` with contextfold's schema in place.

    Extra keyword arguments go to ``psycopg.AsyncConnection.connect``. Raises
    :class:`~contextfold.errors.SchemaVersionError` when the database was written by
    a newer contextfold. The caller owns (and closes) the connection.
    """
    conn = await AsyncConnection.connect(dsn, autocommit=True, **kwargs)
    try:
        await ensure_schema(conn)
    except BaseException:
        await conn.close()
        raise
    return conn


async def ensure_schema(target: Target) -> None:
    """Create contextfold's tables if missing; idempotent and safe to run concurrently.

    Creation is serialised across processes with a transaction-level advisory lock.
    Raises :class:`~contextfold.errors.SchemaVersionError` (changing nothing) when the
    recorded schema version is newer than this contextfold understands.
    """
    state = state_of(target)
    if state.schema_ready:
        return
    async with _borrow(target) as conn, conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK_KEY,))
        await install_schema(_Driver(conn), integer="BIGINT", upgrades=_UPGRADES)
    state.schema_ready = True


def advisory_key(session_id: str) -> int:
    """The signed 64-bit advisory-lock key of a session's compaction lock."""
    digest = hashlib.blake2b(f"contextfold:compaction:{session_id}".encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "big", signed=True)


class PostgresContextStore(SQLStore):
    """One session in a contextfold PostgreSQL database.

    ``target`` is a psycopg ``AsyncConnection`` or ``AsyncConnectionPool``; the schema
    is created on first use. ``session_id`` names the session to open or create;
    ``None`` starts a new one. Same extras as the SQLite store
    (:meth:`replace_prefix`, :meth:`replace_snapshot`, :meth:`get_archive`,
    :meth:`get_full_transcript`, :meth:`get_compactions`), and a cross-process
    :meth:`compaction_lock`.
    :meth:`close` does nothing: the caller owns the connection or pool.
    """

    _FOR_UPDATE: ClassVar[str] = " FOR UPDATE"

    def __init__(self, target: Target, session_id: str | None = None) -> None:
        self._target = target
        self._init_session(session_id)

    def _sibling(self) -> PostgresContextStore:
        return PostgresContextStore(self._target)

    @asynccontextmanager
    async def _transaction(self, *, write: bool) -> AsyncIterator[SQLSession]:
        await ensure_schema(self._target)
        async with _borrow(self._target) as conn, conn.transaction():
            yield _Driver(conn)

    @asynccontextmanager
    async def compaction_lock(self) -> AsyncIterator[bool]:
        """Non-blocking try-lock on this session's compaction, across all processes.

        Yields ``True`` while this caller holds the lock, ``False`` when another
        coroutine or process holds it (skip compacting). The advisory lock is held on
        a connection borrowed for the whole block (from the pool; with a single shared
        connection, on that one) and released on exit, or by the server if the
        process dies.

        A cancellation never leaves the lock held: the try-lock and the unlock are each
        awaited to their end (:func:`~contextfold._cancel.finish`; an advisory lock is
        the session's, so the server keeps one a cancelled query took), a lock taken
        just as the caller was cancelled is released, and the release on exit still
        waits its turn for a shared connection. A pooled connection whose unlock fails
        is closed rather than returned to the pool with the lock on it.
        """
        await ensure_schema(self._target)
        local = state_of(self._target).compaction_locks.setdefault(self.session_id, asyncio.Lock())
        if local.locked():
            yield False
            return
        key = advisory_key(self.session_id)
        async with local:
            if isinstance(self._target, AsyncConnection):
                async with _borrow(self._target) as conn:
                    acquired = await _try_lock(conn, key)
                try:
                    yield acquired
                finally:
                    if acquired:
                        await finish(_unlock_shared(self._target, key))
                return
            async with self._target.connection() as conn:
                acquired = await _try_lock(conn, key)
                try:
                    yield acquired
                finally:
                    if acquired:
                        await finish(_unlock_pooled(conn, key))


async def _try_lock(conn: Connection, key: int) -> bool:
    """``pg_try_advisory_lock``, finished even if the caller is cancelled (then undone)."""

    async def attempt() -> bool:
        async with conn.transaction():
            cursor = await conn.execute("SELECT pg_try_advisory_lock(%s)", (key,))
            row = await cursor.fetchone()
        return bool(row and row[0])

    async def undo(acquired: bool) -> None:
        if acquired:
            await _unlock(conn, key)

    return await finish(attempt(), undo=undo)


async def _unlock(conn: Connection, key: int) -> None:
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_unlock(%s)", (key,))


async def _unlock_shared(conn: Connection, key: int) -> None:
    async with _borrow(conn) as borrowed:
        await _unlock(borrowed, key)


async def _unlock_pooled(conn: Connection, key: int) -> None:
    try:
        await _unlock(conn, key)
    except BaseException:
        await conn.close()  # the server ends its session, and the lock with it
        raise
