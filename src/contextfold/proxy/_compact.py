"""The proxy's decision for one chat request: forward as is, splice a cached summary, or summarize.

A conversation's history ``H`` arrives whole with every request. If the cache holds a
summary of a prefix ``H[:c]``, the *effective* history is ``systems of H[:c] +
summary + acknowledgement + H[c:]`` (the shape :mod:`contextfold.compaction` makes).
When the effective history's estimated size is over the model's limit, it is
compacted with :func:`contextfold.compaction._engine.compact_history`; a history that opens
with an earlier summary is summarized incrementally (that summary is the anchor), and
the new summary is stored under the hash of the prefix it replaces.

A compaction in flight is known by the hash of the exact history it compacts; a
request whose history extends that one waits for it (and then splices its summary)
instead of summarizing again. Conversations that share an opening but diverge
compact independently. After a failed compaction of a history, the next 1, 2, 4 ...
``max_backoff`` (32 by default) over-limit requests extending it are forwarded unchanged
without retrying. Every summarization is bounded by ``summary_timeout`` (120 s by
default): past it, the request is forwarded unchanged and the failure backs off.

A request the upstream rejected as longer than the model's window teaches the model's
limit for its tenant (:meth:`Planner.learn_overflow`: at most 90 % of the rejected
prompt's estimate) and is planned again with ``overflowed``: the rejected history's anchor
becomes just over that limit, so later requests extending it are estimated over it
too, and it is compacted whatever the estimate (no back-off), to at most half its
estimated size.

Everything a plan learns or keeps is its tenant's (:mod:`._tenant`): the history's
prefix hashes are seeded with the tenant key and the model (``Conversation.scope``),
so summaries, anchors, in-flight and back-off entries, preparations and token counts
keyed by them are per tenant; the learned limits, keyed by model, are kept per tenant
and model, and the layout records under the tenant key.

Replicas sharing a PostgreSQL cache extend the single flight across processes: before
summarizing, a replica claims a lease on the history's hash
(:meth:`~contextfold.proxy._cache.CacheBackend.claim`); one that finds a live lease on
the history or a prefix of it waits for its release, up to ``flight_timeout`` seconds,
and looks in the shared cache again.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import re
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from contextfold._history import compaction_cut_points
from contextfold._masking import without_recallable
from contextfold._secrets import Secrets
from contextfold.compaction._cache import CachedSummary
from contextfold.compaction._engine import (
    CompactionResult,
    Options,
    compact_history,
    make_summarizer,
    words_of,
)
from contextfold.compaction._plan import count_scale
from contextfold.compaction._relief import relief_point, relieve
from contextfold.compaction._scheduler import Scheduler
from contextfold.compaction._summarizer import (
    KEPT_TRUNCATION_MARKER,
    SummaryRun,
    acknowledgement,
    parse_summary_message,
    render_summary_message,
)
from contextfold.compaction._trigger import TriggerCheck, TriggerHook
from contextfold.compaction._userwords import instructions_block, standing_instructions
from contextfold.dialects import Dialect
from contextfold.errors import CompactionError, ContextfoldError
from contextfold.messages import Message
from contextfold.proxy._budget import ENTRY_BYTES, HASH_BYTES, Cache, MemoryBudget, SizedLRU
from contextfold.proxy._cache import (
    ANCHOR_TAIL,
    CacheBackend,
    UsageAnchors,
    chain_hashes,
)
from contextfold.proxy._config import ModelTable
from contextfold.proxy._dashboard import DashboardRecorder
from contextfold.proxy._dialects import Conversation, Rebuilt, rebuild
from contextfold.proxy._layout import Layout, Layouts, shape
from contextfold.proxy._mask import masked_body
from contextfold.proxy._memo import HistoryMemo
from contextfold.proxy._metrics import ProxyMetrics
from contextfold.proxy._plan import ForwardPlan, SummaryState
from contextfold.proxy._prepare import Preparer
from contextfold.proxy._reuse import LOOKBACK, SplicedChains, TokenCounts
from contextfold.strategies import MaskToolOutputs
from contextfold.tokens import TokenCounter, count_tokens
from contextfold.transports.base import CompletionTransport
from contextfold.validation import history_problems

__all__ = ["MEANINGFUL_SHARE", "NO_CREDENTIALS", "ForwardPlan", "Planner", "conversation_root"]

logger = logging.getLogger("contextfold.proxy")

_MAX_WAITS = 3  # for jobs compacting a prefix of the history, before compacting it anyway
_MIN_LEARNED_LIMIT = 1024
_OVERFLOW_MARGIN = 0.9  # a learned limit: this share of a prompt the upstream rejected
_BACKOFF_ENTRY = HASH_BYTES + ENTRY_BYTES + 64  # its key, entry and (failures, skips)

MEANINGFUL_SHARE = 0.2
"""A summary is made only when it would free at least this share of the limit."""

_TOO_LITTLE = (
    "not compacted: a summary now would free less than {share}% of the limit (the prompt "
    "resent with every request fills most of it); forwarded unchanged, under the window"
)

_REMOTE_BUSY = (
    "not compacted: another replica's summarization of this conversation did not finish "
    "in time; forwarded unchanged"
)

_HELD = "not compacted: the should_compact hook said not now"

_RELIEVED = (
    "relieved without a model: over the window, old tool outputs cut and {dropped} old "
    "message(s) left out of this request only"
)

NO_CREDENTIALS = (
    "not compacted: the request carries no API key (x-api-key or Authorization: Bearer) "
    "to pay for a summary with"
)


class Planner:
    """Decides, per request, what reaches the upstream (see the module doc)."""

    def __init__(
        self,
        cache: CacheBackend,
        anchors: UsageAnchors,
        opts: Options,
        *,
        threshold: float,
        target_ratio: float,
        context_window: int | None,
        models: ModelTable | None = None,
        metrics: ProxyMetrics | None = None,
        mask: MaskToolOutputs | None = None,
        prepare_threshold: float | None = None,
        flight_timeout: float = 600.0,
        budget: MemoryBudget | None = None,
        summary_timeout: float | None = 120.0,
        max_backoff: int = 32,
        should_compact: TriggerHook | None = None,
        dashboard: DashboardRecorder | None = None,
    ) -> None:
        budget = budget or MemoryBudget()
        self.dashboard = dashboard  # what GET /dashboard shows, when it is on
        self.mask = mask  # masking first, before any summary (see ._mask)
        self.cache = cache
        self.flight_timeout = flight_timeout
        self.anchors = anchors
        self.opts = opts
        # What shapes a summary's text: mixed into every cache key (see ``_flavoured``).
        self._flavour = _settings_digest(opts)
        self.threshold = threshold
        self.target_ratio = target_ratio
        self.context_window = context_window
        # per-model windows, thresholds, keep_recent, summary models (see _config)
        self.models = models or ModelTable(
            context_window=context_window, threshold=threshold, keep_recent=opts.keep_recent
        )
        self.metrics = metrics or ProxyMetrics()
        self.summarizations = 0
        # Everything kept between requests is held to its share of ``budget`` (._budget).
        self.memo = HistoryMemo(max_bytes=budget.share("memo"))
        self.layouts = Layouts(budget.share("layouts"))  # prompt or history (see ._layout)
        self.counts = TokenCounts(opts.counter, budget.share("token_counts"))
        self.spliced = SplicedChains(budget.share("spliced_chains"))
        # Triggers, single flight, back-off, preparation and the summary timeout: the one
        # policy of every face (see compaction._scheduler), keyed here by the hashes of a
        # conversation's prefixes: the job compacting a history, and the back-off of a
        # history whose compaction failed, cover every history extending it. (The
        # back-off and the refused tables together are held to the "backoff" share; the
        # preparer bounds the preparations.)
        half = max(budget.share("backoff") // 2, 1)
        self.scheduler: Scheduler[str] = Scheduler(
            "proxy",
            should_compact=should_compact,
            max_backoff=max_backoff,
            summary_timeout=summary_timeout,
            max_entries=max(half // _BACKOFF_ENTRY, 1),
            entry_bytes=_BACKOFF_ENTRY,
            ledger=opts.fact_budget > 0,
        )
        # hash of a history the upstream refused as too long: it and every history
        # extending it count as over the limit, whatever their estimate
        self._refused: SizedLRU[str, bool] = SizedLRU(half)
        self.preparer = Preparer(self, prepare_threshold, budget, scheduler=self.scheduler)
        # (tenant, model) -> limit learnt from the upstream's context-overflow errors
        self._learned: SizedLRU[tuple[str, str], int] = SizedLRU(budget.share("learned"))

    def memory(self) -> dict[Cache, int]:
        """What each of the planner's caches (its cache's rows included) holds, as
        estimated (:mod:`._budget`): never more than its share of the budget."""
        return {
            "memo": self.memo.nbytes,
            "token_counts": self.counts.nbytes,
            "summary_rows": self.cache.memory(),
            **self.preparer.memory(),
            "spliced_chains": self.spliced.nbytes,
            "anchors": self.anchors.nbytes,
            "layouts": self.layouts.nbytes,
            "backoff": self.scheduler.backoffs.nbytes + self._refused.nbytes,
            "learned": self._learned.nbytes,
        }

    def limit(self, model: str, tenant: str, window: int | None = None) -> int:
        """``threshold × window``, never above ``window − max output``: the model's own
        settings, else the proxy's, else what the upstream reported, else the model
        registry (:mod:`._config`; ``window``: a request's own, wider one); nor above
        what the upstream's overflow errors taught about ``model`` from ``tenant``'s
        requests (:meth:`learn_overflow`)."""
        limit = self.models.limit(model, window)
        learned = self._learned.get((tenant, model))
        return limit if learned is None else min(limit, learned)

    def budget(self, model: str, tenant: str, window: int | None = None) -> int:
        """The most prompt tokens a request naming ``model`` may carry and leave room
        for a full reply (``window``: the request's own, wider one), never above what
        the upstream's overflow errors taught about it from ``tenant``'s requests."""
        info = self.models.info(model, window)
        learned = self._learned.get((tenant, model))
        return info.input_budget if learned is None else min(info.input_budget, learned)

    def options(self, model: str, recall: bool = False) -> Options:
        """The engine's options for ``model`` (its own ``keep_recent``, if it has one);
        ``recall``: the request offers the recall tool, so its summary lists handles."""
        keep = self.models.resolve(model).keep_recent
        if keep == self.opts.keep_recent and recall == self.opts.recall:
            return self.opts
        return replace(self.opts, keep_recent=keep, recall=recall)

    def layout(self, conv: Conversation, chain: Sequence[str], limit: int) -> tuple[int, int]:
        """``(pinned, tail)`` of ``conv`` in messages: prompt and task, and the prompt
        a client moves to the end (see :mod:`._layout`); its layout is remembered."""
        wire, system = _wire_of(conv)
        cuts = conv.cuts or ((0, conv.top), (len(wire), len(conv.messages)))
        history = conv.messages

        def head_tokens(items: int) -> int:
            return self.counts.through(history, chain, _messages_at(cuts, items, after=True))

        found: Layout = self.layouts.decide(
            shape(conv.dialect, wire, conv.model, system, conv.tenant, conv.items),
            head_tokens=head_tokens,
            budget=limit,
        )
        logger.debug("layout of a %d-message %s request: %s", len(history), conv.model, found)
        pinned = max(_messages_at(cuts, found.pinned, after=True), conv.lead)
        tail = 0
        if found.tail:
            tail = len(history) - _messages_at(cuts, len(wire) - found.tail, after=False)
        return min(pinned, len(history)), tail

    def frees_enough(self, conv: Conversation, effective: Sequence[Message], tokens: int) -> bool:
        """Whether summarizing ``effective`` (estimated at ``tokens``) would free at least
        :data:`MEANINGFUL_SHARE` of the limit: what stays is estimated as the prompt and
        task, the system messages, a summary (half the room the engine reserves for it)
        and the least the engine keeps (the turn after the last safe cut), never below
        the size it aims for."""
        limit = self.limit(conv.model, conv.tenant, conv.window)
        target = int(limit * self.target_ratio)
        opts = self.options(conv.model)
        last = len(effective) - conv.tail
        points = [p for p in compaction_cut_points(effective) if conv.pinned < p <= last]
        if not points:
            return False
        counted = count_tokens(effective, opts.counter)
        scale = count_scale(tokens, counted)
        kept = [*effective[: conv.pinned], *effective[points[-1] :]]
        kept += [m for m in effective[conv.pinned : points[-1]] if m.role == "system"]
        summary = (min(opts.max_summary_tokens, target // 3) + 100) // 2
        stays = int(count_tokens(kept, opts.counter) * scale) + summary
        stays += _extra_tokens(conv, opts.counter)
        return tokens - max(stays, target) >= MEANINGFUL_SHARE * limit

    def observe(self, dialect: Dialect, body: Mapping[str, Any], model: str, tenant: str) -> None:
        """Remember the layout of ``tenant``'s request forwarded without being parsed
        (see :mod:`._layout`: an opening seen only here still tells later requests
        their task)."""
        items = body.get(dialect.history_key)
        if isinstance(items, list):
            system = dialect.outside(body)
            self.layouts.decide(shape(dialect, items, model, system, tenant))

    def learn_overflow(
        self,
        model: str,
        tokens: int | None,
        reported: tuple[int, int] | None = None,
        *,
        tenant: str,
    ) -> None:
        """The upstream rejected ``tenant``'s prompt of ``model`` estimated at ``tokens``
        as longer than its window: ``model``'s limit for ``tenant`` (for no other
        tenant: one client's refusal, a key with a smaller quota or a prompt that
        undercounts, says nothing of another's) becomes at most 90 % of that, and when
        the error ``reported`` ``(window, prompt)`` in the upstream's own tokens, at most
        90 % of that window in our estimate's units (``window × tokens / prompt``), so
        an estimate that undercounts converges at once (never below 1,024; an
        unestimated prompt teaches nothing)."""
        if tokens is None:
            return
        learned = int(tokens * _OVERFLOW_MARGIN)
        if reported is not None:
            window, prompt = reported
            learned = min(learned, int(window * tokens / prompt * _OVERFLOW_MARGIN))
        cap = max(_MIN_LEARNED_LIMIT, learned)
        key = (tenant, model)
        size = sys.getsizeof(tenant) + sys.getsizeof(model) + ENTRY_BYTES + 96
        self._learned.put(key, min(cap, self._learned.get(key, cap)), size)

    def record_usage(self, key: str, input_tokens: int) -> None:
        """Anchor the history hashed ``key`` on the prompt size the upstream reported,
        here and, through the cache, for the replicas sharing it."""
        self.anchors.record(key, input_tokens)
        self.cache.push_anchor(key, input_tokens)

    def estimate(self, messages: Sequence[Message], chain: Sequence[str], extra: int) -> int:
        """Recorded upstream usage of the longest known prefix plus a count of the rest."""
        anchor = self.anchors.latest(chain)
        counts = self.counts
        if anchor is None:
            return counts.through(messages, chain) + extra
        index, tokens = anchor
        if len(messages) - index <= LOOKBACK:
            return tokens + counts.count(messages[index:])
        return tokens + counts.through(messages, chain) - counts.through(messages, chain, index)

    async def plan(
        self,
        conv: Conversation,
        make_transport: Callable[[], CompletionTransport | None],
        secrets: Secrets | None = None,
        *,
        overflowed: str | None = None,
        recall: bool = False,
        window: int | None = None,
    ) -> ForwardPlan:
        """The plan for ``conv``; ``secrets`` are scrubbed from any error text it reports
        and from a summary before it is stored or sent. ``recall``: the request will
        offer the recall tool (a summary names the recall tool only then). ``window``:
        the request's own context window, wider than its model's (Anthropic's 1M beta).

        ``overflowed``: the upstream rejected this request as too long; the value is
        the usage key of the history that was forwarded (``""``: ``conv`` itself,
        forwarded unestimated). See the module doc.

        ``make_transport`` builds the summarizing transport (only when a summary must
        be made); ``None`` from it means the caller has no credentials to pay for one,
        and the request is forwarded unchanged, with :data:`NO_CREDENTIALS` as error.
        """
        history = conv.messages
        chain = conv.chain if conv.chain is not None else chain_hashes(conv.scope, history)
        conv = replace(conv, window=window)
        if overflowed is None:
            return await self._plan(conv, chain, make_transport, secrets, recall=recall)
        key = overflowed or chain[-1]
        self._refused.put(key, True, _BACKOFF_ENTRY)
        return await self._plan(conv, chain, make_transport, secrets, forced=True, recall=recall)

    async def _plan(
        self,
        conv: Conversation,
        chain: list[str],
        make_transport: Callable[[], CompletionTransport | None],
        secrets: Secrets | None,
        *,
        forced: bool = False,
        recall: bool = False,
    ) -> ForwardPlan:
        """:meth:`plan` once the history is hashed (``forced``: after an overflow); the
        plan names the conversation (:func:`conversation_root`)."""
        limit = self.limit(conv.model, conv.tenant, conv.window)
        layout = self.layout(conv, chain, limit)
        conv = replace(conv, pinned=layout[0], tail=layout[1], recall=recall)
        secrets = Secrets() if secrets is None else secrets
        plan = await self._decide(conv, chain, limit, make_transport, secrets, forced=forced)
        return replace(plan, conversation=conversation_root(conv, chain))

    async def _decide(
        self,
        conv: Conversation,
        chain: list[str],
        limit: int,
        make_transport: Callable[[], CompletionTransport | None],
        secrets: Secrets,
        *,
        forced: bool,
    ) -> ForwardPlan:
        """:meth:`_plan` once the layout is known (``conv.pinned``, ``conv.tail``)."""
        history = conv.messages
        extra = _extra_tokens(conv, self.opts.counter)
        if len(history) <= conv.pinned:
            tokens = self.estimate(history, chain, extra)
            return ForwardPlan(None, chain[-1], tokens, tokens)
        root = _flavoured(chain[conv.pinned], self._flavour + ("+recall" if conv.recall else ""))
        remote_waits = 0
        while True:
            waits = 0
            while True:
                hit = await self.cache.longest(root, chain)
                effective, eff_chain = self._splice(conv, chain, hit)
                tails = chain[-ANCHOR_TAIL:] if hit is None else eff_chain[-ANCHOR_TAIL:]
                await self.cache.pull_anchors(self.anchors, tails)
                tokens = self.estimate(effective, eff_chain, extra)
                before = tokens if hit is None else self.estimate(history, chain, extra)
                # A history the upstream refused (or one extending it) is compacted; a
                # summary another job (here or on a replica) made of it since is spliced
                # instead, when that gets it under the limit. Its estimate is what the
                # headers report.
                refused = self._refused.last_kept(eff_chain) >= 0
                if not refused and not await self._due(conv, root, effective, tokens, limit):
                    if tokens > limit:  # over it, but the hook said not now
                        held = ForwardPlan(None, chain[-1], before, tokens, error=_HELD, why="held")
                        return self._relieve(
                            held, conv, hit, effective, (chain, eff_chain), tokens, limit, forced
                        )
                    self.preparer.consider(
                        conv, chain, root, effective, eff_chain, tokens, make_transport, secrets
                    )
                    if hit is None:
                        return ForwardPlan(None, chain[-1], before, tokens)
                    self.metrics.cache_hit()
                    return self._spliced(conv, chain, hit, effective, eff_chain, before, tokens)
                if await self.preparer.commit(chain, hit):
                    continue  # a summary prepared ahead of the limit is in the cache now
                # A job compacting this history, or a prefix of it, will likely leave a
                # summary this request can splice: wait for it, then look again.
                running = self.scheduler.flights.running(eff_chain)
                # (never when forced: the upstream refused this size, it must shrink now)
                if (
                    running is not None
                    and not forced
                    and self.preparer.defer(running[0], tokens, conv.model, conv.tenant)
                ):
                    if hit is None:  # still being prepared, and this request fits: no wait
                        return ForwardPlan(None, chain[-1], before, tokens)
                    return self._spliced(conv, chain, hit, effective, eff_chain, before, tokens)
                if running is None or waits == _MAX_WAITS:
                    break
                waits += 1
                with contextlib.suppress(Exception):
                    await asyncio.shield(running[1])
            if self.mask is not None:
                masked = await self._masked(conv, hit, effective, before, tokens, limit)
                if masked is not None:
                    return masked
            budget = self.budget(conv.model, conv.tenant, conv.window)
            if not forced and tokens <= budget and not self.frees_enough(conv, effective, tokens):
                # Summarizing now frees too little to be worth a summary (the prompt the
                # client resends fills most of the limit): the window still has room.
                error = _TOO_LITTLE.format(share=round(MEANINGFUL_SHARE * 100))
                unplaced = ForwardPlan(
                    None, chain[-1], before, tokens, error=error, why="frees_too_little"
                )
                return self._relieve(
                    unplaced, conv, hit, effective, (chain, eff_chain), tokens, limit, forced
                )
            self.metrics.cache_miss()
            key = eff_chain[-1]  # the exact history this job compacts
            skipped = self.scheduler.backoffs.skip(eff_chain, forced=forced)
            since = self.scheduler.backoffs.latest(eff_chain)  # what this run counts from
            if skipped is not None:
                error = (
                    f"summarization skipped after {skipped.failures} failed attempt(s); "
                    "retried later"
                )
                unplaced = ForwardPlan(None, chain[-1], before, before, error=error, why="backoff")
                return self._relieve(
                    unplaced, conv, hit, effective, (chain, eff_chain), tokens, limit, forced
                )
            try:
                transport = make_transport()
            except (ContextfoldError, ValueError) as exc:
                error = secrets.text(f"{type(exc).__name__}: {exc}")
                unplaced = ForwardPlan(
                    None, chain[-1], before, before, error=error, why="no_credentials"
                )
                return self._relieve(
                    unplaced, conv, hit, effective, (chain, eff_chain), tokens, limit, forced
                )
            if transport is None:
                unplaced = ForwardPlan(
                    None, chain[-1], before, before, error=NO_CREDENTIALS, why="no_credentials"
                )
                return self._relieve(
                    unplaced, conv, hit, effective, (chain, eff_chain), tokens, limit, forced
                )
            plan: ForwardPlan | None = None
            waited = False
            with self.scheduler.flights.hold(key):
                lease = await self.cache.claim(root, key, eff_chain)
                if lease is not None:
                    try:
                        target = int(limit * self.target_ratio)
                        plan = await self.summarize(
                            conv,
                            chain,
                            root,
                            effective,
                            before,
                            tokens,
                            limit,
                            transport,
                            secrets,
                            target=min(target, tokens // 2) if forced else target,
                        )
                    finally:
                        await lease.release()
                elif remote_waits < _MAX_WAITS and await self.cache.wait(
                    root, eff_chain, self.flight_timeout
                ):
                    # Another replica compacts this history or a prefix of it: its
                    # summary is in the shared cache now (or it failed): look again.
                    remote_waits += 1
                    waited = True
            if plan is not None:
                break
            if not waited:
                unplaced = ForwardPlan(
                    None, chain[-1], before, before, error=_REMOTE_BUSY, why="busy"
                )
                return self._relieve(
                    unplaced, conv, hit, effective, (chain, eff_chain), tokens, limit, forced
                )
        # skip the next 1, 2, 4 ... max_backoff over-limit requests after a failure
        self.scheduler.backoffs.ended(key, since, failed=plan.error is not None)
        if plan.error is not None:
            return self._relieve(
                plan, conv, hit, effective, (chain, eff_chain), tokens, limit, forced
            )
        return plan

    def _relieve(
        self,
        plan: ForwardPlan,
        conv: Conversation,
        hit: CachedSummary[str] | None,
        effective: list[Message],
        chains: tuple[list[str], list[str]],
        tokens: int,
        limit: int,
        forced: bool,
    ) -> ForwardPlan:
        """What to forward when no (new) summary is made for ``conv`` (``plan`` says
        why): with a cached summary of a prefix (``hit``), the history it makes
        (``effective``, estimated at ``tokens``), never the longer original; when that
        is past the relief point, or the upstream refused it (``forced``), its relieved
        view: cut down to ``limit`` (after a refusal, to half of what was sent) without a model
        (:mod:`contextfold.compaction._relief`, the point and the cut
        ``AutoCompactStore`` uses), the prompt and task (``conv.pinned``), a client's
        moved prompt (``conv.tail``) and the tool definitions untouched. Nothing is
        stored: the next request is planned afresh, and summarized once a summary can
        be made again. ``chains``: the prefix hashes of the original and of
        ``effective``.
        """
        chain, eff_chain = chains
        before = plan.tokens_before if plan.tokens_before is not None else tokens
        if plan.body is None and hit is not None:
            spliced = self._spliced(conv, chain, hit, effective, eff_chain, before, tokens)
            if spliced.body is not None:
                self.metrics.cache_hit()
                plan = replace(spliced, error=plan.error, why=plan.why)
        point = relief_point(limit, self.budget(conv.model, conv.tenant, conv.window))
        if tokens <= point and not forced:
            return plan
        opts = self.options(conv.model)
        extra = _extra_tokens(conv, opts.counter)  # the tools: sent whatever is cut
        head, end = conv.pinned, len(effective) - conv.tail
        middle = effective[head:end]
        counted = count_tokens(effective, opts.counter)
        scale = count_scale(tokens - extra, counted)
        # After a refusal, half of what was sent: the original, or a view relieved
        # down to the limit (an estimate that undercounts, a window smaller than told).
        goal = min(limit, tokens) // 2 if forced else limit
        excess = int((tokens - goal) / scale) + 1
        relief = relieve(
            middle,
            excess,
            opts.counter,
            max_tool_chars=opts.kept_tool_chars,
            marker=KEPT_TRUNCATION_MARKER,
        )
        if not relief.saved:
            return plan  # nothing could go without touching the prompt: as it was
        view = [*effective[:head], *relief.messages, *effective[end:]]
        rebuilt = rebuild(conv, view)
        if _check(conv, rebuilt) is not None:
            return plan
        after = tokens - int(relief.saved * scale)
        logger.info(
            "relieved a %s request without a model: %d -> %d messages, ~%d -> ~%d tokens "
            "(tool outputs %s, %d messages left out)",
            conv.model,
            len(conv.messages),
            len(view),
            before,
            after,
            "cut" if relief.truncated else "whole",
            relief.dropped,
        )
        error = f"{plan.error}; {_RELIEVED.format(dropped=relief.dropped)}"
        summary: SummaryState = "cached" if hit is not None else "none"
        hashed = chain_hashes(conv.scope, view)[-1]
        return replace(
            plan,
            body=rebuilt.body,
            usage_key=hashed,
            tokens_before=before,
            tokens_after=after,
            summary=summary,
            error=error,
            relieved=True,
        )

    async def _due(
        self,
        conv: Conversation,
        root: str,
        effective: Sequence[Message],
        tokens: int,
        limit: int,
    ) -> bool:
        """Whether ``effective`` (estimated at ``tokens``) is compacted now: over
        ``limit``, unless the ``should_compact`` hook decides otherwise."""

        def check() -> TriggerCheck:
            window = self.models.info(conv.model, conv.window).context_window
            return self.scheduler.check(
                conv.model, tokens, limit, window, messages=len(effective), session=root
            )

        return await self.scheduler.due(tokens, limit, check)

    async def _masked(
        self,
        conv: Conversation,
        hit: CachedSummary[str] | None,
        effective: list[Message],
        before: int,
        tokens: int,
        limit: int,
    ) -> ForwardPlan | None:
        """The plan forwarding ``effective`` (estimated at ``tokens``) masked, when that
        gets it under ``limit``."""
        assert self.mask is not None
        counted = count_tokens(effective, self.opts.counter)
        scale = count_scale(tokens, counted)

        def estimate(messages: Sequence[Message]) -> int:
            return int(count_tokens(messages, self.opts.counter) * scale)

        base = hit.message_count if hit is not None else 0
        found = await masked_body(self.mask, conv, effective, base, limit, estimate)
        if found is None:
            return None
        rebuilt, masked, after = found
        problem = _check(conv, rebuilt)
        if problem is not None:
            return None
        summary: SummaryState = "cached" if hit is not None else "none"
        hashed = chain_hashes(conv.scope, masked)[-1]
        return ForwardPlan(rebuilt.body, hashed, before, after, summary=summary)

    def _splice(
        self, conv: Conversation, chain: list[str], hit: CachedSummary[str] | None
    ) -> tuple[list[Message], list[str]]:
        if hit is None:
            return conv.messages, chain
        head = _summary_head(conv.messages, hit, conv.pinned)
        effective = [*head, *conv.messages[hit.message_count :]]
        return effective, self.spliced.chain(conv.scope, head, conv.messages, chain, hit)

    def _spliced(
        self,
        conv: Conversation,
        chain: list[str],
        hit: CachedSummary[str],
        effective: list[Message],
        eff_chain: list[str],
        before: int,
        after: int,
    ) -> ForwardPlan:
        rebuilt = rebuild(conv, effective)
        problem = _check(conv, rebuilt)
        if problem is not None:
            return ForwardPlan(
                None, chain[-1], before, before, error=problem, why="invalid_rewrite"
            )
        logger.info(
            "spliced a cached summary into a %s request: %d -> %d messages, ~%d -> ~%d tokens",
            conv.model,
            len(conv.messages),
            len(effective),
            before,
            after,
        )
        return ForwardPlan(rebuilt.body, eff_chain[-1], before, after, summary="cached")

    async def summary_run(
        self,
        model: str,
        messages: Sequence[Message],
        previous: str | None,
        transport: CompletionTransport,
        *,
        instructions: str | None = None,
    ) -> SummaryRun:
        """A summary of all of ``messages`` (an update of ``previous`` when given),
        written for ``model``'s requests with the proxy's prompts, verdict and
        ``summary_timeout``: what the emulated compaction APIs return (:mod:`._native`).
        The user's standing instructions among ``messages`` reach the summarizer, after
        ``instructions`` (the request's own) or the configured ones. The summary is
        checked against the fact ledger of ``messages`` (and of ``previous``'s own
        ledger section) as every other summary is: what it left out is restored after
        it, within ``fact_budget``."""
        opts = self.options(model)
        users = [m for m in messages if m.role == "user"]
        given = instructions.strip() if instructions and instructions.strip() else None
        extra = instructions_block(
            given or opts.instructions, standing_instructions(words_of(users))
        )
        self.summarizations += 1
        run = await self.scheduler.bounded(
            make_summarizer(transport, opts).summarize(messages, previous, instructions=extra),
        )
        if not opts.fact_budget:
            return run
        # the ledger's rules load with the first summary, not with the server
        from contextfold.compaction._ledger import build_ledger, split_ledger

        anchor, carried = split_ledger(previous) if previous is not None else (None, [])
        # on a worker thread: the proxy's other requests wait on its event loop
        ledger = await asyncio.to_thread(build_ledger, messages, previous=anchor, carried=carried)
        written, _ = split_ledger(without_recallable(run.text))  # a ledger is ours to write
        # Nothing is kept verbatim beside it: a compaction block replaces all it covers.
        section, coverage = ledger.restore(written, "", opts.fact_budget, opts.counter)
        self.metrics.fact_coverage(coverage)
        return replace(run, text=f"{written}\n\n{section}" if section else written)

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
        """Summarize ``effective`` down to ``target`` (default: the limit's share) and
        ``keep`` the summary (default: in the cache) under the prefix it replaces."""
        history = conv.messages
        counted = count_tokens(effective, self.opts.counter)
        scale = count_scale(tokens, counted)
        try:
            self.summarizations += 1
            result = await self.scheduler.bounded(
                compact_history(
                    effective,
                    transport,
                    self.options(conv.model, conv.recall),
                    target_tokens=int(limit * self.target_ratio) if target is None else target,
                    scale=scale,
                    pinned=conv.pinned,
                    pinned_tail=conv.tail,
                    off_loop=True,  # the proxy's other requests wait on its loop
                ),
            )
        except (ContextfoldError, ValueError) as exc:
            error = secrets.text(f"{type(exc).__name__}: {exc}")
            logger.warning(
                "summarization failed for a %s request (%s); forwarding it unchanged",
                conv.model,
                error,
            )
            return ForwardPlan(
                None, original[-1], before, before, error=error, why="summary_failed"
            )
        if result is None:
            return ForwardPlan(None, original[-1], before, before)
        self.metrics.summarized(result.usage.input_tokens, result.usage.output_tokens)
        self.metrics.fact_coverage(result.facts)
        if self.dashboard is not None:
            self.dashboard.summarized(
                conv.tenant, conversation_root(conv, original), result.usage, result.facts
            )
        result = _scrubbed(result, secrets)
        start = len(history) - result.kept_messages
        chain = chain_hashes(conv.scope, history[:start])
        # The whole summary message is cached: the user's verbatim words are in it.
        try:
            await (keep or self.cache.store)(
                root, CachedSummary(chain[-1], start, _summary_text(result))
            )
        except Exception as exc:  # the summary is paid for: this request still uses it
            logger.warning(
                "could not store a summary of a %s request (%s); using it uncached",
                conv.model,
                secrets.text(f"{type(exc).__name__}: {exc}"),
            )
        rebuilt = rebuild(conv, result.messages)
        problem = _check(conv, rebuilt)
        if problem is not None:
            logger.warning(
                "compacted %s request failed validation; forwarding it unchanged", conv.model
            )
            return ForwardPlan(
                None, original[-1], before, before, error=problem, why="invalid_rewrite"
            )
        forwarded = chain_hashes(conv.scope, result.messages)[-1]
        after = count_tokens(result.messages, self.opts.counter) + _extra_tokens(
            conv, self.opts.counter
        )
        logger.info(
            "compacted a %s request: %d -> %d messages, ~%d -> ~%d tokens (limit %d)",
            conv.model,
            len(history),
            len(result.messages),
            before,
            after,
            limit,
        )
        return ForwardPlan(rebuilt.body, forwarded, before, after, summary="created")


def conversation_root(conv: Conversation, chain: Sequence[str]) -> str:
    """What names ``conv`` on the dashboard: the prefix hash (``chain``) of its prompt
    and task, the messages the layout pinned (its whole history while it is no longer),
    seeded with tenant and model; the same for every request of one conversation."""
    return chain[min(conv.pinned, len(conv.messages))]


def _wire_of(conv: Conversation) -> tuple[list[Any], Any]:
    """The wire items of ``conv`` and what stands outside them (system, instructions)."""
    items = conv.body.get(conv.dialect.history_key)
    return (items if isinstance(items, list) else []), conv.dialect.outside(conv.body)


def _messages_at(cuts: Sequence[tuple[int, int]], wire_index: int, *, after: bool) -> int:
    """How many messages the wire items before ``wire_index`` parse to, at the nearest
    segment boundary at or ``after`` it (else at or before it)."""
    if after:
        return next((m for w, m in cuts if w >= wire_index), cuts[-1][1])
    return next((m for w, m in reversed(cuts) if w <= wire_index), cuts[0][1])


def _scrubbed(result: CompactionResult, secrets: Secrets) -> CompactionResult:
    """``result`` with the caller's credentials redacted from its summary: the summary
    is stored, and served to every request of the caller's tenant whose history shares
    the prefix (with ``tenant_header``, other keys than the caller's)."""
    summary = secrets.text(result.summary, key_like=False)
    made = _summary_text(result)
    clean = secrets.text(made, key_like=False)
    if summary == result.summary and clean == made:
        return result
    messages = [Message.user(clean) if m.text == made else m for m in result.messages]
    return replace(result, summary=summary, messages=messages)


def _summary_text(result: CompactionResult) -> str:
    """The text of the summary message of ``result`` (our wrapper, the summary and the
    user's verbatim words)."""
    return next(m.text for m in result.messages if parse_summary_message(m) is not None)


def _summary_head(
    history: Sequence[Message], hit: CachedSummary[str], pinned: int
) -> list[Message]:
    """``pinned prompt and task + systems of the rest of the prefix + summary (+
    acknowledgement)``, as compaction shapes it."""
    systems = [m for m in history[pinned : hit.message_count] if m.role == "system"]
    cached = Message.user(hit.summary)
    # Entries cached before the whole message was cached hold the summary text alone.
    message = cached if parse_summary_message(cached) else render_summary_message(hit.summary)
    head = [*history[:pinned], *systems, message]
    first_kept = next((m for m in history[hit.message_count :] if m.role != "system"), None)
    if first_kept is None or first_kept.role == "user":
        head.append(acknowledgement())
    return head


def _check(conv: Conversation, rebuilt: Rebuilt) -> str | None:
    """A description of why ``rebuilt`` must not be sent, or ``None`` when it is valid."""
    rules = conv.dialect.rules
    try:
        history = rebuilt.messages
        if history is None:
            history = conv.dialect.read_body(rebuilt.body)
        problems = history_problems(history, rules, allow_pending=True)
    except ValueError as exc:
        problems = [str(exc)]
    if problems:
        # What the client's own request already does (two assistant messages in a row,
        # which OpenAI accepts) is the upstream's to judge, not a reason to throw away a
        # summary: only problems the rewrite would add stop it.
        own = {_kind(p) for p in history_problems(conv.messages, rules, allow_pending=True)}
        problems = [p for p in problems if _kind(p) not in own]
    if not problems:
        return None
    error = CompactionError("the compacted history is invalid: " + "; ".join(problems))
    return f"{type(error).__name__}: {error}"


def _kind(problem: str) -> str:
    """A problem's description without its message numbers (what kind of problem)."""
    return re.sub(r"\d+", "N", problem)


def _extra_tokens(conv: Conversation, counter: TokenCounter) -> int:
    """Tokens the request spends outside its messages (tool definitions)."""
    tools = conv.body.get("tools")
    return counter(str(tools)) if tools else 0


def _settings_digest(opts: Options) -> str:
    """A digest of the settings that shape a summary's text (prompts and their variables,
    compaction instructions, the verbatim budget, the summary budget, the fact budget)."""
    shaping = [
        opts.prompt.template,
        opts.update_prompt.template,
        opts.continuation_prompt.template,
        opts.chunk_prompt.template if opts.chunk_prompt is not None else None,
        sorted((str(k), repr(v)) for k, v in opts.prompt_vars.items()),
        opts.instructions,
        opts.user_message_budget,
        opts.max_summary_tokens,
        opts.fact_budget,
    ]
    return hashlib.sha256(repr(shaping).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _flavoured(root: str, flavour: str) -> str:
    """The cache key of a conversation's summaries: its root hash and the digest of the
    settings they were made under, so a proxy restarted (or a replica run) with other
    prompts, instructions or budgets never splices a summary made under the old ones."""
    return hashlib.sha256(f"{root}:{flavour}".encode()).hexdigest()
