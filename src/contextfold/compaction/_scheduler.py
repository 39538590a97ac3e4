"""The compaction policy every face runs: when, one at a time, back-off, the time limit.

:class:`Scheduler` is the one object :class:`~contextfold.AutoCompactStore`, the context
manager and the proxy ask before they summarize, and tell how it went. It owns:

- **the trigger**: the limit rule and the user's ``should_compact`` hook
  (:mod:`._trigger`), asked the same way by every face;
- **single flight** (:class:`Flights`): at most one summary run per history; a caller
  that finds one running waits for it and looks again (or shares its answer) rather
  than paying for a second summary of the same history;
- **back-off** (:class:`BackOffs`): after the n-th failed run in a row, the next
  ``min(2**(n-1), max_backoff)`` triggers are skipped; a success starts over; a forced
  trigger (an overflow the upstream reported, ``compact(force=True)``) does not wait;
- **the time limit**: every summary run, prepared ahead or made at the limit, is
  bounded by ``summary_timeout``.

What a *history* is differs by face, so both tables are keyed by a *chain*: the keys
of a history's prefixes, shortest first. The store's chain is its one session (one
key), the manager's its one view, the proxy's the digests of a conversation's
prefixes: a run or a failure recorded for a prefix covers every history that extends
it. The tables are bounded (``max_entries``, least recently written dropped), since
the proxy keys them by what any client sends.

What each face keeps of its own is what its world makes different: where a summary
lives between requests (the store's rewritten history, the manager's and the proxy's
summary caches by prefix), and how it reads a prompt's size.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from contextfold.compaction._backoff import BackOff
from contextfold.compaction._engine import within_summary_timeout
from contextfold.compaction._settings import CompactionSettings
from contextfold.compaction._trigger import Face, TriggerCheck, TriggerHook, decide, due

__all__ = ["BackOffs", "Flights", "Scheduler"]

K = TypeVar("K", bound=Hashable)
_T = TypeVar("_T")

ENTRY_BYTES = 200
"""What one entry of a table holds, as estimated for a memory budget: its key (a
digest), the dict slot, and the state."""


class Flights(Generic[K]):
    """The summary runs in progress, by the key of the history each compacts.

    A run is a future: done when the run ends (its result, if it has one, is the run's
    answer). :meth:`running` finds the run of the longest prefix of a chain; a run is
    forgotten as soon as it ends.
    """

    def __init__(self) -> None:
        self._runs: dict[K, asyncio.Future[Any]] = {}
        # key -> its turn lock and how many callers hold or await it (see exclusive)
        self._turns: dict[K, tuple[asyncio.Lock, list[int]]] = {}

    def __len__(self) -> int:
        return sum(1 for run in self._runs.values() if not run.done())

    def __bool__(self) -> bool:
        return len(self) > 0

    def running(self, chain: Sequence[K]) -> tuple[K, asyncio.Future[Any]] | None:
        """The run of the longest prefix in ``chain`` still going, with its key."""
        for key in reversed(chain):
            run = self._runs.get(key)
            if run is not None and not run.done():
                return key, run
        return None

    def track(self, key: K, run: asyncio.Future[_T]) -> asyncio.Future[_T]:
        """Record ``run`` as the run of ``key`` until it ends, unless another run of
        ``key`` is still going (that one stays the one waiters find); returns ``run``."""
        current = self._runs.get(key)
        if current is not None and not current.done():
            return run
        self._runs[key] = run

        def ended(done: asyncio.Future[Any]) -> None:
            if self._runs.get(key) is done:
                del self._runs[key]

        run.add_done_callback(ended)
        return run

    @contextlib.contextmanager
    def hold(self, key: K) -> Iterator[asyncio.Future[None]]:
        """Record a run of ``key`` for as long as the ``with`` block lasts (the caller
        does the work itself); it ends, for those waiting on it, when the block ends,
        however it ends."""
        run: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.track(key, run)
        try:
            yield run
        finally:
            if not run.done():
                run.set_result(None)

    @contextlib.asynccontextmanager
    async def exclusive(self, key: K) -> AsyncIterator[asyncio.Future[None]]:
        """:meth:`hold` ``key`` once every caller that asked before has had its turn:
        callers of one key run one at a time, in the order they asked (a caller that
        comes straight back queues behind those already waiting)."""
        lock, users = self._turns.setdefault(key, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                with self.hold(key) as run:
                    yield run
        finally:
            users[0] -= 1
            if not users[0]:
                del self._turns[key]


class BackOffs(Generic[K]):
    """The back-off of each history whose summary failed (see :mod:`._backoff`)."""

    def __init__(
        self, max_backoff: int, max_entries: int | None = None, entry_bytes: int = ENTRY_BYTES
    ) -> None:
        self.max_backoff = max_backoff
        self.max_entries = max_entries
        self.entry_bytes = entry_bytes
        self._items: OrderedDict[K, BackOff] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    @property
    def nbytes(self) -> int:
        """What the table holds, as estimated (``entry_bytes`` an entry)."""
        return len(self._items) * self.entry_bytes

    def state(self, chain: Sequence[K]) -> BackOff:
        """The back-off of the longest prefix in ``chain`` that has one."""
        found = self.latest(chain)
        return BackOff() if found is None else found[1]

    def skip(self, chain: Sequence[K], *, forced: bool = False) -> BackOff | None:
        """Whether this trigger of ``chain`` is skipped: the back-off after it (one skip
        fewer to go), or ``None`` when it goes ahead (no back-off holds it, or it is
        ``forced``)."""
        found = self.latest(chain)
        if forced or found is None or not found[1].holding:
            return None
        key, backoff = found
        skipped = backoff.skipped()
        self._put(key, skipped)
        return skipped

    def latest(self, chain: Sequence[K]) -> tuple[K, BackOff] | None:
        """The record of the longest prefix in ``chain`` that has one, with its key:
        read when a run starts, and handed to :meth:`ended` when it ends, so runs that
        end meanwhile (a sibling branch, a longer history) do not change what this one
        counts from or clears."""
        items = self._items
        for key in reversed(chain):
            found = items.get(key)
            if found is not None:
                return key, found
        return None

    def ended(self, key: K, since: tuple[K, BackOff] | None, *, failed: bool) -> BackOff:
        """A run of the history ``key`` ended, ``since`` being :meth:`latest` when it
        started: that record is over either way; a failure records, under ``key``, one
        more failure in a row than it counted (its back-off is returned)."""
        if since is not None:
            self._items.pop(since[0], None)
        if not failed:
            return BackOff()
        backoff = (BackOff() if since is None else since[1]).failed(self.max_backoff)
        self._put(key, backoff)
        return backoff

    def ended_alone(self, chain: Sequence[K], *, failed: bool) -> BackOff:
        """:meth:`ended` for a history no other run can touch meanwhile (one key under
        single flight: the store's history, the manager's view), whose record read now
        is the one its run started from."""
        return self.ended(chain[-1], self.latest(chain), failed=failed)

    def _put(self, key: K, backoff: BackOff) -> None:
        self._items.pop(key, None)
        self._items[key] = backoff
        if self.max_entries is not None:
            while len(self._items) > self.max_entries:
                self._items.popitem(last=False)


class Scheduler(Generic[K]):
    """The compaction policy of one face (see the module doc).

    ``face`` names who asks (it is what the ``should_compact`` hook sees);
    ``should_compact``, ``max_backoff`` and ``summary_timeout`` mean what they mean in
    :class:`~contextfold.CompactionSettings`; ``max_entries`` bounds the back-off table
    (``entry_bytes``: an entry's size, as its memory is reported).
    """

    def __init__(
        self,
        face: Face,
        *,
        should_compact: TriggerHook | None = None,
        max_backoff: int = 32,
        summary_timeout: float | None = 120.0,
        max_entries: int | None = None,
        entry_bytes: int = ENTRY_BYTES,
    ) -> None:
        self.face: Face = face
        self.should_compact = should_compact
        self.summary_timeout = summary_timeout
        self.flights: Flights[K] = Flights()
        self.backoffs: BackOffs[K] = BackOffs(max_backoff, max_entries, entry_bytes)

    @classmethod
    def of(
        cls, face: Face, settings: CompactionSettings, *, max_entries: int | None = None
    ) -> Scheduler[K]:
        """The scheduler ``settings`` describe, for ``face``."""
        return cls(
            face,
            should_compact=settings.should_compact,
            max_backoff=settings.max_backoff,
            summary_timeout=settings.summary_timeout,
            max_entries=max_entries,
        )

    @property
    def max_backoff(self) -> int:
        return self.backoffs.max_backoff

    def check(
        self,
        model: str,
        tokens: int,
        limit: int,
        window: int,
        *,
        messages: int = 0,
        session: str = "",
    ) -> TriggerCheck:
        """What this face knows, as the ``should_compact`` hook receives it."""
        return TriggerCheck(self.face, model, tokens, limit, window, messages, session)

    async def due(self, tokens: int, limit: int, check: Callable[[], TriggerCheck]) -> bool:
        """Whether a prompt of ``tokens`` is compacted now: over ``limit``, unless the
        hook (asked with ``check()``, built only when there is a hook) decides
        otherwise."""
        if self.should_compact is None:
            return tokens > limit
        return await due(self.should_compact, check())

    async def answer(self, check: TriggerCheck) -> bool | None:
        """The hook's own answer to ``check`` (``None``: none, or it leaves it to the
        rule), for a face that acts on "not now" differently from the rule's "no"."""
        return await decide(self.should_compact, check)

    async def bounded(self, work: Awaitable[_T]) -> _T:
        """``await work`` within ``summary_timeout``: past it the work is cancelled and
        :class:`~contextfold.errors.CompactionError` says so."""
        return await within_summary_timeout(self.summary_timeout, work)
