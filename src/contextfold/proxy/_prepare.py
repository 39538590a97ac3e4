"""Background preparation in the proxy: a summary made before the limit, spliced at it.

With ``prepare_threshold`` (a share of the model's window below the compaction limit),
a request whose estimated size is past it but under the limit is forwarded unchanged
at once, and a summary of its history is made in the background with the caller's
credentials, single-flight with the limit's own compactions (the same in-flight map).
The summary is kept here, not in the :class:`~contextfold.proxy._cache.SummaryCache`:
a summary in the cache is spliced into every request that extends its prefix, and a
prepared one must wait for the limit. The first request over the limit whose history
extends a prepared prefix moves it into the cache and gets it spliced without a model
call (``x-contextfold-summary: cached``).

While a preparation is in flight, a request over the limit that still fits halfway
from the limit to the window's input budget is forwarded without waiting for it; past
that point it waits, as for any compaction in flight. A failed preparation is logged
and not retried for that history: the limit's compaction runs as without preparation.

What is in preparation, what waits for its limit and what failed are kept in the
planner's scheduler (:class:`~contextfold.compaction._scheduler.Preparations`, the table
every face uses), in this process: replicas sharing a cache each prepare their own.
The prepared summaries are held to the prepared share of
:class:`~._budget.MemoryBudget` (oldest dropped), the failures to its failed share, and
at most :data:`MAX_RUNNING` are in preparation at once. A summary is kept under the
hash of the prefix it replaces, which is seeded with the tenant key (:mod:`._tenant`):
one tenant's preparation is never spliced into, nor waited for by, another's request.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from contextfold._secrets import Secrets
from contextfold.compaction._cache import CachedSummary
from contextfold.compaction._prepare import prepare_point
from contextfold.compaction._scheduler import Preparations, Scheduler
from contextfold.errors import ContextfoldError
from contextfold.messages import Message
from contextfold.proxy._budget import ENTRY_BYTES, HASH_BYTES, Cache, MemoryBudget
from contextfold.proxy._cache import CacheBackend
from contextfold.proxy._config import ModelTable
from contextfold.proxy._dialects import Conversation
from contextfold.proxy._plan import ForwardPlan
from contextfold.transports.base import CompletionTransport

__all__ = ["MAX_RUNNING", "Planning", "Preparer"]

logger = logging.getLogger("contextfold.proxy")

MAX_RUNNING = 64
"""Preparations in flight at once (each holds its conversation until its summary
returns); past this a conversation is not prepared, and its limit summarizes."""

_FAILED_BYTES = HASH_BYTES + ENTRY_BYTES
"""What the record of one failed preparation holds (its key, a prefix hash)."""


class Planning(Protocol):
    """What a :class:`Preparer` asks of its planner
    (:class:`~contextfold.proxy._compact.Planner` is one)."""

    models: ModelTable
    target_ratio: float
    cache: CacheBackend

    def limit(self, model: str, tenant: str, window: int | None = None) -> int:
        """The compaction limit of ``tenant``'s requests of ``model``."""
        ...

    def frees_enough(self, conv: Conversation, effective: Sequence[Message], tokens: int) -> bool:
        """Whether a summary of ``effective`` now would free enough to be worth it."""
        ...

    async def summarize(
        self,
        conv: Conversation,
        original: list[str],
        root: str,
        effective: list[Message],
        before: int,
        tokens: int,
        limit: int,
        transport: CompletionTransport,
        secrets: Secrets,
        *,
        target: int | None = None,
        keep: Callable[[str, CachedSummary[str]], Awaitable[None]] | None = None,
    ) -> ForwardPlan:
        """Summarize ``effective`` down to ``target`` and ``keep`` the summary."""
        ...


