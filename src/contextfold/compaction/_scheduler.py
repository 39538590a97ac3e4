"""The compaction policy every face runs: when, one at a time, back-off, the time limit,
preparation ahead of the limit.

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
- **preparation** (:class:`Preparations`): a summary made in the background before the
  limit, kept until the limit takes it: per history at most one in preparation and one
  waiting, none again after one that failed (until the face allows it), a cap on how
  many run at once;
- **the time limit**: every summary run, prepared ahead or made at the limit, is
  bounded by ``summary_timeout`` (:meth:`Scheduler.bounded`).

What a *history* is differs by face, so the tables are keyed by a *chain*: the keys
of a history's prefixes, shortest first. The store's chain is its one session (one
key), the manager's its one view, the proxy's the digests of a conversation's
prefixes: a run or a failure recorded for a prefix covers every history that extends
it. The tables are bounded (least recently written dropped), since the proxy keys
them by what any client sends.

What each face keeps of its own is what its world makes different: where a summary
lives between requests (the store's rewritten history, the manager's and the proxy's
summary caches by prefix), what a prepared result is (the store's plan of a snapshot,
the manager's and the proxy's cache entries) and when it may be used, and how it
reads a prompt's size.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import operator
from collections import OrderedDict
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Hashable,
    Iterator,
    Mapping,
    Sequence,
)
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from contextfold.compaction._backoff import BackOff
from contextfold.compaction._engine import warm_ledger, within_summary_timeout
from contextfold.compaction._settings import CompactionSettings
from contextfold.compaction._trigger import Face, TriggerCheck, TriggerHook, decide, due

__all__ = ["BackOffs", "Flights", "Preparation", "Preparations", "Scheduler"]

K = TypeVar("K", bound=Hashable)
R = TypeVar("R")
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


class Preparations(Generic[K, R]):
    """Summaries prepared ahead of the limit, by the key of the history each prepares.

    Per key, at most one preparation runs (a background task :meth:`start` made) and
    at most one result waits for the limit (:meth:`keep`, :meth:`take` hands it over
    once). A preparation that ended in a way that says "no more for this history"
    (:meth:`fail`: a summary that failed or could not summarize) is not started again
    for that key, nor for a history extending it, until :meth:`allow` says so: without
    that rule a model call would be paid on every request past the prepare point.

    Bounded for the faces keyed by what clients send: ``max_running`` preparations at
    once (each holds its history until its summary returns), results held to
    ``max_bytes`` (each kept with its size, the least recently kept dropped), failures
    to ``max_failed`` entries of ``failed_bytes`` each; ``None``: unbounded.
    """

    def __init__(
        self,
        *,
        max_running: int | None = None,
        max_bytes: int | None = None,
        max_failed: int | None = None,
        failed_bytes: int = ENTRY_BYTES,
    ) -> None:
        self.bound(
            max_running=max_running,
            max_bytes=max_bytes,
            max_failed=max_failed,
            failed_bytes=failed_bytes,
        )
        self.closed = False
        self._running: dict[K, asyncio.Task[None]] = {}
        self.in_flight: Mapping[K, asyncio.Task[None]] = MappingProxyType(self._running)
        """The preparations running now, by key (a live, read-only view)."""
        # Every preparation not ended yet, including one that finished preparing and
        # goes on to commit (see finish): close() ends them all.
        self._tasks: set[asyncio.Task[None]] = set()
        self._ready: OrderedDict[K, tuple[R, int]] = OrderedDict()
        self.ready_nbytes = 0
        self._failed: OrderedDict[K, None] = OrderedDict()

    def bound(
        self,
        *,
        max_running: int | None,
        max_bytes: int | None,
        max_failed: int | None,
        failed_bytes: int = ENTRY_BYTES,
    ) -> None:
        """Set the bounds (see the class doc), before anything is prepared."""
        self.max_running = max_running
        self.max_bytes = max_bytes
        self.max_failed = max_failed
        self.failed_bytes = failed_bytes

    def __len__(self) -> int:
        """How many preparations run now."""
        return sum(1 for task in self._running.values() if not task.done())

    @property
    def full(self) -> bool:
        """Whether ``max_running`` preparations run now (:meth:`start` refuses)."""
        return self.max_running is not None and len(self) >= self.max_running

    @property
    def failed_nbytes(self) -> int:
        """What the failures recorded hold, as estimated (``failed_bytes`` an entry)."""
        return len(self._failed) * self.failed_bytes

    def of(self, key: K) -> Preparation[K, R]:
        """The preparation of ``key``'s history, for a face that has only that one."""
        return Preparation(self, key)

    def running(self, key: K) -> bool:
        """Whether ``key``'s history is being prepared now."""
        task = self._running.get(key)
        return task is not None and not task.done()

    def ready(self, key: K) -> R | None:
        """The result waiting under ``key``, left there."""
        found = self._ready.get(key)
        return None if found is None else found[0]

    def ready_in(self, chain: Sequence[K]) -> K | None:
        """The longest prefix in ``chain`` that has a result waiting."""
        # the scan runs in C (a prefix chain of a long history misses on most keys)
        found = map(self._ready.__contains__, reversed(chain))
        try:
            return chain[len(chain) - 1 - operator.indexOf(found, True)]
        except ValueError:
            return None

    def failed(self, chain: Sequence[K]) -> bool:
        """Whether a failure is recorded for a prefix in ``chain``."""
        return any(map(self._failed.__contains__, chain))

    def start(
        self, chain: Sequence[K], work: Callable[[], Awaitable[None]]
    ) -> asyncio.Task[None] | None:
        """Run ``work()`` in the background as the preparation of ``chain[-1]``'s
        history; its task, or ``None`` when refused: closed, :attr:`full`, that key
        running or a result of it waiting, or a failure recorded for any key of
        ``chain``. ``work`` is called only when it starts."""
        key = chain[-1]
        if self.closed or self.full or self.running(key) or key in self._ready:
            return None
        if self.failed(chain):
            return None
        task = asyncio.ensure_future(self._run(key, work))
        self._running[key] = task
        self._tasks.add(task)
        task.add_done_callback(functools.partial(self._ended, key))
        return task

    async def _run(self, key: K, work: Callable[[], Awaitable[None]]) -> None:
        try:
            await work()
        finally:  # at once, not a loop turn later: in_flight shows what still runs
            self._release(key, asyncio.current_task())

    def _ended(self, key: K, task: asyncio.Task[None]) -> None:
        # also for a task cancelled before it ran, whose finally never did
        self._tasks.discard(task)
        self._release(key, task)

    def _release(self, key: K, task: asyncio.Task[Any] | None) -> None:
        if task is not None and self._running.get(key) is task:
            del self._running[key]

    def finish(self, key: K) -> None:
        """Called by ``key``'s preparation itself when its summary is ready and it goes
        on to commit (which must not wait for it): it no longer counts as running."""
        self._release(key, asyncio.current_task())

    async def wait(self, key: K, seconds: float | None) -> None:
        """Wait up to ``seconds`` for ``key``'s preparation (if one runs) to finish."""
        task = self._running.get(key)
        if task is not None and not task.done():
            await asyncio.wait([task], timeout=seconds)

    def keep(self, key: K, result: R, size: int = ENTRY_BYTES) -> None:
        """Keep ``result`` (``size`` bytes, as estimated) under ``key`` until the limit
        takes it, replacing any; the least recently kept results go past ``max_bytes``
        (one larger than that alone is not kept)."""
        self.take(key)
        if self.max_bytes is not None and size > self.max_bytes:
            return
        self._ready[key] = (result, size)
        self.ready_nbytes += size
        if self.max_bytes is not None:
            while self.ready_nbytes > self.max_bytes:
                _, (_, dropped) = self._ready.popitem(last=False)
                self.ready_nbytes -= dropped

    def take(self, key: K) -> R | None:
        """The result waiting under ``key``, handed over once."""
        found = self._ready.pop(key, None)
        if found is None:
            return None
        self.ready_nbytes -= found[1]
        return found[0]

    def fail(self, key: K) -> None:
        """Prepare ``key``'s history (and those extending it) no more: its preparation
        failed, or could not summarize. The oldest record goes past ``max_failed``."""
        self._failed.pop(key, None)
        self._failed[key] = None
        if self.max_failed is not None:
            while len(self._failed) > self.max_failed:
                self._failed.popitem(last=False)

    def allow(self, key: K) -> None:
        """Forget the failure recorded for ``key`` (a summary was made at the limit)."""
        self._failed.pop(key, None)

    async def cancel(self, key: K) -> None:
        """Cancel ``key``'s preparation if one runs (the history it reads is gone)."""
        task = self._running.pop(key, None)
        if task is not None and not task.done():
            task.cancel()
            await asyncio.wait([task])

    async def close(self) -> None:
        """Cancel every preparation not ended (one committing included) and start none
        again (the face is closing)."""
        self.closed = True
        self._running.clear()  # none counts as running while it is being cancelled
        tasks = [task for task in self._tasks if not task.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)


