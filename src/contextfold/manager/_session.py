"""The manager's history in memory and, with a store, in the store: :class:`Session`.

Every change is validated first, written to the store next and applied in memory
last, under one lock, so memory and store never disagree: a write that fails changes
nothing, and a call cancelled during its write still finishes it (and records it)
before the cancellation goes through. Summaries the view summarizer caches are
written to the same store (see :mod:`contextfold.manager._persist`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Sequence

from contextfold.compaction._cache import CachedSummary
from contextfold.context import ContextStore
from contextfold.manager._history import Snapshot, StoredHistory, SummaryCache
from contextfold.manager._persist import Persistence

__all__ = ["Session"]

logger = logging.getLogger("contextfold.manager")


def covers(entry: CachedSummary[bytes], snapshot: Snapshot) -> bool:
    """Whether ``entry`` summarizes a prefix ``snapshot`` still starts with."""
    return (
        entry.message_count < len(snapshot.dicts)
        and snapshot.chain[entry.message_count] == entry.prefix_hash
    )


async def _settle(write: Awaitable[None]) -> bool:
    """Await ``write`` to its end even when the caller is cancelled meanwhile.

    Returns whether the caller was cancelled (it re-raises after recording what was
    written); the write's own exception propagates.
    """
    task = asyncio.ensure_future(write)
    interrupted = False
    while True:
        try:
            await asyncio.shield(task)
            return interrupted
        except asyncio.CancelledError:
            if task.cancelled():
                raise
            interrupted = True


class Session:
    """``history`` (and ``cache``'s summaries) kept in ``store`` too, when there is one.

    :meth:`load` resumes the store once (the other methods call it); after a resume
    from a non-empty store, :meth:`replace` is ignored until the history changes.
    """

    def __init__(
        self, history: StoredHistory, cache: SummaryCache, store: ContextStore | None
    ) -> None:
        self.history = history
        self.cache = cache
        self.store = store
        self._persistence = None if store is None else Persistence(store)
        self._lock = asyncio.Lock()
        self._loaded = store is None
        self.resumed = False

    @property
    def session_id(self) -> str | None:
        return None if self.store is None else self.store.session_id

    async def load(self) -> bool:
        """Resume the store's session (once); whether there was anything to resume.

        A store error (or :class:`~contextfold.errors.CorruptRecordError`) propagates
        and the next call tries again.
        """
        if self._loaded:
            return self.resumed
        async with self._lock:
            if self._loaded or self._persistence is None:
                return self.resumed
            dicts, summaries = await self._persistence.load()
            self.history.adopt(self.history.replaced(dicts))
            snapshot = self.history.snapshot()
            for entry in summaries:
                if covers(entry, snapshot):
                    self.cache.store(entry)
            self.resumed = bool(dicts)
            self._loaded = True
            if dicts:
                logger.info(
                    "resumed session %s: %d messages, %d cached summaries",
                    self.session_id,
                    len(dicts),
                    len(summaries),
                )
            return self.resumed

    async def add(self, message: object) -> None:
        await self.load()
        async with self._lock:
            pending = self.history.prepare(message)
            interrupted = False
            if self._persistence is not None:
                interrupted = await _settle(
                    self._persistence.append(pending.stored, pending.length)
                )
            self.history.commit(pending)
            self.resumed = False
        if interrupted:
            raise asyncio.CancelledError

    async def replace(self, messages: Sequence[object]) -> None:
        await self.load()
        async with self._lock:
            if self.resumed:
                logger.info(
                    "set_messages(%d messages) ignored: session %s was resumed from its store",
                    len(messages),
                    self.session_id,
                )
                return
            fresh = self.history.replaced(messages)
            interrupted = False
            if self._persistence is not None:
                snapshot = fresh.snapshot()
                still = [e for e in self.cache.entries() if covers(e, snapshot)]
                interrupted = await _settle(self._persistence.replace(snapshot.dicts, still))
            self.history.adopt(fresh)
        if interrupted:
            raise asyncio.CancelledError

    async def clear(self) -> None:
        await self.load()
        async with self._lock:
            interrupted = False
            if self._persistence is not None:
                interrupted = await _settle(self._persistence.clear())
            self.history.clear()
            self.cache.clear()
            self.resumed = False
        if interrupted:
            raise asyncio.CancelledError

    async def save_summary(self, entry: CachedSummary[bytes]) -> None:
        """Write a cached summary to the store (under the lock: one manager never runs
        two store calls at once, so a store on a single connection is safe)."""
        if self._persistence is not None:
            async with self._lock:
                await self._persistence.save_summary(entry)
