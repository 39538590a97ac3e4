"""A persistent store on SQLite: :func:`connect` and :class:`SQLiteContextStore`.

One database file holds many sessions; a session survives restarts (open the file
again, pass the same ``session_id``). Guarantees:

* ``append`` is one short transaction whose cost does not grow with the session:
  the sequence number comes from a counter in the session row, never from counting
  or scanning the session's messages;
* ``replace_history`` is one transaction (a crash leaves the old history or the new
  one, nothing in between) and moves replaced messages to an archive instead of
  deleting them: :meth:`SQLiteContextStore.get_full_transcript` still returns every
  message ever appended, in order;
* token counts are incremented atomically in SQL;
* content round-trips exactly, NUL characters included; content JSON cannot
  represent (a NaN or infinite float in a tool input, say) raises :class:`ValueError`
  before anything is written;
* a row that cannot be decoded raises :class:`~contextfold.errors.CorruptRecordError`
  naming the session and row; a database whose schema is newer than
  :data:`SCHEMA_VERSION` (written by a newer contextfold) raises
  :class:`~contextfold.errors.SchemaVersionError`.

Stores sharing one connection serialise their statements on a per-connection lock,
so concurrent coroutines never interleave transactions. Several processes may open
the same file: writes take SQLite's write lock (``BEGIN IMMEDIATE``) and wait up to
the busy timeout for it.

Compaction of a session is single-flight across every connection and process sharing
the file: :meth:`SQLiteContextStore.compaction_lock` is a lease row in the database,
renewed while held and expiring if its holder dies; and a compaction commits with
:meth:`~SQLiteContextStore.replace_snapshot`, a compare-and-swap on the snapshot it
summarized, so even a holder that outlived its lease cannot replace messages it did
not summarize. Appends from anywhere are never lost or duplicated
(``tests/compaction/test_multiprocess.py``).
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from os import PathLike
from typing import Any

import aiosqlite

from contextfold._cancel import finish
from contextfold.stores._connection_state import state_of
from contextfold.stores._sql.lease import LEASE_TABLE, hold_lease
from contextfold.stores._sql.schema import (
    SCHEMA_VERSION,
    SQLSession,
    Statement,
    install_schema,
    upgrade_to_3,
)
from contextfold.stores._sql.store import SQLStore
from contextfold.stores.base import ArchivedMessage, CompactionRecord

__all__ = [
    "SCHEMA_VERSION",
    "ArchivedMessage",
    "CompactionRecord",
    "SQLiteContextStore",
    "assume_schema",
    "connect",
    "ensure_schema",
]


@asynccontextmanager
async def _transaction(conn: aiosqlite.Connection) -> AsyncIterator[None]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``; any exception (or cancellation) rolls back.

    No transaction outlives the block, whatever is cancelled when. aiosqlite runs each
    call on the connection's worker thread, which finishes it even when the coroutine
    awaiting it is cancelled: a ``BEGIN IMMEDIATE`` waiting out the busy timeout (another
    process writing) still opens its transaction there. So the ``BEGIN``, ``COMMIT`` and
    ``ROLLBACK`` are each awaited to their end (:func:`~contextfold._cancel.finish`), a
    ``BEGIN`` cut short by a cancellation is rolled back, and a ``COMMIT`` that fails
    rolls back too; only then does the cancellation or error go on. The caller holds the
    connection's lock throughout, so nothing else is queued on the thread in between.
    """
    await finish(conn.execute("BEGIN IMMEDIATE"), undo=lambda _: conn.rollback())
    try:
        yield
        await finish(conn.commit())
    except BaseException:
        await finish(conn.rollback())
        raise


async def connect(
    path: str | PathLike[str], *, busy_timeout_ms: int = 5000
) -> aiosqlite.Connection:
    """Open (creating if needed) a contextfold database at ``path``.

    The connection is in autocommit mode (the stores run their own transactions),
    uses WAL journaling with ``synchronous=NORMAL``, enforces foreign keys, waits up
    to ``busy_timeout_ms`` for another process's write lock, and has the current
    schema. Raises :class:`~contextfold.errors.SchemaVersionError` when the file was
    written by a newer contextfold. The caller owns the connection and closes it.

    A file created here is readable and writable by its owner only (mode 0600, on
    POSIX; SQLite gives its ``-wal`` and ``-shm`` files the same): it holds
    conversations. An existing file keeps its mode.
    """
    name = os.fspath(path)
    if name not in ("", ":memory:") and not name.startswith("file:"):
        await asyncio.to_thread(_create_private, name)
    conn = await aiosqlite.connect(name, isolation_level=None)
    try:
        await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        await conn.execute("PRAGMA journal_mode = WAL")
        await conn.execute("PRAGMA synchronous = NORMAL")
        await conn.execute("PRAGMA foreign_keys = ON")
        await ensure_schema(conn)
    except BaseException:
        await conn.close()
        raise
    return conn


