"""The machinery behind :class:`~contextfold.compaction.AutoCompactStore`.

Public users import it from :mod:`contextfold.compaction` (or :mod:`contextfold`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable, Sequence

from contextfold._otel import compaction_span
from contextfold.compaction._anchor import UsageAnchor
from contextfold.compaction._engine import (
    CompactionEvent,
    CompactionHook,
    Options,
    Outcome,
    PromptLike,
    Trigger,
    compaction_limit,
    make_summarizer,
)
from contextfold.compaction._plan import Plan, plan_compaction
from contextfold.compaction._prepare import Preparation, Prepared
from contextfold.compaction._report import Attempt, Reporter, span_attributes
from contextfold.compaction._settings import UNSET, CompactionSettings, Unset
from contextfold.compaction._splice import splice
from contextfold.compaction._summarizer import Summarizer
from contextfold.context import CompactionLocking, ContextStore, PrefixReplacing, SessionInfo
from contextfold.errors import SummaryRejectedError
from contextfold.messages import Message
from contextfold.tokens import TokenCounter, count_tokens
from contextfold.transports.base import CompletionTransport, ToolSpec, Usage, model_of

logger = logging.getLogger("contextfold.compaction")


class AutoCompactStore(ContextStore):
    """A store that compacts itself when the real prompt size crosses its limit.

    Every :class:`ContextStore` method is delegated to ``store``. The trigger is
    :meth:`add_context_tokens`, which the :class:`~contextfold.agent.Agent` awaits
    after every model call with the real usage: when ``input_tokens`` exceeds
    :attr:`limit`, compaction runs before the call returns. Appends are watched too:
    one that would push the next request past the limit (estimated from the last real
    usage plus what was appended since) compacts before that request.

    Compaction summarizes a snapshot through ``summary_transport`` (default:
    ``transport``), then splices ``[summary, acknowledgement, *recent, *appended
    meanwhile]`` into the store with one ``replace_history`` call. It is single-flight:
    concurrent triggers share one run, and stores implementing
    :class:`~contextfold.context.CompactionLocking` make it single-flight across
    processes. Failures never corrupt the store: the history stays as it was, the
    failure is reported, and the next attempts back off (1, 2, 4 ... up to
    ``max_backoff`` skipped triggers). Cumulative token counts are never rewritten.

    Stores implementing :class:`~contextfold.context.SnapshotReplacing` (memory,
    SQLite, PostgreSQL, Redis) commit with ``replace_snapshot``, a compare-and-swap that
    only touches the summarized snapshot: appends from anywhere are kept, and a history
    another process rewrote meanwhile is never overwritten (outcome ``conflict``). For
    other stores, appends must go through this wrapper to be kept when they race with
    the splice.

    With ``prepare_threshold`` (0.6 of the window by default), crossing it starts one
    background summary of a snapshot and returns at once; crossing :attr:`limit` then
    commits it without a model call (outcome ``committed``, with ``waited_s``). A caller
    waits for a summary still in preparation only past halfway from the limit to the
    window's input budget; a prepared summary whose snapshot is no longer a prefix of
    the history is discarded (outcome ``discarded``, with what it cost).

    Args:
        store: the store to wrap.
        transport: the agent's transport; its ``model`` (read at every check) gives the
            context window and output limit the compaction limit derives from.
        settings: a :class:`~contextfold.compaction.CompactionSettings`; every keyword
            below that is given (not ``None``) overrides the field of the same name.
        summary_transport: the transport summaries are written with (default:
            ``transport``), e.g. a cheaper model.
        on_event: a hook or hooks called with a
            :class:`~contextfold.compaction.CompactionEvent` before and after every
            attempt; sync or async; a hook that raises is logged and ignored.
        keep_recent, threshold, max_tokens, target_ratio, system_prompt, update_prompt,
            prompt_vars, counter, max_summary_tokens, max_tool_chars, kept_tool_chars,
            cache_friendly, agent_system, agent_tools, proactive, max_backoff,
            summary_timeout, prepare_threshold: the
            fields of :class:`~contextfold.compaction.CompactionSettings` (defaults
            there: ``keep_recent=6``, ``threshold=0.75``, ``target_ratio=0.5``,
            ``max_summary_tokens=4000``, ``max_tool_chars=8000``,
            ``kept_tool_chars=2000``, ``proactive=True``, ``max_backoff=32``,
            ``summary_timeout=120.0`` seconds, ``prepare_threshold=0.6``).

    Attributes:
        settings: the settings in force.
        inner: the wrapped store.
        limit: the prompt size that triggers compaction, read from ``transport`` now.
        compactions: how many compactions this wrapper committed.
        summarizer_usage: running total of the summarizer's usage, apart from the agent's.
        last_event: the latest :class:`~contextfold.compaction.CompactionEvent` of an
            attempt, or ``None`` (triggers held back by back-off or the no-loop floor
            are reported to the hooks with outcome ``held``, not here).
    """

    def __init__(
        self,
        store: ContextStore,
        transport: CompletionTransport,
        *,
        settings: CompactionSettings | None = None,
        summary_transport: CompletionTransport | None = None,
        on_event: CompactionHook | Iterable[CompactionHook] | None = None,
        keep_recent: int | None = None,
        threshold: float | None = None,
        max_tokens: int | None = None,
        system_prompt: PromptLike | None = None,
        update_prompt: PromptLike | None = None,
        prompt_vars: dict[str, object] | None = None,
        counter: TokenCounter | None = None,
        max_summary_tokens: int | None = None,
        max_tool_chars: int | None = None,
        kept_tool_chars: int | None = None,
        target_ratio: float | None = None,
        cache_friendly: bool | None = None,
        agent_system: str | None = None,
        agent_tools: Iterable[ToolSpec] | None = None,
        proactive: bool | None = None,
        max_backoff: int | None = None,
        summary_timeout: float | Unset | None = UNSET,
        prepare_threshold: float | Unset | None = UNSET,
    ) -> None:
        self.settings: CompactionSettings = (settings or CompactionSettings()).replace(
            keep_recent=keep_recent,
            threshold=threshold,
            max_tokens=max_tokens,
            system_prompt=system_prompt,
            update_prompt=update_prompt,
            prompt_vars=prompt_vars,
            counter=counter,
            max_summary_tokens=max_summary_tokens,
            max_tool_chars=max_tool_chars,
            kept_tool_chars=kept_tool_chars,
            target_ratio=target_ratio,
            cache_friendly=cache_friendly,
            agent_system=agent_system,
            agent_tools=None if agent_tools is None else tuple(agent_tools),
            proactive=proactive,
            max_backoff=max_backoff,
            summary_timeout=summary_timeout,
            prepare_threshold=prepare_threshold,
        )
        """Every setting in force (see :class:`CompactionSettings`)."""
        if not _can_rewrite(store):
            raise TypeError(
                f"{type(store).__name__} can neither replace_history() nor clear(), so a "
                "compaction could never be committed: implement replace_history (atomic, "
                "best) or clear on it, or wrap a store that has them"
            )
        self.inner = store
        self.transport = transport
        self.summary_transport = summary_transport or transport
        self._opts: Options = self.settings.options()
        self._report = Reporter(on_event, lambda: self.session_id, lambda: self.limit)
        self.summarizer_usage = Usage(0, 0)
        """Running total of what the summarizer cost (separate from the agent's usage)."""
        self.compactions = 0
        """How many compactions were committed through this wrapper."""
        self._anchor = UsageAnchor(self._opts.counter)
        self._prep = Preparation()
        # Commits made in the background, and how many there had been at the last read:
        # a usage report for a request read before such a commit describes a history
        # that no longer exists.
        self._generation = self._read_generation = 0
        self._commit_when_ready = False  # the limit was crossed while preparing
        self._failures = 0
        self._skip = 0
        self._floor: int | None = None  # no retry until usage exceeds this
        self._running: asyncio.Future[bool] | None = None
        # Stores that can replace a prefix atomically need no lock around appends.
        self._prefix_splice = isinstance(store, PrefixReplacing)
        self._splice_lock = asyncio.Lock()

    # -- settings --------------------------------------------------------------------

    @property
    def keep_recent(self) -> int:
        return self.settings.keep_recent

    @property
    def threshold(self) -> float:
        return self.settings.threshold

    @property
    def max_tokens(self) -> int | None:
        return self.settings.max_tokens

    @property
    def prepare_limit(self) -> int | None:
        """The prompt size at which a summary is prepared in the background, or ``None``."""
        share = self.settings.prepare_threshold
        if share is None:
            return None
        value = int(share * model_of(self.transport).context_window)
        return value if value < self.limit else None

    @property
    def limit(self) -> int:
        """The prompt size that triggers compaction, read from the transport now."""
        return compaction_limit(
            self.transport, threshold=self.threshold, max_tokens=self.max_tokens
        )

    @property
    def last_event(self) -> CompactionEvent | None:
        """The latest event of an attempt, or ``None``."""
        return self._report.last_event

    def add_hook(self, hook: CompactionHook) -> None:
        """Call ``hook(event)`` before and after every compaction attempt."""
        self._report.hooks.append(hook)

    # -- delegation ------------------------------------------------------------------

    @property
    def session_id(self) -> str:
        return self.inner.session_id

    @session_id.setter
    def session_id(self, value: str) -> None:
        self.inner.session_id = value

    async def append(self, message: Message) -> None:
        if self._prefix_splice:
            await self.inner.append(message)
        else:
            async with self._splice_lock:
                await self.inner.append(message)
        self._anchor.note(message)

    async def get_history(self) -> list[Message]:
        """The inner store's history, compacted first if appends pushed it past the limit.

        The proactive check lives here, on the read that precedes every model request,
        so each appended message is estimated once and appends stay cheap.
        """
        if self._anchor.pending and self.settings.proactive:
            estimate = self._anchor.estimate
            if estimate > self.limit:
                await self._trigger("append", estimate)
            else:
                self._maybe_prepare(estimate)
        self._read_generation = self._generation
        return await self.inner.get_history()

    async def clear(self) -> None:
        await self._discard(self._prep.take(), "the history was cleared")
        async with self._splice_lock:
            await self.inner.clear()
        self._anchor.reset()
        self._floor = None

    async def replace_history(self, messages: Sequence[Message]) -> None:
        await self._discard(self._prep.take(), "the history was replaced")
        async with self._splice_lock:
            await self.inner.replace_history(messages)
        # A rewritten history is estimated anew; the old usage says nothing about it.
        self._anchor.reset(messages)
        self._floor = None

    async def fork(self) -> AutoCompactStore:
        """An :class:`AutoCompactStore` with the same settings (hooks included) around
        ``inner.fork()``; it starts from the same usage anchor."""
        forked = AutoCompactStore(
            await self.inner.fork(),
            self.transport,
            settings=self.settings,
            summary_transport=self.summary_transport,
            on_event=list(self._report.hooks),
        )
        forked._anchor = self._anchor.copy()
        return forked

    async def close(self) -> None:
        """Cancel a preparation in flight, then close the inner store."""
        await self._prep.close()
        await self.inner.close()

    async def set_context_tokens(self, input_tokens: int, output_tokens: int) -> None:
        await self.inner.set_context_tokens(input_tokens, output_tokens)

    async def get_context_tokens(self) -> tuple[int, int]:
        return await self.inner.get_context_tokens()

    async def list_sessions(self) -> list[SessionInfo]:
        return await self.inner.list_sessions()

    async def add_context_tokens(self, input_tokens: int, output_tokens: int) -> None:
        """Record one model call's usage; compact when the prompt size exceeds :attr:`limit`.

        The prompt size is ``input_tokens``, but never less than the local estimate of
        what was sent (the last believed size plus what was appended since): a
        transport that reports 0, or leaves cache reads out, cannot hide a full window.
        A report below half of that estimate is not believed as the base of the next
        estimate either (the estimate stands in for it); a plausible one is, so the
        counter's error never accumulates from turn to turn.
        """
        await self.inner.add_context_tokens(input_tokens, output_tokens)
        if self._anchor.needs_history():
            self._anchor.take_history(await self.inner.get_history())
        if self._read_generation != self._generation:
            # The request was read before a commit (a summary prepared in the background
            # landed while the model answered): its usage says nothing about the history
            # now, so the estimate of what is live stands in for it.
            tokens = self._anchor.estimate
        else:
            tokens = self._anchor.observe(input_tokens)
        if tokens > self.limit:
            await self._trigger("usage", tokens)
        else:
            self._maybe_prepare(tokens)

    async def compact(self, *, force: bool = False) -> bool:
        """Compact now, whatever the usage; return whether the history changed.

        ``force=True`` also ignores the back-off after failed attempts: the
        :class:`~contextfold.agent.Agent` calls it after a context-overflow error,
        when the request cannot succeed otherwise. Without it, a compaction asked for
        while failures are being backed off is skipped (and ``False`` returned).
        """
        tokens = max(self._anchor.estimate, 0)
        if not force and self._skip > 0:
            self._skip -= 1
            return False
        return await self._trigger("forced" if force else "manual", tokens, force=True)

    # -- the run ---------------------------------------------------------------------

    async def _trigger(self, trigger: Trigger, tokens: int, *, force: bool = False) -> bool:
        if self._running is not None and not self._running.done():
            return await asyncio.shield(self._running)
        if not force:
            # After a compaction that could not get under the limit, only meaningful
            # growth (5 % of the limit) justifies another attempt.
            if self._floor is not None and tokens <= self._floor + self.limit // 20:
                await self._report.held(
                    trigger, tokens, "waiting for usage to grow 5% past the last attempt"
                )
                return False
            if self._skip > 0:
                self._skip -= 1
                await self._report.held(
                    trigger, tokens, f"backing off after failures ({self._skip} more)"
                )
                return False
        if self._prep.running:
            if not force and tokens <= self._wait_point():
                # The next request still fits: commit the summary when it is ready.
                self._commit_when_ready = True
                await asyncio.sleep(0)  # let the preparation go on even if nothing else yields
                return False
            committed = self.compactions
            await self._prep.wait(self.settings.summary_timeout)
            if self.compactions > committed:  # it was ready and committed meanwhile
                return True
            if not force and self._skip > 0:  # it failed: back off, never wait twice
                self._skip -= 1
                await self._report.held(trigger, tokens, "the prepared summary failed")
                return False
        self._running = asyncio.ensure_future(self._run(trigger, tokens))
        try:
            return await asyncio.shield(self._running)
        finally:
            if self._running is not None and self._running.done():
                self._running = None

    async def _run(self, trigger: Trigger, tokens: int) -> bool:
        with compaction_span(self.session_id, trigger, tokens) as record:
            done = await self._attempt(trigger, tokens)
            event = self._report.last_event
            if event is not None and event.phase == "after":
                record(span_attributes(event))
            return done

    async def _attempt(self, trigger: Trigger, tokens: int) -> bool:
        attempt = Attempt(trigger, tokens)
        try:
            if isinstance(self.inner, CompactionLocking):
                async with self.inner.compaction_lock() as acquired:
                    if not acquired:
                        await self._report.before(attempt)
                        await self._report.after(attempt, "busy")
                        return False
                    return await self._guarded(attempt)
            return await self._guarded(attempt)
        except Exception as exc:  # the store's lock failed; the attempt never started
            await self._failed(attempt, exc)
            return False

    async def _guarded(self, attempt: Attempt) -> bool:
        """One attempt; whatever goes wrong is reported, backed off and never raised.

        Compaction runs inside the agent's turn (``add_context_tokens``,
        ``get_history``): a failure here must not lose the reply the agent already paid
        for, so it becomes a ``failed`` event and the history stays as it was.
        """
        try:
            summarizer = attempt.summarizer = make_summarizer(self.summary_transport, self._opts)
            return await self._compact_once(attempt, summarizer)
        except Exception as exc:
            await self._failed(attempt, exc)
            return False
        except asyncio.CancelledError:
            await self._report.after(attempt, "failed", error="cancelled; history left untouched")
            raise
        finally:
            if attempt.summarizer is not None:
                self.summarizer_usage = self.summarizer_usage + attempt.summarizer.usage

    async def _failed(self, attempt: Attempt, exc: Exception) -> None:
        """Back off and report ``exc`` as the end of ``attempt``."""
        self._failures += 1
        self._skip = min(2 ** (self._failures - 1), self.settings.max_backoff)
        outcome: Outcome = "rejected" if isinstance(exc, SummaryRejectedError) else "failed"
        error = f"{type(exc).__name__}: {exc}"
        logger.warning(
            "compaction of session %s %s (%s); history left untouched, next %d trigger(s) skipped",
            self.session_id,
            outcome,
            error,
            self._skip,
        )
        await self._report.after(attempt, outcome, error=error)

    async def _compact_once(self, attempt: Attempt, summarizer: Summarizer) -> bool:
        snapshot = await self.inner.get_history()
        attempt.messages = len(snapshot)
        tokens = attempt.tokens
        await self._report.before(attempt)
        limit = self.limit
        prepared = self._prep.take()
        if prepared is not None and snapshot[: len(prepared.snapshot)] != prepared.snapshot:
            await self._discard(prepared, "the history changed under the prepared summary")
            prepared = None
        if prepared is not None:  # summarized ahead of the limit: no model call now
            plan, snapshot = prepared.plan, prepared.snapshot
        else:
            found = await self._plan(snapshot, tokens, summarizer)
            if found is None:
                self._floor = tokens
                await self._report.after(attempt, "skipped")
                return False
            plan = found
        new_messages, result = plan.messages, plan.result
        appended = await self._commit(snapshot, new_messages)
        if appended is None:
            await self._report.after(
                attempt, "conflict", error="the history changed underneath the compaction"
            )
            return False
        after = plan.estimate([*new_messages, *appended])
        self.compactions += 1
        self._failures = self._skip = 0
        self._anchor.rebase(after, count_tokens([*new_messages, *appended], self._opts.counter))
        # Could not get under the limit: wait for usage to grow past this point again.
        self._floor = max(tokens, after) if after > limit else None
        await self._report.after(
            attempt,
            "committed" if prepared is not None else plan.outcome,
            messages_after=len(new_messages) + len(appended),
            tokens_after=after,
            summary_tokens=self._opts.counter(result.summary) if result else 0,
            summarized_messages=result.summarized_messages if result else 0,
            waited_s=time.monotonic() - attempt.started,
        )
        logger.info(
            "compacted session %s: %d -> %d messages, ~%d -> ~%d tokens (%s trigger, %s)",
            self.session_id,
            len(snapshot),
            len(new_messages) + len(appended),
            tokens,
            after,
            attempt.trigger,
            "committed" if prepared is not None else plan.outcome,
        )
        if prepared is not None and after > int(limit * self.settings.target_ratio):
            # What accumulated since the snapshot leaves the result over the target:
            # update the summary now if the next request needs it, else in the background.
            if after > limit:
                return await self._compact_once(Attempt(attempt.trigger, after), summarizer)
            self._maybe_prepare(after, due=True)
        return True

    async def _plan(
        self, snapshot: list[Message], tokens: int, summarizer: Summarizer, *, ahead: bool = False
    ) -> Plan | None:
        """Plan a compaction of ``snapshot``; ``ahead`` (a preparation) aims lower by the
        growth still to come before the limit, so the commit lands near the target."""
        limit = self.limit
        target = int(limit * self.settings.target_ratio)
        if ahead:
            target = max(target - max(limit - tokens, 0), target // 2)
        return await plan_compaction(
            snapshot,
            tokens,
            target=target,
            transport=self.summary_transport,
            opts=self._opts,
            summarizer=summarizer,
            time_limit=self.settings.summary_timeout,
        )

    # -- background preparation ------------------------------------------------------

    def _wait_point(self) -> int:
        """Past this prompt size a caller waits for the summary in preparation: halfway
        from the limit to the most the window takes with room for a full reply."""
        limit = self.limit
        return limit + max(model_of(self.transport).input_budget - limit, 0) // 2

    def _maybe_prepare(self, tokens: int, *, due: bool = False) -> None:
        """Start preparing a summary when ``tokens`` crossed the prepare limit."""
        prepare_at = self.prepare_limit
        if prepare_at is None or (tokens <= prepare_at and not due):
            return
        if self._skip > 0 or (self._running is not None and not self._running.done()):
            return  # backing off, or a compaction runs: its result would make this stale
        if self._prep.start(lambda: self._prepare(tokens)):
            logger.debug("preparing a summary of session %s at ~%d tokens", self.session_id, tokens)

    async def _prepare(self, tokens: int) -> None:
        """Plan a compaction of the current history in the background (one attempt)."""
        attempt = Attempt("prepare", tokens)
        try:
            summarizer = attempt.summarizer = make_summarizer(self.summary_transport, self._opts)
            snapshot = await self.inner.get_history()
            # The size now, not when the preparation was asked for (it may start late).
            tokens = attempt.tokens = max(tokens, self._anchor.estimate)
            attempt.messages = len(snapshot)
            await self._report.before(attempt)
            plan = await self._plan(snapshot, tokens, summarizer, ahead=True)
        except Exception as exc:
            self._commit_when_ready = False  # the limit's trigger falls back to today's rules
            await self._failed(attempt, exc)
            return
        except asyncio.CancelledError:
            await self._report.after(attempt, "failed", error="cancelled")
            raise
        finally:
            self.summarizer_usage = self.summarizer_usage + attempt.usage
        if plan is None:
            self._commit_when_ready = False
            await self._report.after(attempt, "skipped")
            return
        self._prep.ready = Prepared(snapshot, plan, attempt.usage, summarizer.requests)
        await self._report.after(
            attempt,
            "prepared",
            messages_after=len(plan.messages),
            tokens_after=plan.estimate(plan.messages),
            summarized_messages=plan.result.summarized_messages if plan.result else 0,
        )
        if self._commit_when_ready:  # the limit was crossed meanwhile: commit now
            self._commit_when_ready = False
            self._prep.finish()
            if await self._trigger("usage", self._anchor.estimate):
                self._generation += 1

    async def _discard(self, prepared: Prepared | None, why: str) -> None:
        """Report a prepared summary that was paid for and will never be used."""
        if prepared is None:
            return
        logger.info("prepared summary of session %s discarded: %s", self.session_id, why)
        event = self._report.event(
            "after",
            "prepare",
            0,
            len(prepared.snapshot),
            outcome="discarded",
            summarizer_usage=prepared.usage,
            summarizer_requests=prepared.requests,
            error=why,
        )
        await self._report.emit(event, attempt=False)

    async def _commit(
        self, snapshot: list[Message], new_messages: list[Message]
    ) -> list[Message] | None:
        """Splice ``new_messages`` in place of ``snapshot`` (see :func:`splice`)."""
        async with self._splice_lock:
            # Appends noted before the splice reads the history are part of the estimate
            # made after the commit; forget them so they are not counted twice.
            noted = self._anchor.pending
            noted_count = len(noted)
            # A commit is never left half-done: cancelling the caller lets it finish
            # (or roll back) before the cancellation goes on.
            commit = asyncio.ensure_future(splice(self.inner, snapshot, new_messages))
            try:
                appended = await asyncio.shield(commit)
            except asyncio.CancelledError:
                await asyncio.wait([commit])
                raise
            if appended is not None and self._anchor.pending is noted:
                del noted[:noted_count]
        return appended


def _can_rewrite(store: ContextStore) -> bool:
    """Whether ``store`` overrides a way to rewrite its history (the defaults of
    :class:`ContextStore` end in ``clear()``, which raises)."""
    kind = type(store)
    return (
        isinstance(store, PrefixReplacing)
        or kind.replace_history is not ContextStore.replace_history
        or kind.clear is not ContextStore.clear
    )
