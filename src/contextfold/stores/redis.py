"""A persistent store on Redis: :class:`RedisContextStore`, on redis-py's asyncio client.

Sessions live in Redis as a few keys each, shared by any number of processes and
machines, with the contract and the archive of the SQL stores. Guarantees:

* ``append`` is one Lua script whose cost does not grow with the session (a counter
  gives the sequence number, ``RPUSH`` adds the row);
* ``replace_history`` / ``replace_prefix`` are one Lua script each: they read a
  snapshot, plan the rewrite, and commit only if no other rewrite (and, where the
  plan depends on it, no append) happened since, re-reading otherwise; messages they
  replace move to the archive under a :class:`CompactionRecord`, never deleted;
* ``replace_prefix(count, messages, expected=...)`` is a compare-and-swap: when the
  first ``count`` messages are no longer ``expected`` it writes nothing and raises
  :class:`~contextfold.errors.HistoryConflictError`; appends from other processes
  are never touched;
* token counts are incremented atomically on the server (``HINCRBY``);
* :meth:`RedisContextStore.compaction_lock` is single-flight across processes with
  an expiring lease (``SET NX PX``), renewed while held and released only by its
  holder, so a holder that dies frees the session when its lease runs out;
* a value that cannot be decoded raises
  :class:`~contextfold.errors.CorruptRecordError`, and any other error Redis reports
  raises :class:`~contextfold.errors.StoreError` (never a redis-py exception).

Key layout (``P`` is ``prefix``; the session id in braces is a Redis Cluster hash tag,
so one session's keys share a slot)::

    P:sessions              sorted set: session id -> creation time (Unix seconds)
    P:{SID}:meta            hash: created_at, preview, input_tokens, output_tokens,
                            last_seq, live_tokens, version (counts rewrites),
                            compactions (records written)
    P:{SID}:log             list, live history: "seq:synthetic:tokens:role:content"
    P:{SID}:archive         list, replaced rows: "compaction:" + a live row
    P:{SID}:compactions     list: "number created_at messages_before messages_after
                            tokens_before tokens_after archived kept_before"
    P:{SID}:journal         list: "<record number or -> created_at <note JSON>"
    P:{SID}:lock            string: the compaction lease holder's token (expires)

``content`` is the message's JSON (see :func:`contextfold.stores._rows.encode_message`).
Every operation touches one session's keys, except :meth:`~RedisContextStore.fork`
(both sessions and ``P:sessions``) and :meth:`~RedisContextStore.list_sessions`.
Needs Redis 6.2 or newer (``COPY``) and the ``redis`` extra
(``pip install 'contextfold[redis]'``).
"""

from __future__ import annotations

import bisect
import time
import uuid
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

from contextfold._extras import requires_extra

with requires_extra("redis", "contextfold.redis"):
    from redis.asyncio import Redis

from contextfold.errors import CorruptRecordError, HistoryConflictError, StoreError
from contextfold.messages import Message, check_messages
from contextfold.stores._journal import JournalLine, build_journal, encode_note, undo_last
from contextfold.stores._redis import (
    APPEND,
    FORK,
    REWRITE,
    TOKENS,
    Keyspace,
    Row,
    int64,
    iso,
    lease,
)
from contextfold.stores._redis import preview as _preview
from contextfold.stores._rows import (
    decode_message,
    encode_message,
    plan_rewrite,
    rewrite_window,
    storable_text,
)
from contextfold.stores.base import (
    ArchivedMessage,
    CompactionRecord,
    ContextStore,
    JournalEntry,
    SessionInfo,
)

__all__ = ["ArchivedMessage", "CompactionRecord", "RedisContextStore"]

_ATTEMPTS = 100  # a rewrite plans again at most this often while others keep changing it