def _create_private(name: str) -> None:
    """Create the empty file ``name`` with mode 0600 unless it exists (SQLite then
    opens it as a new database). Any failure is left for SQLite to report."""
    try:
        os.close(os.open(name, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except OSError:
        return


async def ensure_schema(conn: aiosqlite.Connection) -> None:
    """Create or upgrade contextfold's tables on ``conn``; idempotent.

    The version lives in ``contextfold_meta`` (not ``PRAGMA user_version``, which
    belongs to the application owning the file). Raises
    :class:`~contextfold.errors.SchemaVersionError` for a newer version.
    """
    state = state_of(conn)
    if state.schema_ready:
        return
    async with state.lock:
        if state.schema_ready:
            return
        async with _transaction(conn):
            # 1 -> 2: no change here; 2 -> 3: the column undo needs, unless it is there.
            columns = await conn.execute_fetchall("PRAGMA table_info(contextfold_compactions)")
            has_column = any(c[1] == "kept_before" for c in columns) or not list(columns)
            upgrades = {} if has_column else {2: upgrade_to_3("INTEGER", if_not_exists=False)}
            await install_schema(_Driver(conn), integer="INTEGER", upgrades=upgrades)
            await conn.execute(LEASE_TABLE)
        state.schema_ready = True


def assume_schema(conn: aiosqlite.Connection) -> None:
    """Let the stores on ``conn`` use contextfold's tables without creating them: for a
    read-only connection (which could not) to a database the caller checked holds
    them, at a version this one reads."""
    state_of(conn).schema_ready = True


class _Driver:
    """:class:`~contextfold.stores._sql.schema.SQLSession` over an aiosqlite connection."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Sequence[Any]]:
        return list(await self._conn.execute_fetchall(sql, tuple(params)))  # one thread hop

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        await self._conn.execute(sql, tuple(params))

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        await self._conn.executemany(sql, [tuple(r) for r in rows])


def _write_on_worker(conn: aiosqlite.Connection, statements: Sequence[Statement]) -> None:
    """A whole write transaction, run on the connection's worker thread.

    ``BEGIN IMMEDIATE``, the statements, ``COMMIT``; any exception (a failed ``COMMIT``
    included) rolls back and is re-raised (to the awaiting coroutine, by aiosqlite). The
    thread runs it whole even if that coroutine is cancelled, so it never leaves a
    transaction open.
    """
    raw = conn._conn  # the sqlite3 connection; only used on its own worker thread
    raw.execute("BEGIN IMMEDIATE")
    try:
        for sql, params in statements:
            raw.execute(sql, tuple(params))
        raw.commit()
    except BaseException:
        raw.rollback()
        raise


class SQLiteContextStore(SQLStore):
    """One session in a contextfold SQLite database.

    ``conn`` comes from :func:`connect` (or any ``aiosqlite`` connection with no
    transaction open; the schema is created on first use). ``session_id`` names the
    session to open or create; ``None`` starts a new one with a random id. The session
    row is written on the first write, so opening a store costs nothing. Besides the
    :class:`~contextfold.stores.base.ContextStore` contract it offers
    :meth:`replace_prefix`, :meth:`replace_snapshot`, :meth:`get_archive`,
    :meth:`get_full_transcript`, :meth:`get_compactions` and :meth:`compaction_lock`.
    :meth:`close` does nothing: the caller owns the connection.

    ``compaction_lease`` is how long, in seconds, a compaction lease lasts without
    renewal: how long a compactor that died blocks the next compaction of its session.
    """

    def __init__(
        self,
        conn: aiosqlite.Connection,
        session_id: str | None = None,
        *,
        compaction_lease: float = 30.0,
    ) -> None:
        if isinstance(compaction_lease, bool) or not (
            isinstance(compaction_lease, int | float) and 0 < compaction_lease < 2**31
        ):
            raise ValueError(
                f"compaction_lease must be a positive number of seconds, got {compaction_lease!r}"
            )
        self._conn = conn
        self._lease = float(compaction_lease)
        self._init_session(session_id)

    @property
    def connection(self) -> aiosqlite.Connection:
        """The connection this store runs on (owned by the caller)."""
        return self._conn

    def _sibling(self) -> SQLiteContextStore:
        return SQLiteContextStore(self._conn, compaction_lease=self._lease)

    @asynccontextmanager
    async def _transaction(self, *, write: bool) -> AsyncIterator[SQLSession]:
        await ensure_schema(self._conn)
        async with state_of(self._conn).lock:
            if not write:  # a single read statement is its own snapshot in autocommit mode
                yield _Driver(self._conn)
                return
            async with _transaction(self._conn):
                yield _Driver(self._conn)

    async def _write(self, statements: Sequence[Statement]) -> None:
        """One hand-off to aiosqlite's worker thread for the whole transaction.

        Through the public API each statement, ``BEGIN`` and ``COMMIT`` is a thread
        hop of its own (four for an append). aiosqlite offers no public way to run a
        function on its thread, so this uses its private ``Connection._execute`` (the
        method behind every public call) and ``Connection._conn``; the store tests run
        every write through it, so an aiosqlite release that changes them fails them.
        """
        await ensure_schema(self._conn)
        # aiosqlite leaves _execute unannotated; this is the signature relied on.
        on_worker: Callable[[Callable[[], None]], Awaitable[None]] = self._conn._execute
        async with state_of(self._conn).lock:
            await on_worker(functools.partial(_write_on_worker, self._conn, statements))

    @asynccontextmanager
    async def compaction_lock(self) -> AsyncIterator[bool]:
        """Non-blocking try-lock on this session's compaction, across connections and processes.

        Yields ``True`` while this caller holds the session's compaction lease,
        ``False`` when another coroutine, connection or process holds it (skip
        compacting). The lease is a row in the database (see :mod:`contextfold.stores.sqlite`):
        renewed every quarter of ``compaction_lease`` while the block runs, deleted on
        exit, and taken over by the next claim if its holder dies and stops renewing.
        """
        locks = state_of(self._conn).compaction_locks
        lock = locks.setdefault(self.session_id, asyncio.Lock())
        if lock.locked():
            yield False
            return
        async with lock, hold_lease(self._write_transaction, self.session_id, self._lease) as held:
            yield held

    def _write_transaction(self) -> AbstractAsyncContextManager[SQLSession]:
        return self._transaction(write=True)
