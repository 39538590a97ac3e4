"""The machinery behind :class:`~contextfold.compaction.AutoCompactStore`.

Public users import it from :mod:`contextfold.compaction` (or :mod:`contextfold`). The
face lives here: the store contract, delegated; the compaction state and runs live in
:mod:`._compactor`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from contextfold.compaction._compactor import Compactor
from contextfold.compaction._engine import CompactionEvent, CompactionHook, PromptLike
from contextfold.compaction._settings import CompactionSettings, Legacy, check_settings
from contextfold.context import (
    ArchivedMessage,
    Archiving,
    ContextStore,
    PrefixReplacing,
    SessionInfo,
)
from contextfold.messages import Message
from contextfold.stores.base import JournalEntry, Journaling
from contextfold.transports.base import CompletionTransport, Usage

_LEGACY_SETTINGS: Final = (
    "update_prompt",
    "prompt_vars",
    "counter",
    "max_summary_tokens",
    "max_tool_chars",
    "kept_tool_chars",
    "target_ratio",
    "cache_friendly",
    "agent_system",
    "agent_tools",
    "proactive",
    "max_backoff",
    "summary_timeout",
    "prepare_threshold",
    "mask_tool_outputs",
    "user_message_budget",
    "instructions",
)
"""The settings :class:`AutoCompactStore` took as keywords before ``settings`` alone."""


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
    commits it without a model call (outcome ``committed``, with ``waited_s``); a summary
    still in preparation there is committed the moment it arrives, and the caller does
    not wait for it. A prepared summary whose snapshot is no longer a prefix of the
    history is discarded (outcome ``discarded``, with what it cost).

    LLM-free relief: while the estimate of the next request is past the *relief point*
    (halfway from :attr:`limit` to the window's input budget, the other half a margin
    for the estimate's error) - a summary still in preparation, a summarizer that hangs
    or fails and is backed off, a history with no valid cut point - :meth:`get_history`
    returns a relieved view cut down to :attr:`limit`: kept tool outputs cut to head +
    tail (``kept_tool_chars``), then whole old rounds left out, then old tool cycles of
    the turn in progress, never splitting a tool pair and keeping every system message,
    the user's task and the turn's thinking opener (outcome ``relieved``, with the
    view's ``tokens_after``). The store itself keeps everything; below the relief point
    reads return the real history. The usage reported for a relieved request is
    counted with what the view left out.

    Args:
        store: the store to wrap.
        transport: the agent's transport; its ``model`` (read at every check) gives the
            context window and output limit the compaction limit derives from.
        settings: a :class:`~contextfold.compaction.CompactionSettings`: every setting
            (see there for the defaults: ``keep_recent=6``, ``threshold=0.75``,
            ``prepare_threshold=0.6``, ``summary_timeout=120.0`` seconds,
            ``max_backoff=32``, ``mask_tool_outputs=None``...). With
            ``mask_tool_outputs`` (a :class:`~contextfold.strategies.MaskToolOutputs`,
            or ``True`` for its defaults) every attempt masks old, large tool outputs
            first and calls no model when that is enough (outcome ``masked``).
        summary_transport: the transport summaries are written with (default:
            ``transport``), e.g. a cheaper model.
        on_event: a hook or hooks called with a
            :class:`~contextfold.compaction.CompactionEvent` before and after every
            attempt; sync or async; a hook that raises is logged and ignored.
        keep_recent, threshold, max_tokens, system_prompt: the fields of ``settings``
            of the same names, given as keywords (the seed's signature); one given (not
            ``None``) wins over ``settings``.
        legacy: the other fields were keywords too (``prepare_threshold=``,
            ``summary_timeout=``...): they still work, with a
            :class:`DeprecationWarning`; pass them in ``settings``. Any other keyword
            is a :class:`TypeError`.

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
        **legacy: Any,
    ) -> None:
        check_settings(settings)
        old = Legacy("AutoCompactStore", legacy)
        fields = old.settings(_LEGACY_SETTINGS)
        old.done()
        settings = (settings or CompactionSettings()).replace(**fields)
        self.settings: CompactionSettings = settings.replace(
            keep_recent=keep_recent,
            threshold=threshold,
            max_tokens=max_tokens,
            system_prompt=system_prompt,
        )
        """Every setting in force (see :class:`CompactionSettings`)."""
        if not _can_rewrite(store):
            raise TypeError(
                f"{type(store).__name__} can neither replace_history() nor clear(), so a "
                "compaction could never be committed: implement replace_history (atomic, "
                "best) or clear on it, or wrap a store that has them"
            )
        self._core = Compactor(
            store,
            transport,
            summary_transport or transport,
            self.settings,
            on_event,
        )
        # Stores that can replace a prefix atomically need no lock around appends.
        self._prefix_splice = isinstance(store, PrefixReplacing)

    # -- settings --------------------------------------------------------------------

    @property
    def inner(self) -> ContextStore:
        """The wrapped store."""
        return self._core.inner

    @property
    def transport(self) -> CompletionTransport:
        return self._core.transport

    @property
    def summary_transport(self) -> CompletionTransport:
        return self._core.summary_transport

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
        return self._core.prepare_limit

    @property
    def limit(self) -> int:
        """The prompt size that triggers compaction, read from the transport now."""
        return self._core.limit

    @property
    def compactions(self) -> int:
        """How many compactions were committed through this wrapper."""
        return self._core.compactions

    @property
    def summarizer_usage(self) -> Usage:
        """Running total of what the summarizer cost (separate from the agent's usage)."""
        return self._core.summarizer_usage

    @property
    def last_event(self) -> CompactionEvent | None:
        """The latest event of an attempt, or ``None``."""
        return self._core.report.last_event

    def add_hook(self, hook: CompactionHook) -> None:
        """Call ``hook(event)`` before and after every compaction attempt."""
        self._core.report.hooks.append(hook)

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
            async with self._core.splice_lock:
                await self.inner.append(message)
        self._core.anchor.note(message)

    async def get_history(self) -> list[Message]:
        """The inner store's history, compacted first if appends pushed it past the limit.

        The proactive check lives here, on the read that precedes every model request,
        so each appended message is estimated once and appends stay cheap. Past the
        relief point, with no summary committed, the history is returned as a relieved
        view for the next request (see the class docstring); the store is untouched.
        """
        core = self._core
        if core.anchor.pending and self.settings.proactive:
            due, estimate = await core.decide(core.anchor.estimate)
            if due:
                await core.trigger("append", estimate)
            else:
                core.maybe_prepare(estimate)
        core.read()
        history = await self.inner.get_history()
        await core.drop_stale(history)
        return await core.relieved(history)

    async def clear(self) -> None:
        core = self._core
        await core.forget("the history was cleared")
        async with core.splice_lock:
            await self.inner.clear()
        core.anchor.reset()
        core.floor = None

    async def replace_history(self, messages: Sequence[Message]) -> None:
        core = self._core
        await core.forget("the history was replaced")
        async with core.splice_lock:
            await self.inner.replace_history(messages)
        # A rewritten history is estimated anew; the old usage says nothing about it.
        core.anchor.reset(messages)
        core.floor = None

    async def fork(self) -> AutoCompactStore:
        """An :class:`AutoCompactStore` with the same settings (hooks included) around
        ``inner.fork()``; it starts from the same usage anchor."""
        forked = AutoCompactStore(
            await self.inner.fork(),
            self.transport,
            settings=self.settings,
            summary_transport=self.summary_transport,
            on_event=list(self._core.report.hooks),
        )
        forked._core.anchor = self._core.anchor.copy()
        return forked

    async def close(self) -> None:
        """Cancel a preparation in flight (a compaction in flight ends first), then close
        the inner store; no preparation starts afterwards."""
        await self._core.close()
        await self.inner.close()

    async def set_context_tokens(self, input_tokens: int, output_tokens: int) -> None:
        await self.inner.set_context_tokens(input_tokens, output_tokens)

    async def get_context_tokens(self) -> tuple[int, int]:
        return await self.inner.get_context_tokens()

    async def list_sessions(self) -> list[SessionInfo]:
        return await self.inner.list_sessions()

    async def get_archive(self) -> list[ArchivedMessage]:
        """The inner store's archive (see :class:`~contextfold.context.Archiving`).

        Raises :class:`TypeError` when the inner store keeps none.
        """
        if not isinstance(self.inner, Archiving):
            raise TypeError(f"{type(self.inner).__name__} keeps no archive of replaced messages")
        return await self.inner.get_archive()

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
        core = self._core
        if core.anchor.needs_history():
            core.anchor.take_history(await self.inner.get_history())
        if core.read_before_a_commit:
            # The request was read before a commit (a summary prepared in the background
            # landed while the model answered): its usage says nothing about the history
            # now, so the estimate of what is live stands in for it.
            tokens = core.anchor.estimate
        elif core.relieved_by:
            # A relieved request left part of the history out: the history is that much
            # bigger than what was reported. That part is only counted (the provider may
            # count it twice as big), and the store still holds it: the estimate of the
            # whole history never falls below what it was when the view was cut.
            sent = core.anchor.estimate
            tokens = core.anchor.observe(input_tokens + core.relieved_by)
            core.anchor.base = max(core.anchor.base, sent)
        else:
            tokens = core.anchor.observe(input_tokens)
        core.relieved_by = 0
        due, tokens = await core.decide(tokens)
        if due:
            await core.trigger("usage", tokens)
        else:
            core.maybe_prepare(tokens)

    async def compact(self, *, force: bool = False) -> bool:
        """Compact now, whatever the usage; return whether the history changed.

        ``force=True`` also ignores the back-off after failed attempts: the
        :class:`~contextfold.agent.Agent` calls it after a context-overflow error,
        when the request cannot succeed otherwise. Without it, a compaction asked for
        while failures are being backed off is skipped (and ``False`` returned).
        Asked for explicitly, a compaction is committed even when its result is not
        smaller than the history (a summary of a few short messages); the automatic
        triggers reject that as ``not_smaller``.
        """
        core = self._core
        tokens = max(core.anchor.estimate, 0)
        if not force and core.skip() is not None:
            return False
        return await core.trigger("forced" if force else "manual", tokens, force=True)

    # -- the journal -------------------------------------------------------------------

    async def journal(self) -> list[JournalEntry]:
        """The session's compaction journal, oldest first (see
        :class:`~contextfold.stores.base.Journaling`): every compaction with its trigger,
        outcome, tokens before and after (estimated, and the real usage that triggered),
        the summary, the summarizer's usage, the duration and the caller's wait, and the
        fact coverage; failed attempts, discarded summaries and undos too. Read from the
        inner store, so it lists what every process did to the session. Raises
        :class:`TypeError` when the inner store keeps no journal."""
        return await _journaling(self.inner, "journal").journal()

    async def undo(self, *, number: int | None = None) -> JournalEntry:
        """Put back the history as it was before the last compaction, and journal that.

        The archived originals return in place of the summary, followed by everything
        appended since, as one compare-and-swap of the inner store (appends racing it
        are kept; a compaction committing meanwhile makes it raise
        :class:`~contextfold.errors.HistoryConflictError` and change nothing).
        ``number`` pins which compaction (the journal's ``compaction``). Raises
        :class:`~contextfold.errors.NothingToUndoError` when none is left to undo.
        A summary being prepared is dropped; the next request over the limit
        compacts again (the restored history is as large as before).
        """
        store = _journaling(self.inner, "undo")
        core = self._core
        await core.forget("the history was restored by undo")
        async with core.splice_lock:
            entry = await store.undo(number=number)
        # The restored history is estimated anew; the old usage says nothing about it.
        core.anchor.reset(await self.inner.get_history())
        core.floor = None
        return entry


def _journaling(store: ContextStore, what: str) -> Journaling:
    if not isinstance(store, Journaling):
        raise TypeError(
            f"{type(store).__name__} keeps no compaction journal, so {what}() is not "
            "available; wrap a store contextfold ships (memory, SQLite, PostgreSQL, Redis)"
        )
    return store


def _can_rewrite(store: ContextStore) -> bool:
    """Whether ``store`` overrides a way to rewrite its history (the defaults of
    :class:`ContextStore` end in ``clear()``, which raises)."""
    kind = type(store)
    return (
        isinstance(store, PrefixReplacing)
        or kind.replace_history is not ContextStore.replace_history
        or kind.clear is not ContextStore.clear
    )
