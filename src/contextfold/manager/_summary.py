"""The context manager's summaries: cached by prefix, extended incrementally, single-flight.

:class:`ViewSummarizer` turns a history snapshot into ``[head, *recent]`` where ``head``
holds the old part's system messages and a summary of it. A summary is cached under
the digest of the dicts it summarized; a later request whose history still starts
with that prefix reuses it without a model call. When the view built on a cached
summary crosses the threshold again, only that view is compacted: the cached summary
is the anchor and just the messages since are summarized (the update prompt), and
the result is cached for the longer prefix.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, NamedTuple

from contextfold.compaction._engine import Options, compact_history
from contextfold.errors import ContextfoldError
from contextfold.manager._history import CachedSummary, Snapshot, SummaryCache
from contextfold.messages import Message
from contextfold.tokens import CachedMessageCounter
from contextfold.transports.base import CompletionTransport, Usage

logger = logging.getLogger("contextfold.manager")

SummaryOutcome = Literal["none", "new", "extended", "cached", "failed", "backoff", "masked"]
"""``none``: no summary in the view; ``new``/``extended``: made now (a model call);
``cached``: reused; ``failed``: the summarizer failed now; ``backoff``: skipped after
recent failures."""

_NO_USAGE = Usage(0, 0)


@dataclass(frozen=True, slots=True)
class SummaryStep:
    """A view after the summary stage, and what producing it cost."""

    view: list[Message]
    outcome: SummaryOutcome
    usage: Usage = _NO_USAGE
    requests: int = 0
    error: str | None = None


class ViewSummarizer:
    """Summarized views of snapshots; one summarization at a time (an :class:`asyncio.Lock`).

    Concurrent callers queue on the lock and then find the summary the first one
    cached. Failures (any :class:`~contextfold.errors.ContextfoldError`: a rejected
    summary, a transport error) are returned as ``outcome="failed"``, never raised;
    the next ``1, 2, 4 … max_backoff`` calls that would summarize skip it instead.
    ``on_change`` is awaited with every entry the cache stores or updates (to persist
    it); an exception it raises is logged and ignored.
    """

    def __init__(
        self,
        opts: Options,
        counter: CachedMessageCounter,
        *,
        cache_size: int,
        max_backoff: int,
        target_ratio: float,
        on_change: Callable[[CachedSummary], Awaitable[None]] | None = None,
    ) -> None:
        self.on_change = on_change
        self.opts = opts
        self.counter = counter
        self.max_backoff = max_backoff
        self.target_ratio = target_ratio
        self.usage = Usage(0, 0)
        self.requests = 0
        self.cache = SummaryCache(cache_size)
        self._lock = asyncio.Lock()
        self._failures = 0
        self._skip = 0

    def clear(self) -> None:
        self.cache.clear()

    async def view(
        self,
        snapshot: Snapshot,
        budget: int,
        threshold: int,
        transport: CompletionTransport | None,
    ) -> SummaryStep:
        """The snapshot with its old part summarized, aiming at ``target_ratio × budget``.

        Reuses the cached summary of the longest matching prefix; summarizes (more)
        with ``transport`` only when there is one, the view is over ``threshold``, the
        view grew since a summary that could not get under it, and no back-off is
        running.
        """
        async with self._lock:
            found = self.cache.lookup(snapshot)
            entry: CachedSummary | None = None
            head: tuple[Message, ...] = ()
            base = 0
            if found is not None:
                entry, base = found
                head = entry.head_in(snapshot, base)
            condensed = [*head, *snapshot.messages[base:]]
            reused: SummaryOutcome = "none" if entry is None else "cached"
            tokens = self.counter.count(head) + snapshot.tokens_from(base)
            if tokens <= threshold or transport is None:
                return SummaryStep(condensed, reused)
            if entry is not None and entry.floor is not None and tokens <= entry.floor:
                return SummaryStep(condensed, reused)  # nothing to gain until it grows
            if self._skip > 0:
                self._skip -= 1
                return SummaryStep(condensed, "backoff")
            step = _Step(snapshot, condensed, entry, head, base)
            return await self._compact(step, budget, threshold, transport)

    async def _compact(
        self, step: _Step, budget: int, threshold: int, transport: CompletionTransport
    ) -> SummaryStep:
        snapshot, condensed, entry, head, base = step
        target = max(1, int(budget * self.target_ratio))
        try:
            result = await compact_history(condensed, transport, self.opts, target_tokens=target)
        except ContextfoldError as exc:
            self._failures += 1
            self._skip = min(2 ** (self._failures - 1), self.max_backoff)
            logger.warning(
                "summary failed (%s: %s); using strategies, the next %d request(s) skip it",
                type(exc).__name__,
                exc,
                self._skip,
            )
            return SummaryStep(condensed, "failed", error=f"{type(exc).__name__}: {exc}")
        self._failures = 0
        reused: SummaryOutcome = "none" if entry is None else "cached"
        if result is None:
            return SummaryStep(condensed, reused)
        self.usage = self.usage + result.usage
        self.requests += result.requests
        kept = result.kept_messages
        # The kept part is the tail of ``condensed``; how far past the old head the cut
        # moved is how many more original messages the new summary covers.
        progress = len(condensed) - kept - len(head)
        if progress > 0:
            index = base + progress
            cut = snapshot.starts[index]
            new_head = tuple(result.messages[: len(result.messages) - kept])
            rebuilt = self.counter.count(new_head) + snapshot.tokens_from(index)
            floor = rebuilt if rebuilt > threshold else None
            position = {id(m): i for i, m in enumerate(snapshot.messages[:index])}
            refs = tuple(position.get(id(m)) for m in new_head)
            stored = CachedSummary(snapshot.chain[cut], cut, new_head, result.summary, floor, refs)
            self.cache.store(stored)
            await self._changed(stored)
        elif entry is not None:
            floor = self.counter.count(head) + snapshot.tokens_from(base)
            await self._changed(self.cache.set_floor(entry, floor))
        if result.requests == 0:
            return SummaryStep(result.messages, reused)
        outcome: SummaryOutcome = "new" if entry is None else "extended"
        return SummaryStep(result.messages, outcome, result.usage, result.requests)

    async def _changed(self, entry: CachedSummary | None) -> None:
        if entry is None or self.on_change is None:
            return
        try:
            await self.on_change(entry)
        except Exception:
            logger.exception("could not persist a cached summary; it stays in memory")


class _Step(NamedTuple):
    snapshot: Snapshot
    condensed: list[Message]
    entry: CachedSummary | None
    head: tuple[Message, ...]
    base: int
