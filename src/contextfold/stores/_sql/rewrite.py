"""History rewrites in SQL: replace the first rows of a session, archiving what they held.

Every function here runs inside the caller's write transaction, on the
:class:`~contextfold.stores._sql.schema.SQLSession` it was given; the caller commits or rolls
back. :func:`lock_session` comes first: it locks the session row (``FOR UPDATE`` in
PostgreSQL; SQLite's ``BEGIN IMMEDIATE`` already holds the whole database), so no
append or rewrite from another connection or process commits until the caller does.
:func:`holds_snapshot` is the compare of a compare-and-swap; :func:`rewrite` plans
the change with :func:`~contextfold.stores._rows.plan_rewrite` and applies it: the rows it
replaces move to the archive under a new :class:`~contextfold.stores.base.CompactionRecord`.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from contextfold.messages import Message
from contextfold.stores._journal import encode_note
from contextfold.stores._rows import (
    RewritePlan,
    decode_message,
    encode_content,
    encode_message,
    integer_column,
    plan_rewrite,
    rewrite_window,
    storable_text,
)
from contextfold.stores._sql.schema import SQLSession, now_iso
from contextfold.stores.base import CompactionRecord, JournalEntry, preview_of

__all__ = ["HISTORY", "add_journal_line", "holds_snapshot", "lock_session", "rewrite"]

HISTORY = "SELECT seq, role, content FROM contextfold_messages WHERE session_id = ? ORDER BY seq"
"""The live rows of a session, in order."""

_INSERT_MESSAGE = """
    INSERT INTO contextfold_messages (session_id, seq, role, content, tokens, synthetic)
    VALUES (?, ?, ?, ?, ?, ?)"""


async def lock_session(db: SQLSession, session_id: str, for_update: str) -> int:
    """Create the session row if needed, lock it, and return its ``next_seq``.

    ``for_update`` is appended to the read of the row (``" FOR UPDATE"`` where the
    database needs it to lock the row).
    """
    await db.execute(
        "INSERT INTO contextfold_sessions (session_id, created_at) VALUES (?, ?) "
        "ON CONFLICT (session_id) DO NOTHING",
        (session_id, now_iso()),
    )
    rows = await db.fetch(
        "SELECT next_seq FROM contextfold_sessions WHERE session_id = ?" + for_update,
        (session_id,),
    )
    return integer_column(session_id, "next_seq", rows[0][0])


async def holds_snapshot(db: SQLSession, session_id: str, snapshot: Sequence[Message]) -> bool:
    """Whether the first ``len(snapshot)`` live rows hold exactly ``snapshot``, in order.

    Call it after :func:`lock_session`, so that the answer still holds when the caller
    writes. A row is compared by its stored JSON first and decoded only when that
    differs (a row written by an older version may spell the same content otherwise).
    """
    rows = await db.fetch(HISTORY + " LIMIT ?", (session_id, len(snapshot)))
    if len(rows) != len(snapshot):
        return False
    for (seq, role, content), message in zip(rows, snapshot, strict=True):
        if role != message.role:
            return False
        if content != encode_content(message) and (
            decode_message(session_id, seq, role, content) != message
        ):
            return False
    return True


async def rewrite(
    db: SQLSession,
    session_id: str,
    count: int | None,
    new: Sequence[Message],
    *,
    for_update: str,
    note: JournalEntry | None = None,
) -> CompactionRecord | None:
    """Replace the first ``count`` live rows (all when ``None``) with ``new``.

    Returns the record written, or ``None`` when none was (nothing archived or moved,
    no ``note``). ``note`` is journaled with the rewrite, naming its record. Raises
    :class:`ValueError` when the session has fewer than ``count`` rows.
    """
    sid = session_id
    next_seq = await lock_session(db, sid, for_update)
    rows = await db.fetch(
        "SELECT seq FROM contextfold_messages WHERE session_id = ? ORDER BY seq", (sid,)
    )
    seqs = [integer_column(sid, "message seq", row[0]) for row in rows]
    count = len(seqs) if count is None else count
    old: dict[int, Message] = {}
    head, tail = rewrite_window(count, len(new))
    if head and 0 <= count <= len(seqs):
        # Only the rows that can match are read and decoded.
        index = {seq: i for i, seq in enumerate(seqs)}
        rows = await db.fetch(
            "SELECT seq, role, content FROM contextfold_messages WHERE session_id = ? "
            "AND (seq <= ? OR (seq >= ? AND seq <= ?)) ORDER BY seq",
            (sid, seqs[head[-1]], seqs[tail[0]], seqs[tail[-1]]),
        )
        old = {index[row[0]]: decode_message(sid, *row) for row in rows}
    plan = plan_rewrite(seqs, count, old, new, next_seq)
    front = bisect.bisect_left(seqs, plan.archive_from)
    # A rewrite that moves live rows (not a plain append after them all) is recorded
    # even when it archives nothing, and so is every journaled one, whose inserts are
    # rewrite products: undo relies on "no record since N" meaning "nothing moved".
    journaled = note is not None
    moved = bool(plan.inserts) and front < len(seqs)
    record = await _apply(db, sid, plan, front, record=moved or journaled, synthetic=journaled)
    if note is not None:
        await add_journal_line(db, sid, note, record.number if record is not None else None)
    return record


async def add_journal_line(
    db: SQLSession, sid: str, note: JournalEntry, compaction: int | None
) -> None:
    """Write a journal line for ``note`` (naming record ``compaction``, if any)."""
    await db.execute(
        "INSERT INTO contextfold_journal (session_id, number, created_at, compaction, note) "
        "SELECT ?, COALESCE(MAX(number), 0) + 1, ?, ?, ? FROM contextfold_journal "
        "WHERE session_id = ?",
        (sid, now_iso(), compaction, encode_note(note), sid),
    )


async def _apply(
    db: SQLSession, sid: str, plan: RewritePlan, front: int, *, record: bool, synthetic: bool
) -> CompactionRecord | None:
    encoded = [encode_message(m) for m in plan.inserts]
    span = (plan.archive_from, plan.archive_to)
    written: CompactionRecord | None = None
    if plan.archive_count or record:
        [(count_before, tokens_before, tokens_archived, number)] = await db.fetch(
            "SELECT COUNT(*), COALESCE(SUM(tokens), 0), COALESCE(SUM(CASE WHEN seq >= ? "
            "AND seq < ? THEN tokens END), 0), (SELECT COALESCE(MAX(number), 0) + 1 FROM "
            "contextfold_compactions WHERE session_id = ?) FROM contextfold_messages "
            "WHERE session_id = ?",
            (*span, sid, sid),
        )
        written = CompactionRecord(
            session_id=sid,
            number=int(number),
            created_at=now_iso(),
            messages_before=int(count_before),
            messages_after=int(count_before) - plan.archive_count + len(encoded),
            tokens_before=int(tokens_before),
            tokens_after=int(tokens_before - tokens_archived) + sum(e[2] for e in encoded),
            archived=plan.archive_count,
            kept_before=front,
        )
        await db.execute(
            "INSERT INTO contextfold_compactions (session_id, number, created_at, "
            "messages_before, messages_after, tokens_before, tokens_after, archived, "
            "kept_before) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                sid,
                written.number,
                written.created_at,
                written.messages_before,
                written.messages_after,
                written.tokens_before,
                written.tokens_after,
                written.archived,
                written.kept_before,
            ),
        )
        await db.execute(
            "INSERT INTO contextfold_archive (session_id, compaction, seq, role, content, "
            "tokens, synthetic) SELECT session_id, ?, seq, role, content, tokens, synthetic "
            "FROM contextfold_messages WHERE session_id = ? AND seq >= ? AND seq < ?",
            (written.number, sid, *span),
        )
        await db.execute(
            "DELETE FROM contextfold_messages WHERE session_id = ? AND seq >= ? AND seq < ?",
            (sid, *span),
        )
    if not encoded and written is None:
        return None  # nothing replaced, nothing new: leave the session as it is
    flag = 1 if plan.synthetic or synthetic else 0
    if encoded:
        await db.executemany(
            _INSERT_MESSAGE,
            [(sid, plan.first_seq + i, *e, flag) for i, e in enumerate(encoded)],
        )
    await db.execute(
        "UPDATE contextfold_sessions SET next_seq = ?, preview = CASE WHEN preview = '' "
        "THEN ? ELSE preview END WHERE session_id = ?",
        (plan.next_seq, storable_text(preview_of(plan.inserts)), sid),
    )
    return written
