"""The store logic the SQLite and PostgreSQL stores share, written once as SQL.

:class:`SQLStore` implements the whole :class:`~contextfold.stores.base.ContextStore`
contract plus the archive (see :mod:`contextfold.stores._rows` for the rules) against
:class:`~contextfold.stores._sql.schema.SQLSession`, a three-method driver interface with
``?`` placeholders, over the tables of :mod:`contextfold.stores._sql.schema`. A concrete
store only says how to get a connection inside a transaction and how to lock the
session row.
"""

from __future__ import annotations

import uuid
from abc import abstractmethod
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, ClassVar, Self

from contextfold.messages import Message, check_messages
from contextfold.stores._journal import JournalLine, build_journal, undo_last
from contextfold.stores._rows import (
    decode_message,
    encode_message,
    integer_column,
    storable_text,
)
from contextfold.stores._sql.rewrite import (
    HISTORY,
    add_journal_line,
    holds_snapshot,
    lock_session,
    rewrite,
)
from contextfold.stores._sql.schema import (
    FORK_COLUMNS,
    SESSION_TABLES,
    SQLSession,
    Statement,
    int64,
    now_iso,
)
from contextfold.stores.base import (
    ArchivedMessage,
    CompactionRecord,
    ContextStore,
    JournalEntry,
    SessionInfo,
    preview_of,
)

__all__ = ["SQLStore"]

_APPEND = """
    INSERT INTO contextfold_sessions (session_id, created_at, next_seq, preview)
    VALUES (?, ?, 1, ?)
    ON CONFLICT (session_id) DO UPDATE SET
        next_seq = contextfold_sessions.next_seq + 1,
        preview = CASE WHEN contextfold_sessions.preview = '' THEN excluded.preview
                       ELSE contextfold_sessions.preview END"""
# Takes the number _APPEND just allocated; the session row is locked by then.
_APPEND_MESSAGE = """
    INSERT INTO contextfold_messages (session_id, seq, role, content, tokens, synthetic)
    VALUES (?, (SELECT next_seq - 1 FROM contextfold_sessions WHERE session_id = ?), ?, ?, ?, 0)"""


