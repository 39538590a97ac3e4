"""The compactor behind :class:`~contextfold.compaction.AutoCompactStore`.

:class:`Compactor` owns a wrapped store's compaction state and runs: the trigger rules
(single flight, back-off, the no-loop floor), one attempt (plan, commit, report), and
background preparation (a summary made ahead of the limit, committed when it is
crossed). :mod:`._store` is the face: it delegates the store contract and tells the
compactor what it sees (usage reports, appends, reads, rewrites).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import logging
import time
from collections.abc import Iterable

from contextfold._cancel import cancelled, carried_interrupt, carry, joined
from contextfold._otel import compaction_span
from contextfold.compaction._anchor import UsageAnchor
from contextfold.compaction._engine import (
    CompactionHook,
    Options,
    Outcome,
    Trigger,
    compaction_limit,
    make_summarizer,
)
from contextfold.compaction._mask import plan_masking_first
from contextfold.compaction._plan import Plan, PromptEstimate, plan_compaction
from contextfold.compaction._prepare import Prepared, prepare_point
from contextfold.compaction._relief import relief_point, relieve
from contextfold.compaction._report import Attempt, Reporter, span_attributes
from contextfold.compaction._scheduler import Preparation, Scheduler
from contextfold.compaction._settings import CompactionSettings
from contextfold.compaction._splice import splice
from contextfold.compaction._summarizer import KEPT_TRUNCATION_MARKER, Summarizer, keeps_archive
from contextfold.compaction._trigger import TriggerCheck
from contextfold.context import CompactionLocking, ContextStore
from contextfold.errors import CompactionError, SummaryRejectedError
from contextfold.messages import Message
from contextfold.stores.base import JournalEntry, Journaling
from contextfold.tokens import count_tokens
from contextfold.transports.base import CompletionTransport, Usage, model_of

logger = logging.getLogger("contextfold.compaction")

_HISTORY = ("history",)
"""The scheduler's chain for the store's one history (see ._scheduler)."""


class Compactor:
    """Compaction state and runs for one wrapped ``store`` (see the module doc)."""

    def __init__(
        self,
        store: ContextStore,
        transport: CompletionTransport,
        summary_transport: CompletionTransport,
        settings: CompactionSettings,
        hooks: CompactionHook | Iterable[CompactionHook] | None,
    ) -> None:
        self.inner = store
        self.transport = transport
        self.summary_transport = summary_transport
        self.settings = settings
        # The summary message says the full transcript is archived only when it is.
        self.opts: Options = dataclasses.replace(settings.options(), archived=keeps_archive(store))
        self.report = Reporter(hooks, lambda: self.session_id, lambda: self.limit)
        self.summarizer_usage = Usage(0, 0)
        self.compactions = 0
        self.rewrites = 0  # clear, replace_history, undo (see decide)
        self.anchor = UsageAnchor(self.opts.counter)
        # Commits made in the background, and how many there had been at the last read,
        # and the same of all commits (None: the history was never read through the
        # store): see read_before_a_commit.
        self.generation = self.read_generation = 0
        self.read_compactions: int | None = None
        self._commit_when_ready = False  # the limit was crossed while preparing
        self._answered = False  # the preparation's summary came back (its ledger is read)
        # Set when the preparation running now commits its summary, or ends without it
        # (a new one for each preparation): see _await_landing.
        self._landing = asyncio.Event()
        # A committed result over the target: the size to update its summary from, in
        # the background once the run that committed it has ended.
        self._update_due: int | None = None
        # Estimated tokens the last read's relieved view left out (0: the whole history).
        self.relieved_by = 0
        # Triggers, single flight, back-off, preparation and the summary timeout: the one
        # policy of every face (see ._scheduler), keyed here by the one history the store
        # holds.
        self.scheduler: Scheduler[str] = Scheduler.of("store", settings)
        self.prep: Preparation[str, Prepared] = self.scheduler.preparations.of(_HISTORY[-1])
        self.floor: int | None = None  # no retry until usage exceeds this
        self._joined = 0  # callers awaiting the run now
        self.splice_lock = asyncio.Lock()

    @property
    def session_id(self) -> str:
        return self.inner.session_id

    @property
    def limit(self) -> int:
        """The prompt size that triggers compaction, read from the transport now."""
        return compaction_limit(
            self.transport, threshold=self.settings.threshold, max_tokens=self.settings.max_tokens
        )

    @property
    def prepare_limit(self) -> int | None:
        """The prompt size at which a summary is prepared in the background, or ``None``."""
        window = model_of(self.transport).context_window
        return prepare_point(self.settings.prepare_threshold, window, self.limit)

    async def due(self, tokens: int) -> bool:
        """Whether a prompt of ``tokens`` is compacted now: over :attr:`limit`, unless
        the ``should_compact`` hook decides otherwise (:mod:`._trigger`)."""
        limit = self.limit

        def check() -> TriggerCheck:
            model = model_of(self.transport)
            return self.scheduler.check(
                model.name, tokens, limit, model.context_window, session=self.session_id
            )

        return await self.scheduler.due(tokens, limit, check)

    async def decide(self, tokens: int) -> tuple[bool, int]:
        """:meth:`due` for a prompt of ``tokens``, and the size to act on.

        A verdict about a history that changed while the ``should_compact`` hook
        answered (a commit landed; ``clear``, ``replace_history`` or ``undo`` rewrote
        it) is not acted on: ``(False, the live size)``, and the next report or read
        decides. Acted on, it paid for a summary of a history already compacted, or
        summarized a fresh one with the old one's usage.
        """
        changes = (self.compactions, self.rewrites)
        verdict = await self.due(tokens)
        if (self.compactions, self.rewrites) != changes:
            return False, self.anchor.estimate
        return verdict, tokens

    @property
    def running(self) -> asyncio.Future[bool] | None:
        """The compaction running now, if any."""
        found = self.scheduler.flights.running(_HISTORY)
        return None if found is None else found[1]

    @property
    def busy(self) -> bool:
        """Whether a compaction is running now."""
        return self.running is not None

    def skip(self, *, forced: bool = False) -> int | None:
        """Whether a trigger is skipped by the back-off after failures: the triggers
        still to skip after it, or ``None`` when it goes ahead."""
        skipped = self.scheduler.backoffs.skip(_HISTORY, forced=forced)
        return None if skipped is None else skipped.skips

    @property
    def backing_off(self) -> bool:
        """Whether the next trigger would be skipped after failures."""
        return self.scheduler.backoffs.state(_HISTORY).holding

    async def trigger(self, trigger: Trigger, tokens: int, *, force: bool = False) -> bool:
        """Run (or join) one compaction attempt; whether the history changed.

        The attempt runs as a task of its own, shared by concurrent callers; cancelling
        a caller does not cancel it. Whatever the attempt meets ends it, never the
        caller: an error or a :class:`asyncio.CancelledError` nobody asked for is a
        ``failed`` attempt. Only a :class:`KeyboardInterrupt` or :class:`SystemExit`
        passes through, re-raised as itself in every caller (not left to stop the
        event loop, which would leave the callers a bare cancellation).
        """
        running = self.running
        if running is not None:
            return await self._join(running)
        if not force:
            # After a compaction that could not get under the limit, only meaningful
            # growth (5 % of the limit) justifies another attempt.
            if self.floor is not None and tokens <= self.floor + self.limit // 20:
                await self.report.held(
                    trigger, tokens, "waiting for usage to grow 5% past the last attempt"
                )
                return False
            skips = self.skip()
            if skips is not None:
                await self.report.held(
                    trigger, tokens, f"backing off after failures ({skips} more)"
                )
                return False
        if self.prep.running:
            if not force:
                # Commit the summary when it is ready; until then a read past the relief
                # point gets a relieved view, so the next request fits without waiting.
                self._commit_when_ready = True
                if self._answered and tokens > self.relief_point:
                    return await self._await_landing()
                await asyncio.sleep(0)  # let the preparation go on even if nothing else yields
                return False
            committed = self.compactions
            await self.prep.wait(self.scheduler.summary_timeout)
            if self.compactions > committed:  # it was ready and committed meanwhile
                return True
            if self.skip(forced=force) is not None:  # it failed: back off, never wait twice
                await self.report.held(trigger, tokens, "the prepared summary failed")
                return False
            running = self.running
            if running is not None:
                # Another caller waited for the same preparation and started first.
                return await self._join(running)
        run = asyncio.ensure_future(carry(self._run(trigger, tokens)))
        self.scheduler.flights.track(_HISTORY[-1], run)
        run.add_done_callback(self._after_run)
        return await self._join(run)

    async def _await_landing(self) -> bool:
        """Wait for the preparation whose summary came back to commit it; whether it did.

        Only its fact ledger is being read (on a thread, a fraction of a second) and the
        next read would be relieved: the summary beats a cut view. The wait ends when
        the prepared summary is committed (not an update that follows it), or the
        preparation ends without it (failed, nothing to commit, cancelled by ``close``,
        ``clear`` or ``replace_history``), or after ``summary_timeout``; it never starts
        a summary of its own.
        """
        landing = self._landing
        committed = self.compactions
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.scheduler.summary_timeout):
                await landing.wait()
        return self.compactions > committed

    async def _join(self, run: asyncio.Future[bool]) -> bool:
        self._joined += 1
        try:
            return await joined(run)
        finally:
            self._joined -= 1

    def _after_run(self, run: asyncio.Future[bool]) -> None:
        """A run has ended: start the update its commit asked for (see _compact_once).

        An interrupt it carried with no caller left to re-raise it (they were all
        cancelled) is raised here, where it stops the event loop as it would have.
        """
        interrupt = carried_interrupt(run)
        if interrupt is not None and not self._joined:
            raise interrupt
        due, self._update_due = self._update_due, None
        if due is not None and not run.cancelled() and interrupt is None:
            self.maybe_prepare(max(due, self.anchor.estimate), due=True)

    async def _run(self, trigger: Trigger, tokens: int) -> bool:
        with compaction_span(self.session_id, trigger, tokens) as record:
            done = await self._attempt(trigger, tokens)
            event = self.report.last_event
            if event is not None and event.phase == "after":
                record(span_attributes(event))
            return done

    async def _attempt(self, trigger: Trigger, tokens: int) -> bool:
        attempt = Attempt(trigger, tokens)
        try:
            if isinstance(self.inner, CompactionLocking):
                async with self.inner.compaction_lock() as acquired:
                    if not acquired:
                        await self.report.before(attempt)
                        await self.report.after(attempt, "busy")
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
            summarizer = attempt.summarizer = make_summarizer(self.summary_transport, self.opts)
            return await self._compact_once(attempt, summarizer)
        except Exception as exc:
            await self._failed(attempt, exc)
            return False
        except asyncio.CancelledError as exc:
            if not cancelled():  # raised by what the attempt awaited, not a cancellation
                await self._failed(attempt, _unasked(exc))
                return False
            await self.report.after(attempt, "failed", error="cancelled; history left untouched")
            raise
        except (KeyboardInterrupt, SystemExit) as exc:
            error = f"interrupted ({type(exc).__name__}); history left untouched"
            await self.report.after(attempt, "failed", error=error)
            raise
        finally:
            if attempt.summarizer is not None:
                self.summarizer_usage = self.summarizer_usage + attempt.summarizer.usage

    async def _failed(self, attempt: Attempt, exc: Exception) -> None:
        """Back off and report ``exc`` as the end of ``attempt``."""
        backoff = self.scheduler.backoffs.ended_alone(_HISTORY, failed=True)
        outcome: Outcome = "rejected" if isinstance(exc, SummaryRejectedError) else "failed"
        error = f"{type(exc).__name__}: {exc}"
        logger.warning(
            "compaction of session %s %s (%s); history left untouched, next %d trigger(s) skipped",
            self.session_id,
            outcome,
            error,
            backoff.skips,
        )
        await self.journal_attempt(attempt, outcome, error)
        await self.report.after(attempt, outcome, error=error)

    async def journal_attempt(
        self,
        attempt: Attempt,
        outcome: Outcome,
        error: str,
        *,
        usage: Usage | None = None,
        requests: int | None = None,
    ) -> None:
        """Journal an attempt that changed nothing (a store that keeps no journal: skip).

        Best effort: the journal must never turn a failed attempt into an error of the
        agent's turn, so a store that fails here is logged and the attempt goes on.
        """
        if not isinstance(self.inner, Journaling):
            return
        usage = attempt.usage if usage is None else usage
        summarizer = attempt.summarizer
        note = JournalEntry(
            0,
            "",
            "attempt",
            outcome=outcome,
            trigger=attempt.trigger,
            real_tokens_before=attempt.tokens or None,
            summarizer_model=model_of(self.summary_transport).name,
            summarizer_input_tokens=usage.input_tokens,
            summarizer_output_tokens=usage.output_tokens,
            summarizer_requests=(
                requests
                if requests is not None
                else summarizer.requests
                if summarizer is not None
                else 0
            ),
            duration_s=time.monotonic() - attempt.started,
            error=error,
        )
        try:
            await self.inner.write_journal(note)
        except Exception:
            logger.exception(
                "could not journal a %s attempt of session %s", outcome, self.session_id
            )

    async def _compact_once(self, attempt: Attempt, summarizer: Summarizer) -> bool:
        snapshot = await self.inner.get_history()
        attempt.messages = len(snapshot)
        tokens = attempt.tokens
        await self.report.before(attempt)
        limit = self.limit
        prepared = self.prep.take()
        if prepared is not None and snapshot[: len(prepared.snapshot)] != prepared.snapshot:
            await self.discard(prepared, "the history changed under the prepared summary")
            prepared = None
        if prepared is not None:  # summarized ahead of the limit: no model call now
            plan, snapshot = prepared.plan, prepared.snapshot
        else:
            # An explicit compact() is not refused for a result no smaller than the
            # history (the seed's small examples); the automatic triggers still are.
            explicit = attempt.trigger in ("manual", "forced")
            found = await self._plan(snapshot, tokens, summarizer, require_smaller=not explicit)
            if found is None:
                self.floor = tokens
                await self.report.after(attempt, "skipped")
                return False
            plan = found
        new_messages, result = plan.messages, plan.result
        # A prepared summary is "committed"; masking (no model call) is "masked" either way.
        outcome = "committed" if prepared is not None and plan.outcome != "masked" else plan.outcome
        usage, requests = (
            (prepared.usage, prepared.requests)
            if prepared is not None
            else (attempt.usage, summarizer.requests)
        )
        elapsed = time.monotonic() - attempt.started
        note = JournalEntry(
            0,
            "",
            "compaction",
            outcome=outcome,
            trigger=attempt.trigger,
            real_tokens_before=tokens,
            summarized_messages=result.summarized_messages if result else 0,
            summary=result.summary if result and result.summary else None,
            summarizer_model=model_of(self.summary_transport).name if result else None,
            summarizer_input_tokens=usage.input_tokens,
            summarizer_output_tokens=usage.output_tokens,
            summarizer_requests=requests,
            duration_s=elapsed,
            waited_s=elapsed,  # the caller awaits the attempt from its start
            facts=result.facts.to_json() if result and result.summary else None,
        )
        appended = await self._commit(snapshot, new_messages, note)
        if appended is None:
            error = "the history changed underneath the compaction"
            await self.journal_attempt(attempt, "conflict", error)
            await self.report.after(attempt, "conflict", error=error)
            return False
        after = plan.estimate([*new_messages, *appended])
        self.compactions += 1
        if _BACKGROUND.get():  # counted now: a usage report may be read any moment
            self.generation += 1
        if prepared is not None:
            self._landing.set()  # a caller waiting for this commit goes on
        self.scheduler.backoffs.ended_alone(_HISTORY, failed=False)
        self.anchor.rebase(after, count_tokens([*new_messages, *appended], self.opts.counter))
        # Could not get under the limit: wait for usage to grow past this point again.
        self.floor = max(tokens, after) if after > limit else None
        await self.report.after(
            attempt,
            outcome,
            messages_after=len(new_messages) + len(appended),
            tokens_after=after,
            summary_tokens=self.opts.counter(result.summary) if result else 0,
            summarized_messages=result.summarized_messages if result else 0,
            waited_s=time.monotonic() - attempt.started,
            facts=result.facts if result and result.summary else None,
        )
        logger.info(
            "compacted session %s: %d -> %d messages, ~%d -> ~%d tokens (%s trigger, %s)",
            self.session_id,
            len(snapshot),
            len(new_messages) + len(appended),
            tokens,
            after,
            attempt.trigger,
            outcome,
        )
        target = int(limit * self.settings.target_ratio)
        if prepared is not None and after > target:
            # What accumulated since the snapshot leaves the result over the target:
            # update the summary now if the next request needs it, else in the background.
            if after > limit:
                return await self._compact_once(Attempt(attempt.trigger, after), summarizer)
            # In the background only when the appends are what is over the target: a
            # result over it by what no summary shrinks (system prompt, tools, the kept
            # messages) would pay for an update after every commit and gain nothing; the
            # prepare point still prepares the next one. Started once this run has ended
            # (a preparation never starts while one runs), anchored on the new summary.
            if plan.estimate(new_messages) <= target:
                self._update_due = after
        return True

    async def _plan(
        self,
        snapshot: list[Message],
        tokens: int,
        summarizer: Summarizer,
        *,
        ahead: bool = False,
        require_smaller: bool = True,
    ) -> Plan | None:
        """Plan a compaction of ``snapshot``; ``ahead`` (a preparation) aims lower by the
        growth still to come before the limit, so the commit lands near the target.
        ``require_smaller=False`` (an explicit compaction) accepts a summary that does
        not shrink the history."""
        limit = self.limit
        target = int(limit * self.settings.target_ratio)
        if ahead:
            target = max(target - max(limit - tokens, 0), target // 2)

        async def summarize(history: list[Message], estimate: PromptEstimate) -> Plan | None:
            return await self.scheduler.bounded(
                plan_compaction(
                    history,
                    estimate,
                    target=target,
                    transport=self.summary_transport,
                    opts=self.opts,
                    summarizer=summarizer,
                    require_smaller=require_smaller,
                    answered=self._set_answered if ahead else None,
                )
            )

        mask = self.settings.mask_tool_outputs  # masking first: no model call if it suffices
        return await plan_masking_first(
            mask, snapshot, tokens, target=target, opts=self.opts, summarize=summarize
        )

    # -- background preparation ------------------------------------------------------

    def read(self) -> None:
        """The history is being read for a request (see :attr:`read_before_a_commit`)."""
        self.read_generation = self.generation
        self.read_compactions = self.compactions

    @property
    def read_before_a_commit(self) -> bool:
        """Whether the request whose usage is reported now was read before a commit: one
        made in the background or, once the history is read through the store, any
        (another caller's, while the model answered). Its usage describes a history
        that no longer exists."""
        if self.read_generation != self.generation:
            return True
        return self.read_compactions is not None and self.read_compactions != self.compactions

    @property
    def relief_point(self) -> int:
        """Past this prompt size a read is relieved: halfway from the limit to the most
        the window takes with room for a full reply (the other half is the margin for
        the estimate's error)."""
        return relief_point(self.limit, model_of(self.transport).input_budget)

    async def relieved(self, history: list[Message]) -> list[Message]:
        """``history``, or its relieved view when the next request would not fit.

        The view applies only while the estimate is past :attr:`relief_point` (a
        summary in preparation, failures backed off, nothing to summarize): it is cut
        down to :attr:`limit` (see :mod:`._relief`) and reported as a ``relieved``
        event; the store is not touched.
        """
        self.relieved_by = 0
        tokens = self.anchor.estimate
        if tokens <= self.relief_point:
            return history
        limit = self.limit
        relief = relieve(
            history,
            tokens - limit,
            self.opts.counter,
            max_tool_chars=self.opts.kept_tool_chars,
            marker=KEPT_TRUNCATION_MARKER,
        )
        self.relieved_by = relief.saved
        after = tokens - relief.saved
        logger.info(
            "request of session %s relieved: %d -> %d messages, ~%d -> ~%d tokens "
            "(tool outputs %s, %d messages left out; the store keeps them)",
            self.session_id,
            len(history),
            len(relief.messages),
            tokens,
            after,
            "cut" if relief.truncated else "whole",
            relief.dropped,
        )
        event = self.report.event(
            "after",
            "usage",
            tokens,
            len(history),
            outcome="relieved",
            messages_after=len(relief.messages),
            tokens_after=after,
        )
        await self.report.emit(event, attempt=False)
        return relief.messages

    def maybe_prepare(self, tokens: int, *, due: bool = False) -> None:
        """Start preparing a summary when ``tokens`` crossed the prepare limit."""
        prepare_at = self.prepare_limit
        if prepare_at is None or (tokens <= prepare_at and not due):
            return
        if self.backing_off or self.busy:
            return  # backing off, or a compaction runs: its result would make this stale
        if self.prep.start(lambda: self._prepare(tokens)):
            logger.debug("preparing a summary of session %s at ~%d tokens", self.session_id, tokens)

    def _set_answered(self) -> None:
        self._answered = True

    async def _prepare(self, tokens: int) -> None:
        """Plan a compaction of the current history in the background (one attempt)."""
        attempt = Attempt("prepare", tokens)
        self._answered = False
        landing = self._landing = asyncio.Event()
        try:
            await self._prepare_and_commit(attempt, tokens)
        finally:
            landing.set()  # committed, or never will be: nobody waits for it any more

    async def _prepare_and_commit(self, attempt: Attempt, tokens: int) -> None:
        try:
            summarizer = attempt.summarizer = make_summarizer(self.summary_transport, self.opts)
            snapshot = await self.inner.get_history()
            # The size now, not when the preparation was asked for (it may start late).
            tokens = attempt.tokens = max(tokens, self.anchor.estimate)
            attempt.messages = len(snapshot)
            await self.report.before(attempt)
            plan = await self._plan(snapshot, tokens, summarizer, ahead=True)
        except (Exception, asyncio.CancelledError) as exc:
            if isinstance(exc, asyncio.CancelledError) and cancelled():
                await self.report.after(attempt, "failed", error="cancelled")
                raise
            self._commit_when_ready = False  # the limit's trigger falls back to today's rules
            await self._failed(attempt, exc if isinstance(exc, Exception) else _unasked(exc))
            return
        except (KeyboardInterrupt, SystemExit) as exc:
            await self.report.after(attempt, "failed", error=f"interrupted ({type(exc).__name__})")
            raise
        finally:
            self._answered = False
            self.summarizer_usage = self.summarizer_usage + attempt.usage
        if plan is None:
            self._commit_when_ready = False
            await self.report.after(attempt, "skipped")
            return
        self.prep.keep(Prepared(snapshot, plan, attempt.usage, summarizer.requests))
        await self.report.after(
            attempt,
            "prepared",
            messages_after=len(plan.messages),
            tokens_after=plan.estimate(plan.messages),
            summarized_messages=plan.result.summarized_messages if plan.result else 0,
            facts=plan.result.facts if plan.result and plan.result.summary else None,
        )
        if self._commit_when_ready:  # the limit was crossed meanwhile: commit now
            self._commit_when_ready = False
            self.prep.finish()
            _BACKGROUND.set(True)  # this task's own context: the run it starts sees it
            await self.trigger("usage", self.anchor.estimate)

    async def drop_stale(self, history: list[Message]) -> None:
        """Discard the prepared summary when ``history`` (just read) visibly no longer
        starts with its snapshot (another process committed or rewrote it), so that
        it does not hold back the next preparation. A cheap look (the first and the
        last message both hold); the commit still checks the whole prefix."""
        ready = self.prep.ready
        if ready is None or not ready.snapshot:
            return
        # A history read before the snapshot was taken may be shorter than it: only a
        # mismatch where both exist says the snapshot is stale.
        snapshot, n = ready.snapshot, min(len(ready.snapshot), len(history))
        if n and history[0] == snapshot[0] and history[n - 1] == snapshot[n - 1]:
            return
        await self.discard(self.prep.take(), "the history changed under the prepared summary")

    async def forget(self, why: str) -> None:
        """The history is being rewritten: cancel the preparation in flight and discard
        the prepared summary, so neither holds back the next history's preparation."""
        self.rewrites += 1
        await self.prep.cancel()
        self._commit_when_ready = False
        await self.discard(self.prep.take(), why)

    async def close(self) -> None:
        """Cancel the preparations and start none again; wait for a compaction in flight
        (its commit is never left half-done) so nothing touches the store afterwards."""
        await self.scheduler.preparations.close()
        running = self.running
        if running is not None:
            await asyncio.wait([running])

    async def discard(self, prepared: Prepared | None, why: str) -> None:
        """Report a prepared summary that was paid for and will never be used."""
        if prepared is None:
            return
        self._landing.set()  # a caller waiting for it to be committed goes on
        logger.info("prepared summary of session %s discarded: %s", self.session_id, why)
        await self.journal_attempt(
            Attempt("prepare", 0, messages=len(prepared.snapshot)),
            "discarded",
            why,
            usage=prepared.usage,
            requests=prepared.requests,
        )
        event = self.report.event(
            "after",
            "prepare",
            0,
            len(prepared.snapshot),
            outcome="discarded",
            summarizer_usage=prepared.usage,
            summarizer_requests=prepared.requests,
            error=why,
        )
        await self.report.emit(event, attempt=False)

    async def _commit(
        self, snapshot: list[Message], new_messages: list[Message], note: JournalEntry
    ) -> list[Message] | None:
        """Splice ``new_messages`` in place of ``snapshot`` (see :func:`splice`)."""
        async with self.splice_lock:
            # Appends noted before the splice reads the history are part of the estimate
            # made after the commit; forget them so they are not counted twice.
            noted = self.anchor.pending
            noted_count = len(noted)
            # A commit is never left half-done: cancelling the caller lets it finish
            # (or roll back) before the cancellation goes on. (An interrupt in the store
            # reaches the caller as itself, like one in the summarizer: see trigger.)
            commit = asyncio.ensure_future(carry(splice(self.inner, snapshot, new_messages, note)))
            try:
                appended = await joined(commit)
            except asyncio.CancelledError:
                await asyncio.wait([commit])
                interrupt = carried_interrupt(commit)
                if interrupt is not None:  # the process is being stopped: that comes first
                    raise interrupt from None
                raise
            if appended is not None and self.anchor.pending is noted:
                del noted[:noted_count]
        return appended


# Set in a preparation's task when it commits its own summary: the run it starts (a task
# made in that context) counts the commit as one made in the background.
_BACKGROUND: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "contextfold_background_commit", default=False
)


def _unasked(exc: asyncio.CancelledError) -> CompactionError:
    """A CancelledError that no cancellation of the attempt raised, as the failure it is."""
    error = CompactionError(
        "CancelledError raised inside the compaction though nothing cancelled it "
        f"({exc!r}; a library's own timeout, say); history left untouched"
    )
    error.__cause__ = exc
    return error
