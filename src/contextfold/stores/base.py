"""The store contract: :class:`ContextStore`, :class:`SessionInfo` and the capability protocols.

A store holds one conversation (a *session*) and the cumulative token counts
reported for it. Only :meth:`ContextStore.append` and
:meth:`ContextStore.get_history` are abstract; every other member has a working
default that persistent stores override with something faster or atomic.

Rules every store obeys:

* ``append`` is atomic: once awaited, the message is visible to the next
  ``get_history``;
* ``get_history`` returns a fresh list in insertion order; mutating it (or the
  messages in it) never changes the store;
* a message the store could not read back (see
  :func:`~contextfold.messages.check_message`) is refused with :class:`ValueError`
  at ``append`` / ``replace_history``, and nothing is written.

Beyond the contract, a store may offer capabilities, each a protocol checked with
``isinstance``: :class:`Compactable`, :class:`CompactionLocking`,
:class:`PrefixReplacing`, :class:`SnapshotReplacing` and :class:`Archiving` (its
archive holds :class:`ArchivedMessage` records; the persistent stores also list each
rewrite as a :class:`CompactionRecord`). Every store contextfold ships
(:mod:`contextfold.stores`) builds on this module.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import inspect
import uuid
import weakref
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, Protocol, Self, TypeGuard, runtime_checkable

from contextfold.blocks import TextBlock
from contextfold.messages import Message, check_messages

__all__ = [
    "ArchivedMessage",
    "Archiving",
    "Compactable",
    "CompactionLocking",
    "CompactionRecord",
    "ContextStore",
    "JournalEntry",
    "Journaling",
    "PrefixReplacing",
    "SessionInfo",
    "SnapshotReplacing",
    "journals_commits",
    "last_undoable",
    "preview_of",
]

PREVIEW_CHARS = 80


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """A line in a session listing."""

    session_id: str
    message_count: int
    preview: str
    created_at: str
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True, slots=True)
class CompactionRecord:
    """What one history rewrite (``replace_history`` / ``replace_prefix``) did.

    ``number`` counts the session's rewrites from 1. Token figures are estimates
    (:func:`contextfold.tokens.count_tokens`'s heuristic) of the live history just
    before and just after the rewrite.
    """

    session_id: str
    number: int
    created_at: str
    messages_before: int
    messages_after: int
    tokens_before: int
    tokens_after: int
    archived: int
    kept_before: int | None = None
    """How many live messages before the archived ones the rewrite kept in place
    (``None`` in a record written before contextfold kept it); with the counts above
    it locates the messages the rewrite wrote, which :meth:`Journaling.undo` needs."""

    @property
    def inserted(self) -> int:
        """How many messages the rewrite wrote in place of the archived ones."""
        return self.messages_after - self.messages_before + self.archived


JournalKind = Literal["compaction", "undo", "attempt"]


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One line of a session's compaction journal (see :class:`Journaling`).

    ``kind`` is ``compaction`` (a rewrite of the history: a summary, masking, any
    ``replace_*`` call), ``undo`` (an :meth:`Journaling.undo`, which names the
    rewrite it reverted in ``undoes``) or ``attempt`` (a compaction attempt that
    changed nothing: ``failed``, ``rejected``, ``conflict``, ``discarded``).
    ``compaction`` is the :class:`CompactionRecord` number the entry's rewrite wrote
    (``None`` when nothing was archived); the counts ``messages_*`` and the estimates
    ``tokens_*`` come from that record. The rest is what the compactor saw:
    ``real_tokens_before`` the model-reported prompt size that triggered,
    ``summary`` the summary text committed, the summarizer's model, usage and
    requests, ``duration_s`` of the attempt, ``waited_s`` the caller's wait, and
    ``facts`` the fact ledger's coverage (``found``, ``kept``, ``restored``,
    ``dropped``, ``tokens``). A rewrite no compactor described (a direct
    ``replace_history``) has ``outcome`` ``None`` and no summarizer figures.
    """

    number: int
    created_at: str
    kind: JournalKind
    outcome: str | None = None
    trigger: str | None = None
    compaction: int | None = None
    undoes: int | None = None
    messages_before: int | None = None
    messages_after: int | None = None
    tokens_before: int | None = None
    tokens_after: int | None = None
    real_tokens_before: int | None = None
    summarized_messages: int = 0
    summary: str | None = None
    summarizer_model: str | None = None
    summarizer_input_tokens: int = 0
    summarizer_output_tokens: int = 0
    summarizer_requests: int = 0
    duration_s: float | None = None
    waited_s: float | None = None
    facts: dict[str, int] | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The entry as JSON data (every field, ``None`` included)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def last_undoable(journal: Sequence[JournalEntry]) -> JournalEntry | None:
    """The journal's entry of the last rewrite that is neither undone nor an undo (the
    one :meth:`Journaling.undo` would revert), or ``None``."""
    undone = {e.undoes for e in journal if e.kind == "undo"}
    candidates = [
        e
        for e in journal
        if e.kind == "compaction" and e.compaction is not None and e.compaction not in undone
    ]
    return max(candidates, key=lambda e: e.compaction or 0, default=None)


@dataclass(frozen=True, slots=True)
class ArchivedMessage:
    """A message a rewrite removed from the live history (see :class:`Archiving`).

    ``seq`` is its place in the session's transcript, ``compaction`` the
    :attr:`CompactionRecord.number` of the rewrite that archived it, and
    ``synthetic`` is true when the message was itself written by an earlier rewrite
    (an older summary) rather than appended.
    """

    seq: int
    compaction: int
    synthetic: bool
    message: Message


def preview_of(messages: Iterable[Message]) -> str:
    """At most 80 characters of the first user text, on one line."""
    for message in messages:
        if message.role != "user":
            continue
        for block in message.content:
            if isinstance(block, TextBlock) and block.text.strip():
                return " ".join(block.text.split())[:PREVIEW_CHARS]
    return ""


def _now() -> str:
    return datetime.now(UTC).isoformat()


class ContextStore(ABC):
    """A conversation store. Subclass it and implement ``append`` and ``get_history``."""

    @abstractmethod
    async def append(self, message: Message) -> None:
        """Add ``message`` at the end of the history, atomically."""

    @abstractmethod
    async def get_history(self) -> list[Message]:
        """A fresh list of every message, in insertion order."""

    @property
    def session_id(self) -> str:
        """This session's id; a random hex id is made on first access if none was set."""
        sid: str | None = getattr(self, "_session_id", None)
        if sid is None:
            sid = uuid.uuid4().hex
            self._session_id = sid
        return sid

    @session_id.setter
    def session_id(self, value: str) -> None:
        self._session_id = value

    async def clear(self) -> None:
        """Remove every message. Stores that support it override this."""
        raise NotImplementedError(f"{type(self).__name__} does not support clear()")

    async def fork(self) -> ContextStore:
        """An independent copy of this session (history and token counts).

        The default copies into a new
        :class:`~contextfold.stores.memory.MemoryContextStore`; persistent stores copy
        inside their database under a new session id.
        """
        # Imported here: the memory store is built on this module.
        from contextfold.stores.memory import MemoryContextStore

        forked = MemoryContextStore(copy.deepcopy(await self.get_history()))
        await forked.set_context_tokens(*await self.get_context_tokens())
        return forked

    async def close(self) -> None:
        """Release resources owned by the store (by default there are none)."""

    async def set_context_tokens(self, input_tokens: int, output_tokens: int) -> None:
        """Store the cumulative token counts (ignored by stores that do not track them)."""

    async def get_context_tokens(self) -> tuple[int, int]:
        """The cumulative ``(input, output)`` token counts of this session."""
        return (0, 0)

    async def add_context_tokens(self, input_tokens: int, output_tokens: int) -> None:
        """Add one model call's usage to the cumulative counts.

        The default reads, adds and writes under a lock of this store object, so
        concurrent calls on it never lose an update (stores shared across processes
        override it with an atomic increment).
        """
        async with _tokens_lock(self):
            current_in, current_out = await self.get_context_tokens()
            await self.set_context_tokens(current_in + input_tokens, current_out + output_tokens)

    async def list_sessions(self) -> list[SessionInfo]:
        """Sessions this store can see; by default just this one."""
        history = await self.get_history()
        input_tokens, output_tokens = await self.get_context_tokens()
        created: str | None = getattr(self, "_created_at", None)
        if created is None:
            created = _now()
            self._created_at = created
        return [
            SessionInfo(
                session_id=self.session_id,
                message_count=len(history),
                preview=preview_of(history),
                created_at=created,
                input_tokens=input_tokens,
                output_tokens=output_tokens,
            )
        ]

    async def replace_history(self, messages: Sequence[Message]) -> None:
        """Replace the whole history with ``messages``.

        The default checks every message first (:class:`ValueError` and nothing
        written when one could not be read back), then runs ``clear()`` and ``append``
        for each message; persistent stores override it with one atomic transaction.
        """
        check_messages(messages)
        await self.clear()
        for message in messages:
            await self.append(message)

    @classmethod
    async def from_history(cls, messages: Iterable[Message], /, *args: Any, **kwargs: Any) -> Self:
        """A new store of this class holding ``messages``.

        Extra arguments go to the constructor, so stores that need one work too:
        ``await SQLiteContextStore.from_history(msgs, conn)``.
        """
        try:
            store = cls(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(
                f"{cls.__name__}.from_history could not construct {cls.__name__}: {exc}. "
                f"Pass the constructor's arguments after the messages, e.g. "
                f"{cls.__name__}.from_history(messages, <constructor args>)"
            ) from exc
        for message in messages:
            await store.append(message)
        return store

    @classmethod
    async def from_context(cls, store: ContextStore, /, *args: Any, **kwargs: Any) -> Self:
        """A new store of this class with a copy of ``store``'s history and token counts."""
        new = await cls.from_history(await store.get_history(), *args, **kwargs)
        await new.set_context_tokens(*await store.get_context_tokens())
        return new


@runtime_checkable
class Compactable(Protocol):
    """A store that can compact itself on request (e.g. after a context-overflow error)."""

    async def compact(self, *, force: bool = False) -> bool:
        """Compact now; return whether the history changed."""
        ...


@runtime_checkable
class CompactionLocking(Protocol):
    """A store that can make compaction single-flight across processes.

    ``compaction_lock()`` is a non-blocking try-lock: it yields ``True`` when this
    caller holds the session's compaction lock until the block exits, ``False`` when
    another process is compacting the session right now (the caller should skip).
    """

    def compaction_lock(self) -> AbstractAsyncContextManager[bool]: ...


@runtime_checkable
class PrefixReplacing(Protocol):
    """A store that can replace the first ``count`` messages and keep the rest, atomically.

    Compaction commits through it when the store is not :class:`SnapshotReplacing`:
    messages appended after the snapshot (by this process or another) are never
    touched, so no lock is needed around appends. It does not check what the prefix
    holds; a store shared across processes should also be :class:`SnapshotReplacing`.
    """

    async def replace_prefix(self, count: int, messages: Sequence[Message]) -> object: ...


@runtime_checkable
class SnapshotReplacing(Protocol):
    """A store whose compaction commit is a compare-and-swap on the summarized snapshot.

    ``replace_snapshot(snapshot, messages)`` checks, atomically with the write, that
    the history still starts with exactly ``snapshot``; if so it puts ``messages`` in
    its place, keeps every later message, and returns ``True``. If anything in that
    range changed or moved (another connection or process rewrote it), it writes
    nothing and returns ``False``.
    """

    async def replace_snapshot(
        self, snapshot: Sequence[Message], messages: Sequence[Message]
    ) -> bool: ...


@runtime_checkable
class Archiving(Protocol):
    """A store that keeps what history rewrites took out of the live history.

    Every store contextfold ships is one: the SQLite, PostgreSQL and Redis stores keep
    the archive durably (it survives restarts),
    :class:`~contextfold.stores.memory.MemoryContextStore` for the life of the object.
    ``get_archive()`` returns every message a rewrite (``replace_history``,
    ``replace_prefix``, ``replace_snapshot``) removed, oldest rewrite first and in
    history order inside a rewrite; rows that a rewrite kept in place (the same message
    at the same place) are not archived. ``clear()`` drops the archive with the
    history. :mod:`contextfold.recall` reads masked tool outputs and summarized ranges
    back from it.
    """

    async def get_archive(self) -> list[ArchivedMessage]: ...


@runtime_checkable
class Journaling(Protocol):
    """A store that keeps a journal of its compactions and can undo the last one.

    Every store contextfold ships is one. ``journal()`` lists the session's
    :class:`JournalEntry` lines, oldest first: one per rewrite (written in the same
    transaction as the rewrite, so a rewrite is never missing from it) and one per
    failed attempt or undo. ``replace_snapshot(..., note=)`` commits a compaction and
    its journal line together; ``write_journal(note)`` adds a line for an attempt
    that changed nothing; ``last_compaction=N`` makes the compare-and-swap also require
    that N is still the session's last record (every rewrite that moves live messages,
    and every journaled one, writes a record). ``undo()`` puts back the history as it
    was before the last rewrite not yet undone: the archived originals in place of what it wrote,
    followed by everything appended since, as one compare-and-swap; it raises
    :class:`~contextfold.errors.NothingToUndoError` when there is nothing to undo and
    :class:`~contextfold.errors.HistoryConflictError` when another rewrite committed
    meanwhile (``number=`` pins which rewrite the caller means).
    """

    async def journal(self) -> list[JournalEntry]: ...

    async def write_journal(self, note: JournalEntry) -> None: ...

    async def replace_snapshot(
        self,
        snapshot: Sequence[Message],
        messages: Sequence[Message],
        *,
        note: JournalEntry | None = None,
        last_compaction: int | None = None,
    ) -> bool: ...

    async def undo(self, *, number: int | None = None) -> JournalEntry: ...


def journals_commits(store: object) -> TypeGuard[Journaling]:
    """Whether ``store`` is :class:`Journaling` and its ``replace_snapshot`` takes
    ``note=`` (a subclass of a shipped store may override it with the older
    signature: its commits are then journaled as bare rewrites, and it cannot undo)."""
    return isinstance(store, Journaling) and _takes_note(type(store))


@functools.cache
def _takes_note(kind: type) -> bool:
    try:
        parameters = inspect.signature(kind.replace_snapshot).parameters  # type: ignore[attr-defined]
    except (AttributeError, TypeError, ValueError):
        return False
    return "note" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )


_token_locks: weakref.WeakKeyDictionary[ContextStore, asyncio.Lock] = weakref.WeakKeyDictionary()


def _tokens_lock(store: ContextStore) -> asyncio.Lock:
    """The lock serialising the default ``add_context_tokens`` of ``store``.

    Kept beside the store rather than on it: subclasses need not call
    ``super().__init__()`` and may use ``__slots__``. A store that cannot be weakly
    referenced (or hashed) keeps its lock in its instance dictionary, if it has one.
    """
    try:
        lock = _token_locks.get(store)
        if lock is None:
            lock = _token_locks[store] = asyncio.Lock()
        return lock
    except TypeError:
        attrs = getattr(store, "__dict__", None)
        if attrs is None:
            return asyncio.Lock()  # nowhere to keep one: no worse than no lock
        lock = attrs.get("_contextfold_tokens_lock")
        if not isinstance(lock, asyncio.Lock):
            lock = attrs["_contextfold_tokens_lock"] = asyncio.Lock()
        return lock