class Preparation(Generic[K, R]):
    """One key's entry in :class:`Preparations`, for a face with one history (the
    store's, the manager's view): the same table, the key filled in."""

    def __init__(self, table: Preparations[K, R], key: K) -> None:
        self.table = table
        self.key = key

    @property
    def running(self) -> bool:
        return self.table.running(self.key)

    @property
    def ready(self) -> R | None:
        return self.table.ready(self.key)

    @property
    def failed(self) -> bool:
        return self.table.failed((self.key,))

    def start(self, work: Callable[[], Awaitable[None]]) -> bool:
        """:meth:`Preparations.start`; whether it started."""
        return self.table.start((self.key,), work) is not None

    def finish(self) -> None:
        self.table.finish(self.key)

    async def wait(self, seconds: float | None) -> None:
        await self.table.wait(self.key, seconds)

    def keep(self, result: R) -> None:
        self.table.keep(self.key, result)

    def take(self) -> R | None:
        return self.table.take(self.key)

    def fail(self) -> None:
        self.table.fail(self.key)

    def allow(self) -> None:
        self.table.allow(self.key)

    async def cancel(self) -> None:
        await self.table.cancel(self.key)


class Scheduler(Generic[K]):
    """The compaction policy of one face (see the module doc).

    ``face`` names who asks (it is what the ``should_compact`` hook sees);
    ``should_compact``, ``max_backoff`` and ``summary_timeout`` mean what they mean in
    :class:`~contextfold.CompactionSettings`; ``max_entries`` bounds the back-off table
    (``entry_bytes``: an entry's size, as its memory is reported). The preparation table
    is unbounded until a face keyed by what clients send bounds it
    (:meth:`Preparations.bound`). A face whose summaries are checked against a fact
    ledger (``ledger``) has its rules loaded in the background now
    (:func:`~._engine.warm_ledger`).
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
        ledger: bool = False,
    ) -> None:
        self.face: Face = face
        if ledger:
            warm_ledger()
        self.should_compact = should_compact
        self.summary_timeout = summary_timeout
        self.flights: Flights[K] = Flights()
        self.backoffs: BackOffs[K] = BackOffs(max_backoff, max_entries, entry_bytes)
        self.preparations: Preparations[K, Any] = Preparations()

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
            ledger=settings.fact_budget > 0,
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