class RedisContextStore(ContextStore):
    """One session in Redis, under keys named ``{prefix}:...`` (see the module docstring).

    ``client`` is a ``redis.asyncio.Redis`` (with or without ``decode_responses``);
    the caller owns it and closes it, so :meth:`close` does nothing. ``session_id``
    names the session to open or create; ``None`` starts a new one with a random id.
    Nothing is written until the first write. ``lease`` is how many seconds the
    compaction lock outlives a holder that stopped renewing it (a crashed process).

    Besides the :class:`~contextfold.stores.base.ContextStore` contract it offers
    :meth:`replace_prefix`, :meth:`get_archive`, :meth:`get_full_transcript`,
    :meth:`get_compactions` and :meth:`compaction_lock`.
    """

    def __init__(
        self,
        client: Redis,
        session_id: str | None = None,
        *,
        prefix: str = "contextfold",
        lease: float = 30.0,
    ) -> None:
        for name, value in (("session_id", session_id), ("prefix", prefix)):
            if (value is not None or name == "prefix") and not (
                isinstance(value, str) and value and storable_text(value) == value
            ):
                raise ValueError(
                    f"{name} must be {'None or ' if name == 'session_id' else ''}a non-empty "
                    f"string without NUL characters or unpaired surrogates, got {value!r}"
                )
        if not (isinstance(lease, int | float) and lease > 0):
            raise ValueError(f"lease must be a positive number of seconds, got {lease!r}")
        self._session_id = session_id or uuid.uuid4().hex
        self._redis = Keyspace(client, prefix, self._session_id)
        self._lease_ms = max(int(lease * 1000), 1)
        self._indexed = False  # whether this store has put its session in P:sessions

    @property
    def client(self) -> Redis:
        """The client this store runs on (owned by the caller)."""
        return self._redis.client

    @property
    def prefix(self) -> str:
        """The prefix of every key this store writes."""
        return self._redis.prefix

    async def _ensure_indexed(self, created: float) -> None:
        if not self._indexed:
            r = self._redis
            await r.call("ZADD", r.index, "NX", repr(created), self._session_id)
            self._indexed = True

    def _message(self, row: Row) -> Message:
        return decode_message(self._session_id, row.seq, row.role, row.content)

    # -- the contract ----------------------------------------------------------------

    async def append(self, message: Message) -> None:
        role, content, tokens = encode_message(message)
        now = time.time()
        await self._ensure_indexed(now)
        r = self._redis
        row = f"0:{tokens}:{role}:{content}"
        await r.run(APPEND, [r.meta, r.log], (iso(now), row, tokens, _preview([message])))

    async def get_history(self) -> list[Message]:
        r = self._redis
        return [self._message(r.row(raw)) for raw in await r.call("LRANGE", r.log, 0, -1)]

    async def clear(self) -> None:
        """Remove the live history, its archive and compaction records; tokens are kept."""
        r = self._redis
        await r.batch(
            ("DEL", r.log, r.archive, r.compactions, r.journal),
            ("HDEL", r.meta, "compactions", "live_tokens"),
            ("HSET", r.meta, "preview", ""),
            ("HINCRBY", r.meta, "version", 1),
            atomic=True,
        )

    async def fork(self) -> RedisContextStore:
        """A new session with a copy of this one, copied on the server by one script.

        History, archive, compaction records and token counts are copied with
        ``COPY``; no message passes through Python, and appends or rewrites from other
        clients land wholly before or wholly after the copy. A session never written
        to forks into an empty session (nothing is written for either).
        """
        r = self._redis
        forked = RedisContextStore(r.client, prefix=r.prefix, lease=self._lease_ms / 1000)
        now = time.time()
        copied = await r.run(
            FORK,
            [*r.keys(self._session_id), *r.keys(forked.session_id), r.index],
            (iso(now), repr(now), forked.session_id),
        )
        forked._indexed = bool(copied)
        return forked

    async def set_context_tokens(self, input_tokens: int, output_tokens: int) -> None:
        await self._tokens("set", input_tokens, output_tokens)

    async def add_context_tokens(self, input_tokens: int, output_tokens: int) -> None:
        """Add one call's usage with ``HINCRBY`` on the server (atomic, both or neither)."""
        await self._tokens("add", input_tokens, output_tokens)

    async def _tokens(self, mode: str, input_tokens: int, output_tokens: int) -> None:
        add_in, add_out = int64(input_tokens, "input_tokens"), int64(output_tokens, "output_tokens")
        now = time.time()
        await self._ensure_indexed(now)
        r = self._redis
        try:
            await r.run(TOKENS, [r.meta], (mode, add_in, add_out, -add_in, iso(now)))
        except StoreError as exc:
            if "overflow" not in str(exc):
                raise
            raise ValueError(
                f"adding ({add_in}, {add_out}) tokens to session {self._session_id!r} would "
                "overflow its signed 64-bit token counters; nothing was added"
            ) from exc

    async def get_context_tokens(self) -> tuple[int, int]:
        r = self._redis
        got = await r.call("HMGET", r.meta, "input_tokens", "output_tokens")
        return (r.integer(got[0], "input_tokens"), r.integer(got[1], "output_tokens"))

    async def list_sessions(self) -> list[SessionInfo]:
        """Every session under this prefix that has been written to, newest first."""
        r = self._redis
        sids = [r.text(s) for s in await r.call("ZRANGE", r.index, 0, -1)]
        fields = ("created_at", "preview", "input_tokens", "output_tokens")
        commands: list[tuple[Any, ...]] = []
        for sid in sids:
            meta, log = r.keys(sid)[:2]
            commands += [("HMGET", meta, *fields), ("LLEN", log)]
        replies = await r.batch(*commands, atomic=False) if commands else []
        sessions = []
        for sid, (created, preview, tokens_in, tokens_out), count in zip(
            sids, replies[::2], replies[1::2], strict=True
        ):
            if created is None:  # indexed, then never written (or deleted by hand)
                continue
            sessions.append(
                SessionInfo(
                    sid,
                    int(count),
                    r.text(preview or ""),
                    r.text(created),
                    r.integer(tokens_in, f"input_tokens of session {sid!r}"),
                    r.integer(tokens_out, f"output_tokens of session {sid!r}"),
                )
            )
        sessions.sort(key=lambda s: s.session_id)
        sessions.sort(key=lambda s: s.created_at, reverse=True)
        return sessions

    async def replace_history(self, messages: Sequence[Message]) -> None:
        """Make ``messages`` the history, atomically.

        Messages at the start and at the end of the old history that ``messages``
        starts and ends with stay in place; the old messages between are archived
        (see :meth:`get_archive`) under a new :class:`CompactionRecord`. An append
        from another client lands wholly before the rewrite (and is replaced) or
        after it (and is kept).
        """
        await self._rewrite(None, _checked_copies(messages), None, None, None)

    async def replace_prefix(
        self,
        count: int,
        messages: Sequence[Message],
        *,
        expected: Sequence[Message] | None = None,
    ) -> CompactionRecord | None:
        """Replace the first ``count`` messages with ``messages``, keeping the rest.

        Messages appended after the caller read the history (by any process) are
        kept. Raises :class:`ValueError` (changing nothing) when the history has fewer
        than ``count`` messages. With ``expected`` it is a compare-and-swap: unless
        the first ``count`` messages equal ``expected`` when the rewrite commits,
        nothing is written and :class:`~contextfold.errors.HistoryConflictError` is
        raised. Returns the record written, or ``None`` when nothing was archived.
        """
        return await self._rewrite(count, _checked_copies(messages), expected, None, None)

    async def replace_snapshot(
        self,
        snapshot: Sequence[Message],
        messages: Sequence[Message],
        *,
        note: JournalEntry | None = None,
        last_compaction: int | None = None,
    ) -> bool:
        """Compare-and-swap (:class:`~contextfold.stores.base.SnapshotReplacing`): replace
        ``snapshot`` with ``messages`` if the history still starts with it, keeping every
        later message; ``False`` (nothing written) if any of it changed or moved, or
        when ``last_compaction`` is given and is not the session's last record number.
        ``note`` is journaled by the same script, naming the record written."""
        check_messages(messages)  # a message it could not read back is an error, not a race
        try:
            await self._rewrite(
                len(snapshot), _checked_copies(messages), snapshot, note, last_compaction
            )
        except HistoryConflictError:
            return False
        except ValueError:  # the history is shorter than the snapshot now
            return False
        return True

    async def _snapshot(self) -> tuple[str, int, list[Row]]:
        """``(version, last_seq, live rows)``, read in one ``MULTI``/``EXEC``."""
        r = self._redis
        (version, last_seq), raw = await r.batch(
            ("HMGET", r.meta, "version", "last_seq"), ("LRANGE", r.log, 0, -1), atomic=True
        )
        rows = [r.row(x) for x in raw]
        return r.text(version or "0"), r.integer(last_seq, "last_seq"), rows

    async def _rewrite(
        self,
        count: int | None,
        new: list[Message],
        expected: Sequence[Message] | None,
        note: JournalEntry | None,
        last_compaction: int | None,
    ) -> CompactionRecord | None:
        """Replace the first ``count`` rows (all when ``None``); see the module docstring.

        Plans from a snapshot and commits with ``REWRITE``, which writes only if no
        rewrite (and, when the plan numbers rows after the last one, no append) has
        happened since the snapshot; otherwise it reads and plans again. A message it
        could not read back raises :class:`ValueError` before anything is read or written.
        """
        encoded = {id(m): encode_message(m) for m in new}  # bad content fails before writing
        r = self._redis
        for _ in range(_ATTEMPTS):
            version, last_seq, rows = await self._snapshot()
            n = len(rows) if count is None else count
            if expected is not None and (
                len(expected) != n
                or n > len(rows)
                or [self._message(row) for row in rows[:n]] != list(expected)
            ):
                raise HistoryConflictError(
                    f"session {self._session_id!r}: its first {n} messages changed since "
                    "they were read; nothing was replaced"
                )
            old: dict[int, Message] = {}
            if 0 <= n <= len(rows):
                head, tail = rewrite_window(n, len(new))
                old = {i: self._message(rows[i]) for i in (*head, *tail)}
            seqs = [row.seq for row in rows]
            plan = plan_rewrite(seqs, n, old, new, last_seq + 1)  # ValueError: bad count
            if not plan.archive_count and not plan.inserts and note is None:
                return None
            front = bisect.bisect_left(seqs, plan.archive_from)
            stop = front + plan.archive_count
            # Recorded even when nothing is archived: a rewrite that moves live rows,
            # and every journaled one (whose inserts are rewrite products).
            record = note is not None or (bool(plan.inserts) and front < len(rows))
            flag = "1" if plan.synthetic or note is not None else "0"
            inserts = [encoded[id(m)] for m in plan.inserts]
            await self._ensure_indexed(time.time())
            result = await r.run(
                REWRITE,
                [r.meta, r.log, r.archive, r.compactions, r.journal],
                (
                    version,
                    last_seq if count is None or n == len(rows) else "",
                    front,
                    plan.archive_count,
                    sum(row.tokens for row in rows[front:stop]),
                    sum(e[2] for e in inserts),
                    plan.next_seq - 1 if plan.next_seq != last_seq + 1 else "",
                    iso(time.time()),
                    _preview(plan.inserts),
                    "" if note is None else encode_note(note),
                    "1" if record else "0",
                    "" if last_compaction is None else str(last_compaction),
                    *(
                        f"{plan.first_seq + i}:{flag}:{tokens}:{role}:{content}"
                        for i, (role, content, tokens) in enumerate(inserts)
                    ),
                ),
            )
            if result is not None:
                if r.text(result) == "!moved":
                    raise HistoryConflictError(
                        f"session {self._session_id!r}: another rewrite committed since "
                        "it was read; nothing was replaced"
                    )
                return self._record(result) if result else None
        raise StoreError(
            f"session {self._session_id!r}: gave up rewriting after {_ATTEMPTS} attempts; "
            "other clients kept changing the history"
        )

    def _record(self, raw: Any) -> CompactionRecord:
        """Parse a ``compactions`` row."""
        try:
            number, created, *counts = self._redis.text(raw).split(" ")
            values = [int(x) for x in (number, *counts)]
            if len(values) not in (6, 7):  # 6: written before kept_before was
                raise ValueError(f"{len(values)} numbers")
            number_, before, after, tokens_before, tokens_after, archived = values[:6]
            return CompactionRecord(
                self._session_id,
                number_,
                created,
                before,
                after,
                tokens_before,
                tokens_after,
                archived,
                kept_before=values[6] if len(values) == 7 else None,
            )
        except (ValueError, TypeError) as exc:
            raise CorruptRecordError(
                f"session {self._session_id!r}: a stored compaction record cannot be parsed "
                f"({exc}); it was written by something other than contextfold or was damaged"
            ) from exc

    # -- the archive -----------------------------------------------------------------

    async def get_compactions(self) -> list[CompactionRecord]:
        """The session's rewrite records, oldest first."""
        r = self._redis
        return [self._record(raw) for raw in await r.call("LRANGE", r.compactions, 0, -1)]

    async def journal(self) -> list[JournalEntry]:
        """The compaction journal (see :class:`~contextfold.stores.base.Journaling`),
        read in one ``MULTI``/``EXEC``."""
        r = self._redis
        records, raw = await r.batch(
            ("LRANGE", r.compactions, 0, -1), ("LRANGE", r.journal, 0, -1), atomic=True
        )
        lines: list[JournalLine] = []
        for item in raw:
            number, created, note = [*r.text(item).split(" ", 2), "", ""][:3]
            try:
                compaction = None if number == "-" else int(number)
            except ValueError as exc:
                raise CorruptRecordError(
                    f"session {self._session_id!r}: a stored journal line cannot be parsed "
                    f"({exc}); it was written by something other than contextfold or was "
                    "damaged"
                ) from exc
            lines.append((created, compaction, note))
        return build_journal(self._session_id, [self._record(x) for x in records], lines)

    async def write_journal(self, note: JournalEntry) -> None:
        """Add a journal line for an attempt that changed nothing."""
        r = self._redis
        await r.call("RPUSH", r.journal, f"- {iso(time.time())} {encode_note(note)}")

    async def undo(self, *, number: int | None = None) -> JournalEntry:
        """Put back the history before the last compaction (see
        :class:`~contextfold.stores.base.Journaling`)."""
        return await undo_last(self, number=number)

    async def get_archive(self) -> list[ArchivedMessage]:
        """Every message a rewrite removed from the live history, oldest rewrite first."""
        r = self._redis
        archived = []
        for raw in await r.call("LRANGE", r.archive, 0, -1):
            number, row = r.archived_row(raw)
            archived.append(ArchivedMessage(row.seq, number, row.synthetic, self._message(row)))
        return archived

    async def get_full_transcript(self) -> list[Message]:
        """Every message ever appended, live or archived, in the order appended.

        Messages a rewrite wrote into a non-empty history (summaries, edited copies)
        are not part of the original transcript: they are in :meth:`get_history`
        while live and in :meth:`get_archive`, flagged ``synthetic``, once replaced.
        """
        r = self._redis
        live, archived = await r.batch(
            ("LRANGE", r.log, 0, -1), ("LRANGE", r.archive, 0, -1), atomic=True
        )
        rows = [r.row(x) for x in live] + [r.archived_row(x)[1] for x in archived]
        return [
            self._message(row) for row in sorted(rows, key=lambda x: x.seq) if not row.synthetic
        ]

    # -- compaction single-flight ----------------------------------------------------

    def compaction_lock(self) -> AbstractAsyncContextManager[bool]:
        """Non-blocking try-lock on this session's compaction, across all processes.

        Yields ``True`` while this caller holds the lock, ``False`` when another
        coroutine or process holds it (skip compacting). The lock is a key set with
        ``SET NX PX`` to a random token; while the block runs it is renewed every
        third of the lease, and on exit it is deleted only if it still holds this
        caller's token. If the holder dies, the lock expires ``lease`` seconds after
        its last renewal. If renewing fails for longer than the lease (Redis
        unreachable, the event loop blocked), another process may take the lock; the
        commit stays safe, because compaction commits with a compare-and-swap.
        """
        return lease(self._redis, self._lease_ms)


def _checked_copies(messages: Sequence[Message]) -> list[Message]:
    """Copies of ``messages``, after refusing any the store could not read back."""
    check_messages(messages)
    return [m.copy() for m in messages]
