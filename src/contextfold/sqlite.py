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
* a row that cannot be decoded raises :class:`~contextfold.errors.CorruptRecordError`
  naming the session and row; a database written by a newer contextfold raises
  :class:`~contextfold.errors.SchemaVersionError`.

Stores sharing one connection serialise their statements on a per-connection lock,
so concurrent coroutines never interleave transactions. Several processes may open
the same file: writes take SQLite's write lock (``BEGIN IMMEDIATE``) and wait up to
the busy timeout for it.
"""

from __future__ import annotations

import asyncio
import os
import uuid
import weakref
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from os import PathLike
from typing import Any

import aiosqlite

from contextfold._storage import (
    SCHEMA_VERSION,
    ArchivedMessage,
    CompactionRecord,
    RewritePlan,
    decode_message,
    encode_message,
    plan_prefix,
    plan_rewrite,
)
from contextfold.context import ContextStore, SessionInfo, preview_of
from contextfold.errors import SchemaVersionError
from contextfold.messages import Message

__all__ = [
    "ArchivedMessage",
    "CompactionRecord",
    "SQLiteContextStore",
    "connect",
    "ensure_schema",
]

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS contextfold_meta (
        key TEXT PRIMARY KEY, value TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS contextfold_sessions (
        session_id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        next_seq INTEGER NOT NULL DEFAULT 0,
        preview TEXT NOT NULL DEFAULT '')""",
    """CREATE INDEX IF NOT EXISTS contextfold_sessions_created
        ON contextfold_sessions (created_at)""",
    """CREATE TABLE IF NOT EXISTS contextfold_messages (
        session_id TEXT NOT NULL
            REFERENCES contextfold_sessions (session_id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        tokens INTEGER NOT NULL,
        synthetic INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (session_id, seq))""",
    """CREATE TABLE IF NOT EXISTS contextfold_compactions (
        session_id TEXT NOT NULL
            REFERENCES contextfold_sessions (session_id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        messages_before INTEGER NOT NULL,
        messages_after INTEGER NOT NULL,
        tokens_before INTEGER NOT NULL,
        tokens_after INTEGER NOT NULL,
        archived INTEGER NOT NULL,
        PRIMARY KEY (session_id, number))""",
    """CREATE TABLE IF NOT EXISTS contextfold_archive (
        session_id TEXT NOT NULL,
        compaction INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        tokens INTEGER NOT NULL,
        synthetic INTEGER NOT NULL,
        PRIMARY KEY (session_id, compaction, seq),
        FOREIGN KEY (session_id, compaction)
            REFERENCES contextfold_compactions (session_id, number) ON DELETE CASCADE)""",
)

_APPEND_SEQ = """
    INSERT INTO contextfold_sessions (session_id, created_at, next_seq, preview)
    VALUES (?, ?, 1, ?)
    ON CONFLICT (session_id) DO UPDATE SET
        next_seq = contextfold_sessions.next_seq + 1,
        preview = CASE WHEN contextfold_sessions.preview = '' THEN excluded.preview
                       ELSE contextfold_sessions.preview END
    RETURNING next_seq - 1"""
_INSERT_MESSAGE = """
    INSERT INTO contextfold_messages (session_id, seq, role, content, tokens, synthetic)
    VALUES (?, ?, ?, ?, ?, ?)"""
_HISTORY = """
    SELECT seq, role, content FROM contextfold_messages WHERE session_id = ? ORDER BY seq"""


class _ConnectionState:
    """Per-connection bookkeeping shared by every store on that connection."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.schema_ready = False
        self.compaction_locks: dict[str, asyncio.Lock] = {}


_states: weakref.WeakKeyDictionary[aiosqlite.Connection, _ConnectionState] = (
    weakref.WeakKeyDictionary()
)


def _state(conn: aiosqlite.Connection) -> _ConnectionState:
    state = _states.get(conn)
    if state is None:
        state = _states[conn] = _ConnectionState()
    return state


def _now() -> str:
    return datetime.now(UTC).isoformat()


@asynccontextmanager
async def _transaction(conn: aiosqlite.Connection) -> AsyncIterator[None]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``; any exception (or cancellation) rolls back."""
    await conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        await conn.rollback()
        raise
    await conn.commit()


async def connect(
    path: str | PathLike[str], *, busy_timeout_ms: int = 5000
) -> aiosqlite.Connection:
    """Open (creating if needed) a contextfold database at ``path``.

    The connection is in autocommit mode (the stores run their own transactions),
    uses WAL journaling with ``synchronous=NORMAL``, enforces foreign keys, waits up
    to ``busy_timeout_ms`` for another process's write lock, and has the current
    schema. Raises :class:`~contextfold.errors.SchemaVersionError` when the file was
    written by a newer contextfold. The caller owns the connection and closes it.
    """
    conn = await aiosqlite.connect(os.fspath(path), isolation_level=None)
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


