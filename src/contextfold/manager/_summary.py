"""The context manager's summaries: cached by prefix, extended incrementally, single-flight.

:class:`ViewSummarizer` turns a history snapshot into ``[head, *recent]`` where ``head``
holds the old part's system messages and a summary of it. A summary is cached under
the digest of the dicts it summarized; a later request whose history still starts
with that prefix reuses it without a model call. When the view built on a cached
summary crosses the threshold again, only that view is compacted: the cached summary
is the anchor and just the messages since are summarized (the update prompt), and
the result is cached for the longer prefix.

Protected messages (``protected_recent``, Amplifier's context-simple key): the latest
share of the view about to be compacted (the cached summary and the messages since,
widened back to whole turns by :meth:`~contextfold.manager._history.Snapshot.protected`)
is never summarized: only what precedes it is, toward what it leaves of the target, and
it follows that summary verbatim. The step says how many of its last messages it holds.

Preparation: :meth:`ViewSummarizer.prepare` makes the summary a later request will
need in the background (no lock held, one at a time) and keeps it aside, not in the
cache, so requests under the threshold stay whole; the first view over the threshold
whose history still starts with the prepared prefix moves it into the cache and uses
it without a model call (outcome ``prepared``). While one is in preparation, a view
over the threshold does not wait for it and makes no summary of its own (outcome
``preparing``): the strategies fit that view. The preparation in flight, the summary
waiting and the "none after a failure" rule are the view's entry in the scheduler's
table (:class:`~contextfold.compaction._scheduler.Preparations`).
"""

from __future__ import annotations

import bisect
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Literal, NamedTuple

from contextfold.compaction._cache import CachedSummary
from contextfold.compaction._coverage import FactCoverage
from contextfold.compaction._engine import CompactionResult, Options, compact_history
from contextfold.compaction._scheduler import Preparation, Scheduler
from contextfold.errors import ContextfoldError
from contextfold.manager._history import Snapshot, SummaryCache
from contextfold.messages import Message
from contextfold.tokens import CachedMessageCounter
from contextfold.transports.base import CompletionTransport, Usage

logger = logging.getLogger("contextfold.manager")

SummaryOutcome = Literal[
    "none",
    "new",
    "extended",
    "cached",
    "prepared",
    "preparing",
    "failed",
    "backoff",
    "masked",
    "held",
]
"""``none``: no summary in the view; ``new``/``extended``: made now (a model call);
``cached``: reused; ``prepared``: made in the background ahead of the threshold, used
now; ``preparing``: one is still in preparation, not waited for; ``failed``: the
summarizer failed now; ``backoff``: skipped after recent failures; ``held``: the
``should_compact`` hook held the summary back (the view is only fitted)."""

Notify = Callable[[dict[str, Any]], Awaitable[None]]

_NO_USAGE = Usage(0, 0)

_VIEW = ("view",)
"""The scheduler's chain for the manager's one view (see compaction._scheduler)."""


@dataclass(frozen=True, slots=True)
class SummaryStep:
    """A view after the summary stage, and what producing it cost."""

    view: list[Message]
    outcome: SummaryOutcome
    usage: Usage = _NO_USAGE
    requests: int = 0
    error: str | None = None
    protected: int = 0
    """How many of the view's last messages are protected (kept whole, never dropped)."""
    facts: FactCoverage | None = None
    """What the fact ledger of a new summary found, kept and restored."""