class Preparer:
    """The preparations of one planner: when a history is prepared and what its summary
    is, kept in ``scheduler``'s table (the summaries waiting for their limit held to
    ``budget``'s prepared share, the histories whose preparation failed to its failed
    share). The scheduler's flights are the single flight it shares with the planner:
    by the hash of the exact history a job compacts, done when the job ends."""

    def __init__(
        self,
        planner: Planning,
        share: float | None,
        budget: MemoryBudget | None = None,
        *,
        scheduler: Scheduler[str],
    ) -> None:
        budget = budget or MemoryBudget()
        self.planner = planner
        self.flights = scheduler.flights
        self.preparations: Preparations[str, tuple[str, CachedSummary[str]]] = (
            scheduler.preparations
        )
        self.preparations.bound(
            max_running=MAX_RUNNING,
            max_bytes=budget.share("prepared"),
            max_failed=budget.share("failed") // _FAILED_BYTES,
            failed_bytes=_FAILED_BYTES,
        )
        # the preparations running, by the hash of what each compacts (a live view)
        self._running = self.preparations.in_flight
        self.share = share
        self.prepared = 0  # summaries made ahead of the limit
        self.used = 0  # ... and spliced at it

    def memory(self) -> dict[Cache, int]:
        """What the prepared summaries and the failed preparations hold, as estimated."""
        return {
            "prepared": self.preparations.ready_nbytes,
            "failed": self.preparations.failed_nbytes,
        }

    def limit(self, model: str, tenant: str, window: int | None = None) -> int | None:
        """The estimated size past which a summary is prepared for ``tenant``, or
        ``None`` (off); ``window``: the request's own, when wider than the model's."""
        own = self.planner.models.resolve(model).info.context_window
        window = own if window is None else max(own, window)
        return prepare_point(self.share, window, self.planner.limit(model, tenant, window))

    def first_limit(self, model: str, tenant: str) -> int:
        """The lowest size at which ``tenant``'s request of ``model`` needs a look: the
        prepare limit when preparing, else the compaction limit (for the byte-size fast
        path)."""
        limit = self.planner.limit(model, tenant)
        prepare_at = self.limit(model, tenant)
        return limit if prepare_at is None else min(limit, prepare_at)

    def consider(
        self,
        conv: Conversation,
        chain: list[str],
        root: str,
        effective: list[Message],
        eff_chain: list[str],
        tokens: int,
        make_transport: Callable[[], CompletionTransport | None],
        secrets: Secrets,
    ) -> None:
        """Start preparing a summary of ``effective`` if ``tokens`` is past the prepare
        limit and nothing covers it yet; returns at once."""
        prepare_at = self.limit(conv.model, conv.tenant, conv.window)
        preparations = self.preparations
        if prepare_at is None or tokens <= prepare_at or preparations.full:
            return
        if self.flights.running(eff_chain) is not None or preparations.failed(eff_chain):
            return
        if preparations.ready_in(chain[:-1]) is not None:
            return  # prepared already: it waits for the limit
        if not self.planner.frees_enough(conv, effective, tokens):
            return  # too early: it would free too little (see Planner.frees_enough)
        try:
            transport = make_transport()
        except (ContextfoldError, ValueError):
            return  # the limit's compaction will report it
        if transport is None:
            return
        key = eff_chain[-1]
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        limit = self.planner.limit(conv.model, conv.tenant, conv.window)
        target = int(limit * self.planner.target_ratio)
        # Aim lower by the growth still to come before the limit, so the splice there
        # lands near the target.
        target = max(target - max(limit - tokens, 0), target // 2)

        def work() -> Awaitable[None]:
            return self._prepare(
                key, future, conv, chain, root, effective, tokens, limit, target, transport, secrets
            )

        if preparations.start(eff_chain, work) is None:
            return
        self.flights.track(key, future)  # before the preparation's first step
        logger.debug("preparing a summary of a %s conversation at ~%d tokens", conv.model, tokens)

    async def _prepare(
        self,
        key: str,
        future: asyncio.Future[None],
        conv: Conversation,
        chain: list[str],
        root: str,
        effective: list[Message],
        tokens: int,
        limit: int,
        target: int,
        transport: CompletionTransport,
        secrets: Secrets,
    ) -> None:
        async def keep(root: str, summary: CachedSummary[str]) -> None:
            size = 2 * HASH_BYTES + sys.getsizeof(summary.summary) + ENTRY_BYTES + 128
            self.preparations.keep(summary.prefix_hash, (root, summary), size)

        error: str | None = None
        try:
            plan = await self.planner.summarize(
                conv,
                chain,
                root,
                effective,
                tokens,
                tokens,
                limit,
                transport,
                secrets,
                target=target,
                keep=keep,
            )
            error = plan.error
        except Exception as exc:  # a defect must not escape a background task
            error = secrets.text(f"{type(exc).__name__}: {exc}")
        finally:
            future.set_result(None)
        if error is not None:
            logger.warning("preparing a summary failed (%s); it is made at the limit", error)
            self.preparations.fail(key)
        else:
            self.prepared += 1

    async def commit(self, chain: Sequence[str], hit: CachedSummary[str] | None) -> bool:
        """Move the summary prepared for the longest prefix of ``chain`` (longer than
        ``hit``'s) into the cache; whether there was one."""
        floor = hit.message_count if hit is not None else 0
        for count in range(len(chain) - 2, floor, -1):
            entry = self.preparations.take(chain[count])
            if entry is not None and entry[1].message_count == count:
                try:
                    await self.planner.cache.store(*entry)
                except Exception as exc:  # the request summarizes anew: paid twice, not lost
                    logger.warning(
                        "could not store a prepared summary (%s); summarizing again",
                        type(exc).__name__,
                    )
                    return False
                self.used += 1
                return True
        return False

    def defer(self, key: str, tokens: int, model: str, tenant: str) -> bool:
        """Whether ``tenant``'s request over the limit forwards without waiting for the
        job ``key``: it is a preparation, and ``tokens`` fits halfway to the window's
        input budget."""
        if key not in self._running:
            return False
        limit = self.planner.limit(model, tenant)
        budget = self.planner.models.resolve(model).info.input_budget
        return tokens <= limit + max(budget - limit, 0) // 2

    async def close(self) -> None:
        """Cancel the preparations in flight and start none again (the app is stopping)."""
        await self.preparations.close()
