"""The store contract: :class:`ContextStore`, :class:`SessionInfo`, :class:`MemoryContextStore`.

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
"""

from __future__ import annotations

import asyncio
import copy
import uuid
import weakref
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol, Self, runtime_checkable

from contextfold._storage import ArchivedMessage
from contextfold.blocks import TextBlock
from contextfold.messages import Message, check_message, check_messages

__all__ = [
    "ArchivedMessage",
    "Archiving",
    "Compactable",
    "CompactionLocking",
    "ContextStore",
    "MemoryContextStore",
    "PrefixReplacing",
    "SessionInfo",
    "SnapshotReplacing",
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

        The default copies into a new :class:`MemoryContextStore`; persistent stores
        copy inside their database under a new session id.
        """
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
    the archive durably (it survives restarts), :class:`MemoryContextStore` for the
    life of the object. ``get_archive()`` returns every message a rewrite
    (``replace_history``, ``replace_prefix``, ``replace_snapshot``) removed, oldest
    rewrite first and in history order inside a rewrite; rows that a rewrite kept
    in place (the same message at the same place) are not archived. ``clear()`` drops
    the archive with the history. :mod:`contextfold.recall` reads masked tool outputs
    and summarized ranges back from it.
    """

    async def get_archive(self) -> list[ArchivedMessage]: ...


class MemoryContextStore(ContextStore):
    """A store that keeps one session in process memory.

    Like the persistent stores, its session preview is the first user text the
    session was given; a compaction that rewrites the history does not change it.
    It is :class:`Archiving`: what a rewrite replaces is kept in memory (for the life
    of the store, so a long session's archive grows with every compaction); the
    ``seq`` of an archived message is its index in the history at that rewrite (and
    ``synthetic`` is not tracked: always ``False``).
    """

    def __init__(self, history: Iterable[Message] | None = None) -> None:
        self._messages: list[Message] = [m.copy() for m in history or ()]
        self._archive: list[ArchivedMessage] = []
        self._rewrites = 0
        self._input_tokens = 0
        self._output_tokens = 0
        self._created_at = _now()
        self._preview = preview_of(self._messages)

    def _note_preview(self, messages: Iterable[Message]) -> None:
        if not self._preview:
            self._preview = preview_of(messages)

    async def append(self, message: Message) -> None:
        check_message(message)
        self._messages.append(message.copy())
        if not self._preview and message.role == "user":
            self._note_preview([message])

    async def get_history(self) -> list[Message]:
        return [m.copy() for m in self._messages]

    async def clear(self) -> None:
        self._messages = []
        self._archive = []
        self._preview = ""

    def _archive_replaced(self, count: int, messages: Sequence[Message]) -> None:
        """Archive what replacing the first ``count`` messages with ``messages`` removes:
        the span between the messages it starts and ends with unchanged."""
        old = self._messages[:count]
        width = min(len(old), len(messages))
        front = 0
        while front < width and old[front] == messages[front]:
            front += 1
        back = 0
        while (
            back < width - front and old[len(old) - 1 - back] == messages[len(messages) - 1 - back]
        ):
            back += 1
        removed = range(front, len(old) - back)
        if not removed:
            return
        self._rewrites += 1
        self._archive.extend(
            ArchivedMessage(i, self._rewrites, False, old[i].copy()) for i in removed
        )

    async def get_archive(self) -> list[ArchivedMessage]:
        """Every message a rewrite removed, oldest rewrite first (see :class:`Archiving`)."""
        return [
            ArchivedMessage(a.seq, a.compaction, a.synthetic, a.message.copy())
            for a in self._archive
        ]

    async def replace_history(self, messages: Sequence[Message]) -> None:
        check_messages(messages)
        self._archive_replaced(len(self._messages), messages)
        self._messages = [m.copy() for m in messages]
        self._note_preview(messages)

    async def replace_prefix(self, count: int, messages: Sequence[Message]) -> None:
        """Replace the first ``count`` messages with ``messages``, keeping the rest."""
        check_messages(messages)
        if not 0 <= count <= len(self._messages):
            raise ValueError(
                f"cannot replace {count} messages of a {len(self._messages)}-message history"
            )
        self._archive_replaced(count, messages)
        self._messages[:count] = [m.copy() for m in messages]
        self._note_preview(messages)

    async def replace_snapshot(
        self, snapshot: Sequence[Message], messages: Sequence[Message]
    ) -> bool:
        """Put ``messages`` in place of ``snapshot`` if the history still starts with it.

        See :class:`SnapshotReplacing`; returns ``False`` and changes nothing otherwise.
        """
        check_messages(messages)
        if self._messages[: len(snapshot)] != list(snapshot):
            return False
        self._archive_replaced(len(snapshot), messages)
        self._messages[: len(snapshot)] = [m.copy() for m in messages]
        self._note_preview(messages)
        return True

    async def fork(self) -> MemoryContextStore:
        forked = MemoryContextStore(copy.deepcopy(self._messages))
        forked._input_tokens, forked._output_tokens = self._input_tokens, self._output_tokens
        forked._preview = self._preview
        forked._archive = [
            ArchivedMessage(a.seq, a.compaction, a.synthetic, a.message.copy())
            for a in self._archive
        ]
        forked._rewrites = self._rewrites
        return forked

    async def list_sessions(self) -> list[SessionInfo]:
        return [
            SessionInfo(
                session_id=self.session_id,
                message_count=len(self._messages),
                preview=self._preview,
                created_at=self._created_at,
                input_tokens=self._input_tokens,
                output_tokens=self._output_tokens,
            )
        ]

    async def set_context_tokens(self, input_tokens: int, output_tokens: int) -> None:
        self._input_tokens, self._output_tokens = input_tokens, output_tokens

    async def get_context_tokens(self) -> tuple[int, int]:
        return (self._input_tokens, self._output_tokens)

    async def add_context_tokens(self, input_tokens: int, output_tokens: int) -> None:
        self._input_tokens += input_tokens
        self._output_tokens += output_tokens

    def __len__(self) -> int:
        return len(self._messages)


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