class ViewSummarizer:
    """Summarized views of snapshots; one summarization at a time (``scheduler``'s
    single flight, which also holds the back-off, the preparation and the summary
    timeout).

    Concurrent callers wait for the view in flight and then find the summary the first
    one cached. Failures (any :class:`~contextfold.errors.ContextfoldError`: a rejected
    summary, a transport error) are returned as ``outcome="failed"``, never raised;
    the next ``1, 2, 4 … max_backoff`` calls that would summarize skip it instead.
    ``on_change`` is awaited with every entry the cache stores or updates (to persist
    it); an exception it raises is logged and ignored. ``protected_recent`` is the share
    of each view kept whole (see the module docstring; 0: none).
    """

    def __init__(
        self,
        opts: Options,
        counter: CachedMessageCounter,
        scheduler: Scheduler[str],
        *,
        cache_size: int,
        target_ratio: float,
        on_change: Callable[[CachedSummary[bytes]], Awaitable[None]] | None = None,
        protected_recent: float = 0.0,
    ) -> None:
        self.scheduler = scheduler  # single flight, back-off, preparation, the summary timeout
        self.on_change = on_change
        self.protected_recent = protected_recent
        self.opts = opts
        self.counter = counter
        self.target_ratio = target_ratio
        self.usage = Usage(0, 0)
        self.requests = 0
        self.cache = SummaryCache(cache_size)
        # The summary made ahead, not in the cache yet. After a preparation that failed
        # or could not summarize, none until a summary is made at the threshold (a model
        # call each request otherwise).
        self.prep: Preparation[str, CachedSummary[bytes]] = scheduler.preparations.of(_VIEW[-1])

    def clear(self) -> None:
        self.cache.clear()

    @property
    def preparing(self) -> bool:
        """Whether a summary is being prepared in the background now."""
        return self.prep.running

    def prepare(
        self,
        snapshot: Snapshot,
        budget: int,
        threshold: int,
        transport: CompletionTransport,
        notify: Notify,
    ) -> bool:
        """Start summarizing ``snapshot``'s view in the background; whether it started.

        Nothing starts while one is in preparation, after one that failed or could not
        summarize (until a summary is made at the threshold), during a back-off, or
        when the prepared summary already covers more than the cache does. ``notify``
        gets the outcome.
        """
        prep = self.prep
        if prep.running or prep.failed or self.scheduler.backoffs.state(_VIEW).holding:
            return False
        step = self._condense(snapshot)
        floor = step.entry.message_count if step.entry is not None else 0
        prepared = prep.ready
        if prepared is not None:
            if _covers(prepared, snapshot, floor):
                return False
            prep.take()  # it covers no more than the cache does now: the new one replaces it
        return prep.start(lambda: self._prepare(step, budget, threshold, transport, notify))

    async def _prepare(
        self,
        step: _Step,
        budget: int,
        threshold: int,
        transport: CompletionTransport,
        notify: Notify,
    ) -> None:
        started = time.monotonic()
        tokens = self.counter.count(step.condensed)
        target = max(1, int(budget * self.target_ratio))
        # Aim lower by the growth still to come before the threshold.
        target = max(target - max(threshold - tokens, 0), target // 2, 1)
        data: dict[str, Any] = {"messages": len(step.snapshot.dicts), "tokens": tokens}
        try:
            result = await self._summarize(step, transport, target)
        except Exception as exc:  # a defect must not escape a background task unreported
            self.prep.fail()
            error = f"{type(exc).__name__}: {exc}"
            logger.warning("preparing a summary failed (%s); it is made at the threshold", error)
            data.update(outcome="failed", error=error)
        else:
            entry = None
            if result is not None:
                entry = self._entry(step, result, None)
                self.usage = self.usage + result.usage
                self.requests += result.requests
                data.update(
                    summarizer_requests=result.requests,
                    summarizer_input_tokens=result.usage.input_tokens,
                    summarizer_output_tokens=result.usage.output_tokens,
                    summarized_messages=result.summarized_messages,
                    facts=result.facts.to_json(),
                )
            if entry is None:
                self.prep.fail()
                data.update(outcome="skipped")
            else:
                self.prep.keep(entry)
                data.update(outcome="prepared")
        data["duration_s"] = time.monotonic() - started
        await notify(data)

    async def close(self) -> None:
        """Cancel a preparation in flight."""
        await self.prep.cancel()

    async def forget(self) -> None:
        """Cancel a preparation in flight and drop the prepared summary (a clear)."""
        await self.close()
        self.prep.take()
        self.prep.allow()

    def _condense(self, snapshot: Snapshot) -> _Step:
        """The snapshot with the cached summary of its longest prefix spliced in."""
        found = self.cache.lookup(snapshot)
        entry: CachedSummary[bytes] | None = None
        head: tuple[Message, ...] = ()
        base = 0
        if found is not None:
            entry, base = found
            head = entry.head_in(snapshot.messages, base)
        return _Step(snapshot, [*head, *snapshot.messages[base:]], entry, head, base)

    def protected(self, step: _Step) -> int:
        """How many of the last messages of ``step``'s condensed view are protected."""
        return step.snapshot.protected(self.protected_recent, step.base, len(step.head))

    async def _use_prepared(self, snapshot: Snapshot, entry: CachedSummary[bytes] | None) -> bool:
        """Move the prepared summary into the cache if it covers more of ``snapshot``
        than ``entry``; whether it did."""
        prepared = self.prep.ready
        floor = entry.message_count if entry is not None else 0
        if prepared is None or not _covers(prepared, snapshot, floor):
            return False
        self.prep.take()
        self.cache.store(prepared)
        await self._changed(prepared)
        return True

    async def view(
        self,
        snapshot: Snapshot,
        budget: int,
        threshold: int,
        transport: CompletionTransport | None,
        *,
        wanted: bool = False,
        held: bool = False,
    ) -> SummaryStep:
        """The snapshot with its old part summarized, aiming at ``target_ratio × budget``.

        Reuses the cached summary of the longest matching prefix; summarizes (more)
        with ``transport`` only when there is one, the view is over ``threshold`` (or
        the ``should_compact`` hook ``wanted`` it now), the view grew since a summary
        that could not get under it, and no back-off is running. ``held`` (the hook
        said not now): the cached summary only, not even one prepared in the background.
        """
        async with self.scheduler.flights.exclusive(_VIEW[-1]):  # then the cache, again
            step = self._condense(snapshot)
            _, condensed, entry, head, base = step
            reused: SummaryOutcome = "none" if entry is None else "cached"
            tokens = self.counter.count(head) + snapshot.tokens_from(base)
            if tokens > threshold and not held and await self._use_prepared(snapshot, entry):
                step = self._condense(snapshot)  # made ahead: no model call now
                _, condensed, entry, head, base = step
                reused = "prepared"
                tokens = self.counter.count(head) + snapshot.tokens_from(base)
            protect = self.protected(step)
            if (tokens <= threshold and not wanted) or transport is None:
                return SummaryStep(condensed, reused, protected=protect)
            if self.preparing:
                return SummaryStep(condensed, "preparing", protected=protect)  # not waited for
            if entry is not None and entry.floor is not None and tokens <= entry.floor:
                # nothing to gain until it grows
                return SummaryStep(condensed, reused, protected=protect)
            if self.scheduler.backoffs.skip(_VIEW) is not None:
                return SummaryStep(condensed, "backoff", protected=protect)
            return await self._compact(step, budget, threshold, transport)

    async def _summarize(
        self, step: _Step, transport: CompletionTransport, target: int
    ) -> CompactionResult | None:
        """:func:`compact_history` of ``step``'s condensed view toward ``target`` tokens,
        its protected messages (:meth:`protected`) kept whole: only what precedes them
        is summarized, and they follow the result as they are."""
        condensed = step.condensed
        protect = self.protected(step)
        if not protect:
            return await self.scheduler.bounded(
                compact_history(condensed, transport, self.opts, target_tokens=target)
            )
        older, kept = condensed[: len(condensed) - protect], condensed[len(condensed) - protect :]
        cost = self.counter.count(kept)
        # The protected messages count toward keep_recent; what precedes them keeps the rest.
        opts = replace(self.opts, keep_recent=max(self.opts.keep_recent - protect, 1))
        result = await self.scheduler.bounded(
            compact_history(older, transport, opts, target_tokens=max(target - cost, 1))
        )
        if result is None:
            return None
        return replace(
            result,
            messages=[*result.messages, *kept],
            kept_messages=result.kept_messages + protect,
            estimated_tokens=result.estimated_tokens + cost,
        )

    async def _compact(
        self, step: _Step, budget: int, threshold: int, transport: CompletionTransport
    ) -> SummaryStep:
        snapshot, condensed, entry, head, base = step
        target = max(1, int(budget * self.target_ratio))
        protect = self.protected(step)
        try:
            result = await self._summarize(step, transport, target)
        except ContextfoldError as exc:
            backoff = self.scheduler.backoffs.ended_alone(_VIEW, failed=True)
            logger.warning(
                "summary failed (%s: %s); using strategies, the next %d request(s) skip it",
                type(exc).__name__,
                exc,
                backoff.skips,
            )
            error = f"{type(exc).__name__}: {exc}"
            return SummaryStep(condensed, "failed", error=error, protected=protect)
        self.scheduler.backoffs.ended_alone(_VIEW, failed=False)
        self.prep.allow()
        reused: SummaryOutcome = "none" if entry is None else "cached"
        if result is None:
            return SummaryStep(condensed, reused, protected=protect)
        self.usage = self.usage + result.usage
        self.requests += result.requests
        stored = self._entry(step, result, threshold)
        if stored is not None:
            self.cache.store(stored)
            await self._changed(stored)
        elif entry is not None:
            floor = self.counter.count(head) + snapshot.tokens_from(base)
            await self._changed(self.cache.set_floor(entry, floor))
        if result.requests == 0:
            return SummaryStep(result.messages, reused, protected=protect)
        outcome: SummaryOutcome = "new" if entry is None else "extended"
        return SummaryStep(
            result.messages,
            outcome,
            result.usage,
            result.requests,
            protected=protect,
            facts=result.facts,
        )

    def _entry(
        self, step: _Step, result: CompactionResult, threshold: int | None
    ) -> CachedSummary[bytes] | None:
        """The cache entry for ``result``, or ``None`` when it covers no more messages
        than the summary it started from. ``threshold``: record the floor against it."""
        snapshot, condensed, _, head, base = step
        kept = result.kept_messages
        # The kept part is the tail of ``condensed``; how far past the old head the cut
        # moved is how many more original messages the new summary covers.
        progress = len(condensed) - kept - len(head)
        if progress <= 0:
            return None
        index = base + progress
        cut = snapshot.starts[index]
        new_head = tuple(result.messages[: len(result.messages) - kept])
        rebuilt = self.counter.count(new_head) + snapshot.tokens_from(index)
        floor = rebuilt if threshold is not None and rebuilt > threshold else None
        position = {id(m): i for i, m in enumerate(snapshot.messages[:index])}
        refs = tuple(position.get(id(m)) for m in new_head)
        return CachedSummary(
            snapshot.chain[cut], cut, result.summary, new_head, floor=floor, refs=refs
        )

    async def _changed(self, entry: CachedSummary[bytes] | None) -> None:
        if entry is None or self.on_change is None:
            return
        try:
            await self.on_change(entry)
        except Exception:
            logger.exception("could not persist a cached summary; it stays in memory")


class _Step(NamedTuple):
    snapshot: Snapshot
    condensed: list[Message]
    entry: CachedSummary[bytes] | None
    head: tuple[Message, ...]
    base: int


def _covers(entry: CachedSummary[bytes], snapshot: Snapshot, floor: int) -> bool:
    """Whether ``entry`` summarizes a prefix of ``snapshot`` longer than ``floor`` dicts
    that ends on a message boundary."""
    if (
        not floor < entry.message_count < len(snapshot.dicts)
        or snapshot.chain[entry.message_count] != entry.prefix_hash
    ):
        return False
    index = bisect.bisect_left(snapshot.starts, entry.message_count)
    return index < len(snapshot.starts) and snapshot.starts[index] == entry.message_count