class SQLStore(ContextStore):
    """The store logic both SQL databases share, written once against :class:`SQLSession`.

    A subclass supplies :meth:`_transaction` (exclusive use of a connection inside one
    transaction; ``write`` says whether it will write) and :meth:`_sibling` (a store on
    the same database for another session), and may override :meth:`_write` to run a
    fixed list of statements in fewer trips. ``_FOR_UPDATE`` is appended to the read
    of the session row in rewrites and forks, to lock it where the database needs that.
    """

    _FOR_UPDATE: ClassVar[str] = ""

    def _init_session(self, session_id: str | None) -> None:
        if session_id is not None and not (
            isinstance(session_id, str) and session_id and storable_text(session_id) == session_id
        ):
            raise ValueError(
                "session_id must be None or a non-empty string without NUL characters or "
                f"unpaired surrogates, got {session_id!r}"
            )
        self._session_id = session_id or uuid.uuid4().hex

    @abstractmethod
    def _transaction(self, *, write: bool) -> AbstractAsyncContextManager[SQLSession]: ...

    @abstractmethod
    def _sibling(self) -> Self: ...

    async def _write(self, statements: Sequence[Statement]) -> None:
        """Run ``statements``, in order, as one write transaction (all or nothing)."""
        async with self._transaction(write=True) as db:
            for sql, params in statements:
                await db.execute(sql, params)

    def _decode(self, seq: int, role: Any, content: Any) -> Message:
        return decode_message(self.session_id, seq, role, content)

    async def append(self, message: Message) -> None:
        role, content, tokens = encode_message(message)
        sid = self.session_id
        await self._write(
            [
                (_APPEND, (sid, now_iso(), storable_text(preview_of([message])))),
                (_APPEND_MESSAGE, (sid, sid, role, content, tokens)),
            ]
        )

    async def get_history(self) -> list[Message]:
        async with self._transaction(write=False) as db:
            rows = await db.fetch(HISTORY, (self.session_id,))
        return [self._decode(*row) for row in rows]

    async def clear(self) -> None:
        """Remove the live history, its archive and compaction records; tokens are kept."""
        sid = (self.session_id,)
        await self._write(
            [(f"DELETE FROM {table} WHERE session_id = ?", sid) for table in SESSION_TABLES]
            + [("UPDATE contextfold_sessions SET preview = '' WHERE session_id = ?", sid)]
        )

    async def fork(self) -> Self:
        """A new session in the same database with a copy of this one.

        History, archive, compaction records and token counts are copied with
        ``INSERT … SELECT`` in one transaction; no message passes through Python. The
        source session row is locked first (as a rewrite locks it), so appends and
        rewrites committing meanwhile land either wholly before the copy or wholly
        after it: the fork is a consistent snapshot and its next append gets a fresh
        number. A session never written to forks into an empty session (nothing is
        written for either).
        """
        forked = self._sibling()
        src, dst = self.session_id, forked.session_id
        async with self._transaction(write=True) as db:
            locked = await db.fetch(
                "SELECT next_seq FROM contextfold_sessions WHERE session_id = ?" + self._FOR_UPDATE,
                (src,),
            )
            if not locked:
                return forked
            await db.execute(
                "INSERT INTO contextfold_sessions (session_id, created_at, input_tokens, "
                "output_tokens, next_seq, preview) SELECT ?, ?, input_tokens, output_tokens, "
                "next_seq, preview FROM contextfold_sessions WHERE session_id = ?",
                (dst, now_iso(), src),
            )
            for table, columns in FORK_COLUMNS:
                await db.execute(
                    f"INSERT INTO {table} (session_id, {columns}) "
                    f"SELECT ?, {columns} FROM {table} WHERE session_id = ?",
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
        await self._write(
            [
                (
                    "INSERT INTO contextfold_sessions (session_id, created_at, input_tokens, "
                    "output_tokens) VALUES (?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET "
                    f"input_tokens = {set_in}, output_tokens = {set_out}",
                    (
                        self.session_id,
                        now_iso(),
                        int64(input_tokens, "input_tokens"),
                        int64(output_tokens, "output_tokens"),
                    ),
                )
            ]
        )

    async def get_context_tokens(self) -> tuple[int, int]:
        async with self._transaction(write=False) as db:
            rows = await db.fetch(
                "SELECT input_tokens, output_tokens FROM contextfold_sessions WHERE session_id = ?",
                (self.session_id,),
            )
        if not rows:
            return (0, 0)
        sid = self.session_id
        return (
            integer_column(sid, "input_tokens", rows[0][0]),
            integer_column(sid, "output_tokens", rows[0][1]),
        )

    async def list_sessions(self) -> list[SessionInfo]:
        """Every session in the database that has been written to, newest first."""
        async with self._transaction(write=False) as db:
            rows = await db.fetch(
                "SELECT s.session_id, (SELECT COUNT(*) FROM contextfold_messages m "
                "WHERE m.session_id = s.session_id), s.preview, s.created_at, "
                "s.input_tokens, s.output_tokens FROM contextfold_sessions s "
                "ORDER BY s.created_at DESC, s.session_id"
            )
        return [
            SessionInfo(
                r[0],
                int(r[1]),
                r[2],
                r[3],
                integer_column(r[0], "input_tokens", r[4]),
                integer_column(r[0], "output_tokens", r[5]),
            )
            for r in rows
        ]

    async def replace_history(self, messages: Sequence[Message]) -> None:
        """Make ``messages`` the history, in one transaction.

        Messages at the start and at the end of the old history that ``messages``
        starts and ends with stay in place; the old messages between are archived
        (see :meth:`get_archive`) under a new :class:`CompactionRecord`, and the new
        ones between are written. New messages after an unchanged history are
        appends: they join the transcript, and no record is written. A crash mid-way
        leaves the old history; a message that could not be read back raises
        :class:`ValueError` and nothing is written.
        """
        check_messages(messages)
        new = [m.copy() for m in messages]
        async with self._transaction(write=True) as db:
            await rewrite(db, self.session_id, None, new, for_update=self._FOR_UPDATE)

    async def replace_prefix(
        self, count: int, messages: Sequence[Message]
    ) -> CompactionRecord | None:
        """Replace the first ``count`` messages with ``messages``, keeping the rest.

        The race-free way to commit a compaction: messages appended after the
        compactor read the history (by this or another process) are kept, because
        only the first ``count`` rows are touched (of those, the ones ``messages``
        starts or ends with stay in place). Raises :class:`ValueError` (and changes
        nothing) when the history has fewer than ``count`` messages or a message
        could not be read back. Returns the record written, or ``None`` when nothing
        was archived. It does not check what the first ``count`` rows hold: to commit
        a compaction, use :meth:`replace_snapshot`.
        """
        check_messages(messages)
        new = [m.copy() for m in messages]
        async with self._transaction(write=True) as db:
            return await rewrite(db, self.session_id, count, new, for_update=self._FOR_UPDATE)

    async def replace_snapshot(
        self,
        snapshot: Sequence[Message],
        messages: Sequence[Message],
        *,
        note: JournalEntry | None = None,
        last_compaction: int | None = None,
    ) -> bool:
        """Compare-and-swap: replace ``snapshot`` with ``messages`` if the history starts with it.

        In one write transaction, with the session row locked (so no append or rewrite
        from any connection or process commits in between), the first
        ``len(snapshot)`` live rows are compared with ``snapshot``; only if they hold
        exactly its messages, in order, are they replaced as :meth:`replace_prefix`
        does (archived under a new record; later rows kept). Otherwise nothing is
        written and ``False`` is returned: another compaction committed since the
        snapshot was read, and its summary did not cover what this one would replace.
        ``note`` is journaled in the same transaction, naming the record written. With
        ``last_compaction``, it is also ``False`` unless that is the number of the
        session's last record (no rewrite committed since the caller read it).
        """
        check_messages(messages)
        expected, new = list(snapshot), [m.copy() for m in messages]
        async with self._transaction(write=True) as db:
            await lock_session(db, self.session_id, self._FOR_UPDATE)
            if last_compaction is not None:
                [(last,)] = await db.fetch(
                    "SELECT COALESCE(MAX(number), 0) FROM contextfold_compactions "
                    "WHERE session_id = ?",
                    (self.session_id,),
                )
                if last != last_compaction:
                    return False
            if not await holds_snapshot(db, self.session_id, expected):
                return False
            await rewrite(
                db, self.session_id, len(expected), new, for_update=self._FOR_UPDATE, note=note
            )
        return True

    async def get_compactions(self) -> list[CompactionRecord]:
        """The session's rewrite records, oldest first."""
        async with self._transaction(write=False) as db:
            rows = await db.fetch(
                "SELECT session_id, number, created_at, messages_before, messages_after, "
                "tokens_before, tokens_after, archived, kept_before FROM "
                "contextfold_compactions WHERE session_id = ? ORDER BY number",
                (self.session_id,),
            )
        return [self._record(r) for r in rows]

    def _record(self, r: Sequence[Any]) -> CompactionRecord:
        sid = self.session_id
        before, after, tokens_before, tokens_after, archived = (
            integer_column(sid, f"compaction {r[1]!r} counts", x) for x in r[3:8]
        )
        return CompactionRecord(
            r[0],
            integer_column(sid, "compaction number", r[1]),
            r[2],
            before,
            after,
            tokens_before,
            tokens_after,
            archived,
            kept_before=None if r[8] is None else integer_column(sid, "kept_before", r[8]),
        )

    async def journal(self) -> list[JournalEntry]:
        """The compaction journal (see :class:`~contextfold.stores.base.Journaling`),
        read in one transaction."""
        sid = self.session_id
        async with self._transaction(write=False) as db:
            records = await db.fetch(
                "SELECT session_id, number, created_at, messages_before, messages_after, "
                "tokens_before, tokens_after, archived, kept_before FROM "
                "contextfold_compactions WHERE session_id = ? ORDER BY number",
                (sid,),
            )
            rows = await db.fetch(
                "SELECT created_at, compaction, note FROM contextfold_journal "
                "WHERE session_id = ? ORDER BY number",
                (sid,),
            )
        lines: list[JournalLine] = [
            (str(c), None if n is None else integer_column(sid, "journal compaction", n), t)
            for c, n, t in rows
        ]
        return build_journal(sid, [self._record(r) for r in records], lines)

    async def write_journal(self, note: JournalEntry) -> None:
        """Add a journal line for an attempt that changed nothing."""
        async with self._transaction(write=True) as db:
            await lock_session(db, self.session_id, self._FOR_UPDATE)
            await add_journal_line(db, self.session_id, note, None)

    async def undo(self, *, number: int | None = None) -> JournalEntry:
        """Put back the history before the last compaction (see
        :class:`~contextfold.stores.base.Journaling`)."""
        return await undo_last(self, number=number)

    async def get_archive(self) -> list[ArchivedMessage]:
        """Every message a rewrite removed from the live history, oldest rewrite first."""
        async with self._transaction(write=False) as db:
            rows = await db.fetch(
                "SELECT seq, compaction, synthetic, role, content FROM contextfold_archive "
                "WHERE session_id = ? ORDER BY compaction, seq",
                (self.session_id,),
            )
        return [
            ArchivedMessage(
                integer_column(self.session_id, "archived seq", seq),
                integer_column(self.session_id, "archived message's compaction", n),
                bool(syn),
                self._decode(seq, role, content),
            )
            for seq, n, syn, role, content in rows
        ]

    async def get_full_transcript(self) -> list[Message]:
        """Every message ever appended, live or archived, in the order appended.

        Messages a rewrite wrote into a non-empty history (summaries, edited copies)
        are not part of the original transcript: they are in :meth:`get_history`
        while live and in :meth:`get_archive`, flagged ``synthetic``, once replaced.
        A rewrite of an empty history counts as appending.
        """
        async with self._transaction(write=False) as db:
            rows = await db.fetch(
                "SELECT seq, role, content FROM contextfold_messages "
                "WHERE session_id = ? AND synthetic = 0 UNION ALL "
                "SELECT seq, role, content FROM contextfold_archive "
                "WHERE session_id = ? AND synthetic = 0 ORDER BY seq",
                (self.session_id, self.session_id),
            )
        return [self._decode(*row) for row in rows]