async def ensure_schema(conn: aiosqlite.Connection) -> None:
    """Create or upgrade contextfold's tables on ``conn``; idempotent.

    The version lives in ``contextfold_meta`` (not ``PRAGMA user_version``, which
    belongs to the application owning the file). Raises
    :class:`~contextfold.errors.SchemaVersionError` for a newer version.
    """
    state = _state(conn)
    if state.schema_ready:
        return
    async with state.lock:
        if state.schema_ready:
            return
        async with _transaction(conn):
            for statement in _SCHEMA:
                await conn.execute(statement)
            cursor = await conn.execute(
                "SELECT value FROM contextfold_meta WHERE key = 'schema_version'"
            )
            row = await cursor.fetchone()
            found = int(row[0]) if row is not None else None
            if found is not None and found > SCHEMA_VERSION:
                raise SchemaVersionError(
                    f"this database has contextfold schema version {found}, but this "
                    f"contextfold understands up to version {SCHEMA_VERSION}; upgrade "
                    "contextfold to open it (the file was left untouched)"
                )
            if found != SCHEMA_VERSION:
                await conn.execute(
                    "INSERT OR REPLACE INTO contextfold_meta (key, value) "
                    "VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )
        state.schema_ready = True


class SQLiteContextStore(ContextStore):
    """One session in a contextfold SQLite database.

    ``conn`` comes from :func:`connect` (or any ``aiosqlite`` connection; the schema
    is created on first use). ``session_id`` names the session to open or create;
    ``None`` starts a new one with a random id. The session row is written on the
    first write, so opening a store costs nothing. :meth:`close` does nothing: the
    caller owns the connection.
    """

    def __init__(self, conn: aiosqlite.Connection, session_id: str | None = None) -> None:
        if session_id is not None and not session_id:
            raise ValueError("session_id must be a non-empty string or None")
        self._conn = conn
        self._session_id = session_id or uuid.uuid4().hex

    @property
    def connection(self) -> aiosqlite.Connection:
        """The connection this store runs on (owned by the caller)."""
        return self._conn

    @asynccontextmanager
    async def _locked(self) -> AsyncIterator[aiosqlite.Connection]:
        await ensure_schema(self._conn)
        async with _state(self._conn).lock:
            yield self._conn

    async def _rows(self, sql: str, params: Iterable[Any]) -> list[Any]:
        cursor = await self._conn.execute(sql, tuple(params))
        return list(await cursor.fetchall())

    async def append(self, message: Message) -> None:
        role, content, tokens = encode_message(message)
        async with self._locked() as conn, _transaction(conn):
            cursor = await conn.execute(
                _APPEND_SEQ, (self.session_id, _now(), preview_of([message]))
            )
            row = await cursor.fetchone()
            assert row is not None  # RETURNING always yields the upserted row
            await conn.execute(_INSERT_MESSAGE, (self.session_id, row[0], role, content, tokens, 0))

    async def get_history(self) -> list[Message]:
        async with self._locked():
            rows = await self._rows(_HISTORY, (self.session_id,))
        return [decode_message(self.session_id, seq, role, c) for seq, role, c in rows]

    async def clear(self) -> None:
        """Remove the live history and its archive; token counts are kept."""
        async with self._locked() as conn, _transaction(conn):
            for table in ("contextfold_messages", "contextfold_archive", "contextfold_compactions"):
                await conn.execute(f"DELETE FROM {table} WHERE session_id = ?", (self.session_id,))
            await conn.execute(
                "UPDATE contextfold_sessions SET preview = '' WHERE session_id = ?",
                (self.session_id,),
            )

    async def fork(self) -> SQLiteContextStore:
        """A new session in the same database with a copy of this one.

        History, archive, compaction records and token counts are copied by
        ``INSERT … SELECT`` in one transaction; nothing passes through Python.
        """
        forked = SQLiteContextStore(self._conn)
        src, dst = self.session_id, forked.session_id
        async with self._locked() as conn, _transaction(conn):
            await conn.execute(
                "INSERT INTO contextfold_sessions (session_id, created_at, input_tokens, "
                "output_tokens, next_seq, preview) SELECT ?, ?, input_tokens, output_tokens, "
                "next_seq, preview FROM contextfold_sessions WHERE session_id = ?",
                (dst, _now(), src),
            )
            await conn.execute(
                "INSERT INTO contextfold_messages (session_id, seq, role, content, tokens, "
                "synthetic) SELECT ?, seq, role, content, tokens, synthetic "
                "FROM contextfold_messages WHERE session_id = ?",
                (dst, src),
            )
            await conn.execute(
                "INSERT INTO contextfold_compactions SELECT ?, number, created_at, "
                "messages_before, messages_after, tokens_before, tokens_after, archived "
                "FROM contextfold_compactions WHERE session_id = ?",
                (dst, src),
            )
            await conn.execute(
                "INSERT INTO contextfold_archive SELECT ?, compaction, seq, role, content, "
                "tokens, synthetic FROM contextfold_archive WHERE session_id = ?",
                (dst, src),
            )
        return forked

    async def set_context_tokens(self, input_tokens: int, output_tokens: int) -> None:
        await self._upsert_tokens(input_tokens, output_tokens, "excluded.{0}")

    async def add_context_tokens(self, input_tokens: int, output_tokens: int) -> None:
        """Add one call's usage with an atomic ``SET x = x + ?`` in SQL."""
        await self._upsert_tokens(
            input_tokens, output_tokens, "contextfold_sessions.{0} + excluded.{0}"
        )

    async def _upsert_tokens(self, input_tokens: int, output_tokens: int, expr: str) -> None:
        set_in, set_out = expr.format("input_tokens"), expr.format("output_tokens")
        async with self._locked() as conn, _transaction(conn):
            await conn.execute(
                "INSERT INTO contextfold_sessions (session_id, created_at, input_tokens, "
                "output_tokens) VALUES (?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET "
                f"input_tokens = {set_in}, output_tokens = {set_out}",
                (self.session_id, _now(), int(input_tokens), int(output_tokens)),
            )

    async def get_context_tokens(self) -> tuple[int, int]:
        async with self._locked():
            rows = await self._rows(
                "SELECT input_tokens, output_tokens FROM contextfold_sessions WHERE session_id = ?",
                (self.session_id,),
            )
        return (int(rows[0][0]), int(rows[0][1])) if rows else (0, 0)

    async def list_sessions(self) -> list[SessionInfo]:
        """Every session in the database that has been written to, newest first."""
        async with self._locked():
            rows = await self._rows(
                "SELECT s.session_id, (SELECT COUNT(*) FROM contextfold_messages m "
                "WHERE m.session_id = s.session_id), s.preview, s.created_at, "
                "s.input_tokens, s.output_tokens FROM contextfold_sessions s "
                "ORDER BY s.created_at DESC, s.rowid DESC",
                (),
            )
        return [SessionInfo(sid, n, p, c, i, o) for sid, n, p, c, i, o in rows]

    async def replace_history(self, messages: Sequence[Message]) -> None:
        """Make ``messages`` the history, in one transaction.

        Messages at the end of the old history that ``messages`` ends with stay in
        place; the rest of the old history is archived (see :meth:`get_archive`) under
        a new :class:`CompactionRecord`. A crash mid-way leaves the old history.
        """
        new = [m.copy() for m in messages]
        async with self._locked() as conn, _transaction(conn):
            next_seq = await self._next_seq()
            rows = await self._rows(_HISTORY, (self.session_id,))
            live = [decode_message(self.session_id, s, r, c) for s, r, c in rows]
            await self._apply(plan_rewrite([r[0] for r in rows], live, new, next_seq))

    async def replace_prefix(
        self, count: int, messages: Sequence[Message]
    ) -> CompactionRecord | None:
        """Replace the first ``count`` messages with ``messages``, keeping the rest.

        The race-free way to commit a compaction: messages appended after the
        compactor read the history (by this or another process) are kept, because
        only the first ``count`` rows are touched. Raises :class:`ValueError` when the
        history has fewer than ``count`` messages. Returns the record written, or
        ``None`` when nothing was archived.
        """
        new = [m.copy() for m in messages]
        async with self._locked() as conn, _transaction(conn):
            next_seq = await self._next_seq()
            rows = await self._rows(
                "SELECT seq FROM contextfold_messages WHERE session_id = ? ORDER BY seq",
                (self.session_id,),
            )
            return await self._apply(plan_prefix([r[0] for r in rows], count, new, next_seq))

    async def _next_seq(self) -> int:
        """Create the session row if needed and return its ``next_seq`` (inside a tx)."""
        await self._conn.execute(
            "INSERT INTO contextfold_sessions (session_id, created_at) VALUES (?, ?) "
            "ON CONFLICT (session_id) DO NOTHING",
            (self.session_id, _now()),
        )
        rows = await self._rows(
            "SELECT next_seq FROM contextfold_sessions WHERE session_id = ?", (self.session_id,)
        )
        return int(rows[0][0])

    async def _apply(self, plan: RewritePlan) -> CompactionRecord | None:
        conn, sid = self._conn, self.session_id
        encoded = [encode_message(m) for m in plan.inserts]
        record: CompactionRecord | None = None
        if plan.archive_count:
            [(count_before, tokens_before, tokens_archived, number)] = await self._rows(
                "SELECT COUNT(*), COALESCE(SUM(tokens), 0), COALESCE(SUM(CASE WHEN seq < ? "
                "THEN tokens END), 0), (SELECT COALESCE(MAX(number), 0) + 1 FROM "
                "contextfold_compactions WHERE session_id = ?) FROM contextfold_messages "
                "WHERE session_id = ?",
                (plan.boundary, sid, sid),
            )
            record = CompactionRecord(
                session_id=sid,
                number=number,
                created_at=_now(),
                messages_before=count_before,
                messages_after=count_before - plan.archive_count + len(encoded),
                tokens_before=tokens_before,
                tokens_after=tokens_before - tokens_archived + sum(e[2] for e in encoded),
                archived=plan.archive_count,
            )
            await conn.execute(
                "INSERT INTO contextfold_compactions VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    sid,
                    number,
                    record.created_at,
                    record.messages_before,
                    record.messages_after,
                    record.tokens_before,
                    record.tokens_after,
                    record.archived,
                ),
            )
            await conn.execute(
                "INSERT INTO contextfold_archive SELECT session_id, ?, seq, role, content, "
                "tokens, synthetic FROM contextfold_messages WHERE session_id = ? AND seq < ?",
                (number, sid, plan.boundary),
            )
            await conn.execute(
                "DELETE FROM contextfold_messages WHERE session_id = ? AND seq < ?",
                (sid, plan.boundary),
            )
        synthetic = 1 if plan.archive_count else 0
        await conn.executemany(
            _INSERT_MESSAGE,
            [(sid, plan.first_seq + i, *e, synthetic) for i, e in enumerate(encoded)],
        )
        await conn.execute(
            "UPDATE contextfold_sessions SET next_seq = ?, preview = CASE WHEN preview = '' "
            "THEN ? ELSE preview END WHERE session_id = ?",
            (plan.next_seq, preview_of(plan.inserts), sid),
        )
        return record

    async def get_compactions(self) -> list[CompactionRecord]:
        """The session's rewrite records, oldest first."""
        async with self._locked():
            rows = await self._rows(
                "SELECT session_id, number, created_at, messages_before, messages_after, "
                "tokens_before, tokens_after, archived FROM contextfold_compactions "
                "WHERE session_id = ? ORDER BY number",
                (self.session_id,),
            )
        return [CompactionRecord(*row) for row in rows]

    async def get_archive(self) -> list[ArchivedMessage]:
        """Every message a rewrite removed from the live history, oldest rewrite first."""
        async with self._locked():
            rows = await self._rows(
                "SELECT seq, compaction, synthetic, role, content FROM contextfold_archive "
                "WHERE session_id = ? ORDER BY compaction, seq",
                (self.session_id,),
            )
        return [
            ArchivedMessage(seq, n, bool(syn), decode_message(self.session_id, seq, role, c))
            for seq, n, syn, role, c in rows
        ]

    async def get_full_transcript(self) -> list[Message]:
        """Every message ever appended, live or archived, in the order appended.

        Summaries and other messages written by a rewrite that replaced something are
        not part of the original transcript (they are in :meth:`get_history` while
        live and in :meth:`get_archive`, flagged ``synthetic``, once replaced).
        """
        async with self._locked():
            rows = await self._rows(
                "SELECT seq, role, content FROM contextfold_messages "
                "WHERE session_id = ? AND synthetic = 0 UNION ALL "
                "SELECT seq, role, content FROM contextfold_archive "
                "WHERE session_id = ? AND synthetic = 0 ORDER BY seq",
                (self.session_id, self.session_id),
            )
        return [decode_message(self.session_id, seq, role, c) for seq, role, c in rows]

    @asynccontextmanager
    async def compaction_lock(self) -> AsyncIterator[bool]:
        """Non-blocking try-lock: yields ``True`` while this caller holds the session's
        compaction lock, ``False`` if another coroutine on this connection holds it.

        The lock is per connection and process; use the PostgreSQL store when several
        processes compact one session.
        """
        locks = _state(self._conn).compaction_locks
        lock = locks.setdefault(self.session_id, asyncio.Lock())
        if lock.locked():
            yield False
            return
        async with lock:
            yield True
