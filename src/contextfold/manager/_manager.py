"""The context manager: :class:`CompactingContextManager` (see its docstring)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, Final, Self

from contextfold.compaction import AutoCompactStore
from contextfold.compaction._engine import Options
from contextfold.compaction._prepare import prepare_point
from contextfold.compaction._relief import relief_point
from contextfold.compaction._scheduler import Scheduler
from contextfold.compaction._settings import (
    CompactionSettings,
    Legacy,
    check_fraction,
    check_int,
    check_settings,
    refuse_fields,
)
from contextfold.context import ContextStore
from contextfold.manager._amplifier import with_system_prompt
from contextfold.manager._budget import request_budget
from contextfold.manager._history import StoredHistory
from contextfold.manager._options import OPTION_NAMES as _OPTION_NAMES
from contextfold.manager._options import ManagerOptions, manager_settings
from contextfold.manager._parts import MediaAwareCounter
from contextfold.manager._protocols import EventHooks
from contextfold.manager._session import Session
from contextfold.manager._summary import ViewSummarizer
from contextfold.manager._transports import (
    MountedProvider,
    SDKModelTransport,
    TransportSpec,
    parse_transport,
)
from contextfold.manager._view import SummarizerSource, ViewBuilder
from contextfold.messages import Message
from contextfold.strategies import StrategyLike, TruncateToolOutputs
from contextfold.tokens import CachedMessageCounter
from contextfold.transports.base import CompletionTransport, Usage

__all__ = ["CompactingContextManager", "ManagerOptions", "manager_settings"]

logger = logging.getLogger("contextfold.manager")

_DEFAULT_MAX_TOKENS = 100_000  # the budget when neither a token_budget nor a provider gives one

SystemPromptFactory = Callable[[], Awaitable[str]]


_NOT_MANAGER_SETTINGS: Final = {
    "max_tokens": (
        "the manager's token budget comes from the provider (else its own max_tokens "
        "keyword) and it compacts at compaction_threshold of that budget"
    ),
    "proactive": "the manager estimates every view it builds",
}
"""The settings the manager refuses rather than ignores, and why."""

_LEGACY_SETTINGS: Final = (
    "counter",
    "target_ratio",
    "max_tool_chars",
    "max_summary_tokens",
    "system_prompt",
    "update_prompt",
    "prompt_vars",
    "max_backoff",
    "prepare_threshold",
    "user_message_budget",
    "instructions",
    "summary_timeout",
)
"""The fields of the settings the manager took as keywords before ``settings``."""


class CompactingContextManager:
    """Stores the full history; hands each request a view that fits its budget.

    **Messages** are OpenAI chat dicts or the dicts Amplifier's orchestrators write
    (``tool_calls`` as ``{"id", "tool", "arguments"}``, content as a list of
    Amplifier blocks with thinking signatures, ``tool`` results, extra keys such as
    ``metadata``); each is stored, and returned, exactly as given (deep copies).
    Validation happens when a message is added (``ValueError`` naming the defect).

    **Budget** (tokens for the request's messages): an explicit ``token_budget``;
    else the ``provider``'s ``context_window - max_output_tokens - safety_margin ×
    context_window``, read from ``provider.get_model_info()`` or
    ``provider.get_info().defaults`` (objects or dicts, sync or async, or a
    contextfold transport); else ``max_tokens``.

    **View**: at most ``compaction_threshold × budget`` estimated tokens (``counter``)
    and the stored dicts are returned as they are. Above it:

    0. with ``settings=CompactionSettings(mask_tool_outputs=...)``, old, large tool
       outputs are masked first (:class:`~contextfold.strategies.MaskToolOutputs`);
       when that alone brings the view under the threshold, it is the view and no
       summary is made (event ``summary: masked``). The originals stay in the history
       the manager keeps;
    1. with a summarizer, the older part is summarized through
       :mod:`contextfold.compaction` (keeping about ``keep_recent`` messages, aiming
       at ``target_ratio × budget``). Summaries are cached by a digest of the
       summarized prefix, so later requests reuse them without a model call; when the
       history crosses the threshold again, the cached summary is extended with only
       the messages since. A failed summary never reaches the caller: that request
       falls back to step 2 and the next ``1, 2, 4 … max_backoff`` requests do not
       retry.
    Ahead of that, past ``prepare_threshold × budget`` (0.6 by default; at 0.8 of the
    threshold when that is not below it; ``None`` turns it off), the request gets the
    stored dicts at once while the summary it will need is prepared in the background,
    and the first view over the threshold uses it without a model call (``summary:
    "prepared"``). A view over the threshold while one is still in preparation does not
    wait for it (``summary: "preparing"``; step 2 fits it). A failed preparation is
    reported and step 1 runs at the threshold as without it.

    2. if the view is still over the threshold, ``strategies`` (default:
       :class:`~contextfold.strategies.TruncateToolOutputs` at ``max_tool_chars``) and
       then :class:`~contextfold.strategies.FitContextWindow` at the threshold run on
       it. The latest round is always kept, so a single round larger than the budget
       is the one case the view can exceed it.

    **Time limit** (``summary_timeout``, seconds, 120 by default; ``None``: none): a
    summary that takes longer is abandoned like a failed one (the view falls back to
    the strategies and later requests back off), as in :class:`AutoCompactStore` and
    the proxy.

    **Protected messages** (``protected_recent``, Amplifier's context-simple key: a share
    in [0, 1]): the latest ``protected_recent`` of the messages a view compacts (the
    cached summary and the dicts since, as context-simple counts its list), widened back
    to whole turns (an assistant message with its tool calls and every result answering
    them), end the view verbatim: step 1 leaves them out of the summary and step 2
    never drops them, even when that leaves the view over the threshold (strategies
    such as the default tool-output cut still apply to them). ``None`` (the default):
    only ``keep_recent`` and the latest round are kept, as above.

    The view keeps system messages (older ones may be folded into the summary, see
    :mod:`contextfold.compaction`) and never separates a tool call from its results;
    kept messages are the caller's original dicts, a truncated tool result keeps
    every other field of its dict, and fresh messages (the summary) are written in
    Amplifier's shape when the history holds an Amplifier-native dict, else OpenAI's,
    so ``amplifier_core.Message(**d)`` accepts every dict of a view. Unmodelled
    content parts (remote images, audio, files, unknown types) count 600 tokens each
    and reach the summarizer as placeholders only.

    **Summarizer** (``transport``, or ``summary_transport``, its synonym): a
    :class:`~contextfold.transports.base.CompletionTransport`, or a string:
    ``"anthropic:<model>"`` / ``"openai:<model>"`` (the SDK transport, made on first
    use with the key from the environment), ``"mounted"`` (the ``provider`` passed to
    each request, else the preferred one ``provider_lookup()`` returns: an Amplifier
    provider, wrapped, or a contextfold transport), ``"mounted:<name>"`` (that one of
    ``provider_lookup()``) or ``"none"``. An unknown string is a ``ValueError``.

    **Persistence**: with ``store`` (any :class:`~contextfold.context.ContextStore`
    holding this session alone), every dict and every cached summary is written to it
    (see :mod:`contextfold.manager._persist`), and the first call resumes what it
    holds: the history and the summaries, so a resumed session pays for no summary
    again. After a resume from a non-empty store the store is authoritative:
    :meth:`set_messages` is ignored (logged) until a message is added or the history
    cleared. A write that fails raises the store's error and leaves the manager as it
    was; a cancelled call still finishes its write first.

    **Events**: ``context:pre_compact`` (``messages``, ``tokens``, ``budget``,
    ``threshold_tokens``) and ``context:post_compact`` (``messages_before/after``,
    ``tokens_before/after``, ``budget``, ``threshold_tokens``, ``summary``: ``none``,
    ``new``, ``extended``, ``cached``, ``prepared``, ``preparing``, ``failed``,
    ``backoff`` or ``masked``, ``strategies_applied``, ``summarizer_requests``,
    ``summarizer_input_tokens``, ``summarizer_output_tokens``, ``facts``: the fact
    ledger's ``found``/``kept``/``restored``/``dropped``/``tokens`` for a new or
    extended summary, else ``None``, ``error``) go to
    ``hooks`` around every compacted view, and ``context:prepared`` (``outcome``:
    ``prepared``, ``skipped`` or ``failed``, ``messages``, ``tokens``, ``budget``,
    ``threshold_tokens``, ``summarizer_*`` counts, ``duration_s``, ``error``) when a
    preparation ends; a hook that raises is logged and ignored.

    **Configuration**: ``settings`` (a
    :class:`~contextfold.compaction.CompactionSettings`, the same object
    :class:`AutoCompactStore` and the proxy take: ``target_ratio``, ``max_tool_chars``,
    ``max_summary_tokens``, the prompts, ``counter``, ``max_backoff``,
    ``prepare_threshold``, ``summary_timeout``, ``user_message_budget``,
    ``instructions``, ``mask_tool_outputs``...; without it, ``threshold`` is 0.8 and
    kept tool outputs are cut to ``max_tool_chars``, see :func:`manager_settings`) and
    ``options`` (a :class:`ManagerOptions`: ``safety_margin``, ``cache_size``,
    ``protected_recent``, ``strategies``, ``provider_lookup``). ``compaction_threshold``
    and ``keep_recent``, when given, win over ``settings``. The flat keywords the
    constructor took for those fields before (``legacy``: ``target_ratio=``,
    ``safety_margin=``...) still work, with a :class:`DeprecationWarning`. Settings
    the manager cannot honour (``max_tokens``: its budget is its own keyword;
    ``proactive``) are a :class:`ValueError`, as are bad values.

    Concurrent calls are safe: writes are serialized, requests share one
    summarization. Use it as an async context manager (or call :meth:`aclose`) to close
    the clients it made.
    """

    def __init__(
        self,
        *,
        settings: CompactionSettings | None = None,
        options: ManagerOptions | None = None,
        max_tokens: int | None = None,
        compaction_threshold: float | None = None,
        transport: CompletionTransport | str | None = None,
        summary_transport: CompletionTransport | str | None = None,
        keep_recent: int | None = None,
        hooks: EventHooks | None = None,
        store: ContextStore | None = None,
        **legacy: Any,
    ) -> None:
        check_settings(settings)
        if options is not None and not isinstance(options, ManagerOptions):
            raise ValueError(f"options must be a ManagerOptions, got {options!r}")
        old = Legacy("CompactingContextManager", legacy)
        own = old.take(_OPTION_NAMES, "options=ManagerOptions({}=...)")
        fields = old.settings(_LEGACY_SETTINGS)
        old.done()
        # as given: a None the old keyword refused is refused by the options too
        options = dataclasses.replace(options or ManagerOptions(), **own)
        if compaction_threshold is not None:
            check_fraction("compaction_threshold", compaction_threshold, one_ok=True)
        given = settings is not None
        with_legacy = (settings or manager_settings()).replace(**fields)
        self.settings: CompactionSettings = with_legacy.replace(
            keep_recent=keep_recent, threshold=compaction_threshold
        )
        """Every compaction setting in force (``threshold`` is ``compaction_threshold``)."""
        refuse_fields(self.settings, "the manager", _NOT_MANAGER_SETTINGS)
        if not given:
            # By default the view cuts kept tool outputs to the same bound as the
            # summarizer's copy; settings given are held as given.
            self.settings = self.settings.replace(kept_tool_chars=self.settings.max_tool_chars)
        self.options: ManagerOptions = options
        """The manager's own options in force."""
        protected_recent = options.protected_recent
        self.protected_recent = protected_recent
        """Share of the latest messages every view keeps whole (``None``: none)."""
        strategies = options.strategies
        cache_size = options.cache_size
        safety_margin = options.safety_margin
        provider_lookup = options.provider_lookup
        settings = self.settings
        if max_tokens is None:
            max_tokens = _DEFAULT_MAX_TOKENS
        self.max_tokens = check_int("max_tokens", max_tokens, 1)
        self.compaction_threshold = settings.threshold
        self.safety_margin = safety_margin
        self.target_ratio = settings.target_ratio
        self.max_backoff = settings.max_backoff
        self.prepare_threshold = settings.prepare_threshold
        """Share of the budget past which a summary is prepared in the background
        (``None``: off; at or above ``compaction_threshold``: never)."""
        self._source = self._summarizer_source(transport, summary_transport)
        if hooks is not None and not isinstance(hooks, EventHooks):
            raise ValueError(f"hooks must have an emit(event, data) method, got {hooks!r}")
        if store is not None and (
            not isinstance(store, ContextStore) or isinstance(store, AutoCompactStore)
        ):
            raise ValueError(
                "store must be a plain ContextStore (the manager compacts its views itself "
                f"and keeps the full history), got {store!r}"
            )
        self.transport: CompletionTransport | None = (
            None if isinstance(self._source, MountedProvider) else self._source
        )
        """The summarizer's transport (``None`` without one, or for ``"mounted"``)."""
        self.hooks = hooks
        self.store = store
        self.provider_lookup = provider_lookup
        self.counter = settings.counter
        self._counter = MediaAwareCounter(settings.counter)  # placeholders cost like an image
        self._opts: Options = settings.options(counter=self._counter)
        self.strategies: tuple[StrategyLike, ...] = (
            (TruncateToolOutputs(settings.max_tool_chars),)
            if strategies is None
            else tuple(strategies)
        )
        self._count = CachedMessageCounter(self._counter)
        self._history = StoredHistory(self._count.count_message)
        # Triggers, single flight, back-off and the summary timeout: the one policy of
        # every face (see compaction._scheduler), keyed here by the manager's one view.
        self._scheduler: Scheduler[str] = Scheduler.of("manager", settings)
        self._summarizer = ViewSummarizer(
            self._opts,
            self._count,
            self._scheduler,
            cache_size=cache_size,
            target_ratio=self.target_ratio,
            protected_recent=protected_recent or 0.0,
        )
        self._session = Session(self._history, self._summarizer.cache, store)
        if store is not None:
            self._summarizer.on_change = self._session.save_summary
        source = SummarizerSource(self._source, provider_lookup)
        self._views = ViewBuilder(
            self._summarizer,
            source,
            self._count,
            self._counter,
            self.strategies,
            mask=settings.mask_tool_outputs,
        )
        self._prompt_factory: SystemPromptFactory | None = None
        self._closers: list[Callable[[], Awaitable[None]]] = []

    @staticmethod
    def _summarizer_source(transport: object, summary_transport: object) -> TransportSpec:
        both = transport is not None and summary_transport is not None
        if both and transport is not summary_transport and transport != summary_transport:
            raise ValueError("give transport or summary_transport (synonyms), not both")
        spec = transport if transport is not None else summary_transport
        name = "transport" if transport is not None else "summary_transport"
        return parse_transport(spec, name)

    @property
    def keep_recent(self) -> int:
        return self._opts.keep_recent

    @property
    def summarizer_usage(self) -> Usage:
        """Running total of what the summarizer cost in this process."""
        return self._summarizer.usage

    @property
    def summarizer_requests(self) -> int:
        """How many requests the summarizer was sent in this process."""
        return self._summarizer.requests

    @property
    def session_id(self) -> str | None:
        """The store's session id (``None`` without a store)."""
        return None if self.store is None else self.store.session_id

    # -- the stored history ------------------------------------------------------------

    async def load(self) -> bool:
        """Resume the store's session now (the first call of any method does it anyway).

        Returns whether anything was resumed. Loads once; a store error (or a
        :class:`~contextfold.errors.CorruptRecordError`) propagates and the next call
        tries again.
        """
        return await self._session.load()

    async def add_message(self, message: dict[str, Any]) -> None:
        """Append one message (stored as a deep copy; written to the store first).

        Raises :class:`ValueError` (nothing stored) for a non-dict, a missing or
        unknown ``role``, malformed content or ``tool_calls``, a tool result that
        answers no open tool call, or, with a store, a dict that is not JSON data.
        """
        await self._session.add(message)

    async def get_messages(self) -> list[dict[str, Any]]:
        """Every stored message, uncompacted (deep copies)."""
        await self._session.load()
        return self._history.snapshot().copy_dicts()

    async def set_messages(self, messages: list[dict[str, Any]]) -> None:
        """Replace the history (a session resume); on :class:`ValueError` nothing changes.

        Ignored after a resume from the store, until a message is added or the history
        cleared (the store holds the full history; a transcript may be filtered).
        Cached summaries of a prefix the new history still starts with stay usable.
        """
        await self._session.replace(messages)

    async def clear(self) -> None:
        """Forget every message and every cached or prepared summary (in the store too)."""
        await self._session.clear()
        await self._summarizer.forget()

    async def set_system_prompt_factory(self, factory: SystemPromptFactory | None) -> None:
        """Build every request's system prompt with ``await factory()`` (``None``: stop).

        As in Amplifier's context-simple: the request starts with that prompt and
        leaves out the stored system messages, except those a hook injected
        (``metadata["source"] == "hook"``). The prompt is not stored; its tokens come
        out of the request's budget.
        """
        if factory is not None and not callable(factory):
            raise ValueError(f"factory must be an async callable, got {factory!r}")
        self._prompt_factory = factory

    async def should_compact(
        self, token_budget: int | None = None, provider: object | None = None
    ) -> bool:
        """Whether the next request's view would be compacted (the history is over the
        threshold). Nothing needs to be done about it: views compact themselves."""
        await self.load()
        budget = await self.request_budget(token_budget, provider)
        threshold = max(1, int(budget * self.compaction_threshold))
        return self._history.snapshot().tokens_from(0) > threshold

    async def compact(self) -> None:
        """Does nothing: the stored history is never rewritten; each request's view is
        compacted (this exists because Amplifier's default context modules have it)."""

    def close_with(self, closer: Callable[[], Awaitable[None]]) -> None:
        """Have :meth:`aclose` also await ``closer()`` (once; ``mount`` hands it the
        store it opened)."""
        self._closers.append(closer)

    async def aclose(self) -> None:
        """Close the transport clients made from spec strings, then run ``close_with``'s
        closers (each once, all of them even when one raises; the first error is raised)."""
        await self._summarizer.close()
        closers, self._closers = self._closers, []
        if isinstance(self._source, SDKModelTransport):
            closers.insert(0, self._source.aclose)
        errors: list[BaseException] = []
        for closer in closers:
            try:
                await closer()
            except Exception as exc:
                errors.append(exc)
        if errors:
            raise errors[0]

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # -- the request view --------------------------------------------------------------

    async def request_budget(
        self, token_budget: int | None = None, provider: object | None = None
    ) -> int:
        """The budget :meth:`get_messages_for_request` uses (see the class docstring)."""
        return await request_budget(
            token_budget, provider, safety_margin=self.safety_margin, fallback=self.max_tokens
        )

    async def get_messages_for_request(
        self, token_budget: int | None = None, provider: object | None = None
    ) -> list[dict[str, Any]]:
        """The messages to send now: everything, or a compacted view when over the threshold.

        Never modifies the stored history. Raises :class:`ValueError` only for a bad
        ``token_budget``; summarizer failures fall back to the strategies.
        """
        await self.load()
        budget = await self.request_budget(token_budget, provider)
        prompt = None
        if self._prompt_factory is not None:
            prompt = await self._prompt_factory()
            if not isinstance(prompt, str):
                raise ValueError(f"the system prompt factory returned {prompt!r}, not a string")
            budget = max(1, budget - self._count.count([Message.system(prompt)]))
        threshold = max(1, int(budget * self.compaction_threshold))
        prepare_at = prepare_point(self.prepare_threshold, budget, threshold)
        snapshot = self._history.snapshot()
        tokens = snapshot.tokens_from(0)
        check = self._scheduler.check(
            "", tokens, threshold, budget, messages=len(snapshot.messages)
        )
        # The hook is read from the settings each request: one set later is asked.
        self._scheduler.should_compact = self.settings.should_compact
        answer = await self._scheduler.answer(check)
        if check.over if answer is None else answer:
            wire = await self._views.build(
                snapshot, budget, threshold, provider, self.hooks, prepare_at, wanted=bool(answer)
            )
        elif tokens <= relief_point(threshold, budget):
            wire = snapshot.copy_dicts()
            if prepare_at is not None and tokens > prepare_at:
                await self._views.prepare(snapshot, budget, threshold, provider, self.hooks)
        else:  # held back by the hook, and past the relief point: fitted, not summarized
            wire = await self._views.build(
                snapshot, budget, threshold, provider, self.hooks, summarize=False
            )
        return wire if prompt is None else with_system_prompt(wire, prompt)
