"""A context manager for orchestrators that keep their history as OpenAI chat dicts.

The orchestrator adds every message with :meth:`~CompactingContextManager.add_message`
and, before each model call, asks :meth:`~CompactingContextManager.get_messages_for_request`
for what to send. The stored history is never rewritten: the request gets a
*compacted view* once the history outgrows ``compaction_threshold`` of the budget,
and :meth:`~CompactingContextManager.get_messages` always returns everything.

Module-loading orchestrators (the ``amplifier.modules`` entry-point group, name
``contextfold-context``) call :func:`mount`.

The room: :mod:`._history` (the stored dicts and their parsed form), :mod:`._parts`
(unmodelled content parts), :mod:`._budget` (the request budget from a provider),
:mod:`._summary` (cached, incremental view summaries) and :mod:`._render` (the view
back as the caller's dicts). A face: it may import compaction, strategies and
everything below them, never ``cli`` or ``proxy``.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from contextfold.compaction._engine import Options, PromptLike
from contextfold.compaction._settings import CompactionSettings, check_fraction, check_int
from contextfold.manager._budget import request_budget
from contextfold.manager._history import StoredHistory
from contextfold.manager._parts import MediaAwareCounter
from contextfold.manager._render import render_view
from contextfold.manager._summary import SummaryStep, ViewSummarizer
from contextfold.strategies import FitContextWindow, Pipeline, StrategyLike, TruncateToolOutputs
from contextfold.tokens import CachedMessageCounter, TokenCounter
from contextfold.transports.base import CompletionTransport, Usage

__all__ = [
    "CompactingContextManager",
    "ContextManager",
    "Coordinator",
    "EventHooks",
    "mount",
]

logger = logging.getLogger("contextfold.manager")

_DEFAULT_MAX_TOKENS = 100_000  # the budget when neither a token_budget nor a provider gives one
_DEFAULT_THRESHOLD = 0.8


@runtime_checkable
class ContextManager(Protocol):
    """What an orchestrator needs from a context manager (messages are OpenAI chat dicts)."""

    async def add_message(self, message: dict[str, Any]) -> None: ...

    async def get_messages_for_request(
        self, token_budget: int | None = None, provider: object | None = None
    ) -> list[dict[str, Any]]: ...

    async def get_messages(self) -> list[dict[str, Any]]: ...

    async def set_messages(self, messages: list[dict[str, Any]]) -> None: ...

    async def clear(self) -> None: ...


@runtime_checkable
class EventHooks(Protocol):
    """Receives events: ``emit(name, data)``, sync or async (e.g. an amplifier hook registry)."""

    def emit(self, event: str, data: dict[str, Any], /) -> object: ...


@runtime_checkable
class Coordinator(Protocol):
    """Where :func:`mount` registers the manager: ``mount(point, module, name=...)``."""

    def mount(self, mount_point: str, module: object, *, name: str | None = None) -> object: ...


class CompactingContextManager:
    """Stores the full history; hands each request a view that fits its budget.

    **Budget** (tokens for the request's messages; subtract tool schemas yourself): an
    explicit ``token_budget``; else the ``provider``'s ``context_window -
    max_output_tokens - safety_margin × context_window``, read from
    ``provider.get_model_info()`` or ``provider.get_info().defaults`` (objects or
    dicts, sync or async methods, or a contextfold transport); else ``max_tokens``.

    **View**: when the estimated size (``counter``) is at most ``compaction_threshold
    × budget``, the stored dicts are returned as they are. Above it:

    1. with a ``transport``, the older part is summarized through
       :mod:`contextfold.compaction` (keeping about ``keep_recent`` messages and
       aiming at ``target_ratio × budget``). Summaries are cached by a digest of the
       summarized prefix, so later requests reuse them without a model call; when the
       history crosses the threshold again, the cached summary is extended with only
       the messages since (incremental, not a summary of a summary). A failed summary
       (rejected, transport error) never reaches the caller: that request falls back
       to step 2 and the next ``1, 2, 4 … max_backoff`` requests do not retry.
    2. if the view is still over the threshold, ``strategies`` (default:
       :class:`~contextfold.strategies.TruncateToolOutputs` at ``max_tool_chars``) and
       then :class:`~contextfold.strategies.FitContextWindow` at the threshold run on
       it. The latest round is always kept, so a single round larger than the budget
       is the one case the view can exceed it.

    The view keeps every system message and never separates a tool call from its
    result; messages it keeps unchanged are the caller's original dicts (deep copies),
    and a tool message whose output was truncated keeps every other field it had
    (``name`` and the like; its untouched siblings stay the original dicts).
    Messages are validated when added (``ValueError`` naming the defect).

    **Unmodelled content parts** (remote image URLs, ``input_audio``, ``file``, unknown
    types) are stored and returned as given; for counting and summarizing each is a
    text placeholder (``"[image: <url>]"``, ``"[audio: wav]"``, ``"[file: <name>]"``,
    ``"[content part: <type>]"``) costing 600 tokens like an image, never its data.
    Concurrent requests share one summarization (an :class:`asyncio.Lock`; the
    storing methods never await, so each is atomic on the event loop).
    ``context:pre_compact`` and ``context:post_compact`` are emitted through
    ``hooks`` around every compacted view; a hook that raises is logged and ignored.
    ``pre_compact`` carries ``messages``, ``tokens``, ``budget``, ``threshold_tokens``;
    ``post_compact`` carries ``messages_before/after``, ``tokens_before/after``,
    ``budget``, ``threshold_tokens``, ``summary`` (``none``, ``new``, ``extended``,
    ``cached``, ``failed``, ``backoff``), ``strategies_applied``,
    ``summarizer_requests``, ``summarizer_input_tokens``, ``summarizer_output_tokens``
    and ``error``.

    Other options: ``counter`` estimates tokens; ``max_tool_chars`` bounds each tool
    output in the summarizer's copy and in the default strategy; ``max_summary_tokens``,
    ``system_prompt``, ``update_prompt`` and ``prompt_vars`` are those of
    :func:`~contextfold.compaction.compact_context`; ``cache_size`` summaries are kept.
    Bad settings raise :class:`ValueError`.
    """

    def __init__(
        self,
        *,
        settings: CompactionSettings | None = None,
        max_tokens: int | None = None,
        compaction_threshold: float | None = None,
        transport: CompletionTransport | None = None,
        keep_recent: int | None = None,
        hooks: EventHooks | None = None,
        counter: TokenCounter | None = None,
        safety_margin: float = 0.05,
        strategies: Sequence[StrategyLike] | None = None,
        target_ratio: float | None = None,
        max_tool_chars: int | None = None,
        max_summary_tokens: int | None = None,
        system_prompt: PromptLike | None = None,
        update_prompt: PromptLike | None = None,
        prompt_vars: dict[str, object] | None = None,
        cache_size: int = 8,
        max_backoff: int | None = None,
    ) -> None:
        if compaction_threshold is not None:
            check_fraction("compaction_threshold", compaction_threshold, one_ok=True)
        base = settings or CompactionSettings(threshold=_DEFAULT_THRESHOLD)
        self.settings: CompactionSettings = base.replace(
            keep_recent=keep_recent,
            threshold=compaction_threshold,
            counter=counter,
            target_ratio=target_ratio,
            max_tool_chars=max_tool_chars,
            max_summary_tokens=max_summary_tokens,
            system_prompt=system_prompt,
            update_prompt=update_prompt,
            prompt_vars=prompt_vars,
            max_backoff=max_backoff,
        )
        # The view cuts kept tool outputs to the same bound as the summarizer's copy.
        self.settings = self.settings.replace(kept_tool_chars=self.settings.max_tool_chars)
        """Every compaction setting in force (``threshold`` is ``compaction_threshold``)."""
        settings = self.settings
        if max_tokens is None:
            max_tokens = settings.max_tokens or _DEFAULT_MAX_TOKENS
        self.max_tokens = check_int("max_tokens", max_tokens, 1)
        self.compaction_threshold = settings.threshold
        self.safety_margin = check_fraction("safety_margin", safety_margin, zero_ok=True)
        self.target_ratio = settings.target_ratio
        self.max_backoff = settings.max_backoff
        if transport is not None and not isinstance(transport, CompletionTransport):
            raise ValueError(f"transport must be a CompletionTransport, got {transport!r}")
        if hooks is not None and not isinstance(hooks, EventHooks):
            raise ValueError(f"hooks must have an emit(event, data) method, got {hooks!r}")
        self.transport = transport
        self.hooks = hooks
        self.counter = settings.counter
        self._counter = MediaAwareCounter(settings.counter)  # placeholders cost like an image
        self._opts: Options = settings.options(counter=self._counter)
        max_tool_chars = settings.max_tool_chars
        self.strategies: tuple[StrategyLike, ...] = (
            (TruncateToolOutputs(max_tool_chars),) if strategies is None else tuple(strategies)
        )
        cache_size = check_int("cache_size", cache_size, 1)
        self._count = CachedMessageCounter(self._counter)
        self._history = StoredHistory(self._count.count_message)
        self._fitters: dict[int, FitContextWindow] = {}
        self._summarizer = (
            None
            if transport is None
            else ViewSummarizer(
                transport,
                self._opts,
                self._count,
                cache_size=cache_size,
                max_backoff=self.max_backoff,
                target_ratio=self.target_ratio,
            )
        )

    @property
    def keep_recent(self) -> int:
        return self._opts.keep_recent

    @property
    def summarizer_usage(self) -> Usage:
        """Running total of what the summarizer cost (zero without a transport)."""
        return Usage(0, 0) if self._summarizer is None else self._summarizer.usage

    @property
    def summarizer_requests(self) -> int:
        """How many requests the summarizer was sent."""
        return 0 if self._summarizer is None else self._summarizer.requests

    # -- the stored history ------------------------------------------------------------

    async def add_message(self, message: dict[str, Any]) -> None:
        """Append one OpenAI chat message (stored as a deep copy).

        Unmodelled content parts are accepted (see the class docstring). Raises
        :class:`ValueError` (nothing stored) for a non-dict, a missing or unknown
        ``role``, malformed content (a part without ``type``, a text part without
        text, an ``image_url``, ``input_audio`` or ``file`` part without its payload)
        or ``tool_calls``, or a ``tool`` message answering no open tool call.
        """
        self._history.append(message)

    async def get_messages(self) -> list[dict[str, Any]]:
        """Every stored message, uncompacted (deep copies)."""
        return self._history.snapshot().copy_dicts()

    async def set_messages(self, messages: list[dict[str, Any]]) -> None:
        """Replace the history; on :class:`ValueError` (see :meth:`add_message`) nothing changes.

        Cached summaries of a prefix the new history still starts with stay usable.
        """
        self._history.replace(messages)

    async def clear(self) -> None:
        """Forget every message and every cached summary."""
        self._history.clear()
        if self._summarizer is not None:
            self._summarizer.clear()

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
        budget = await self.request_budget(token_budget, provider)
        threshold = max(1, int(budget * self.compaction_threshold))
        snapshot = self._history.snapshot()
        tokens = snapshot.tokens_from(0)
        if tokens <= threshold:
            return snapshot.copy_dicts()

        await self._emit(
            "context:pre_compact",
            {
                "messages": len(snapshot.dicts),
                "tokens": tokens,
                "budget": budget,
                "threshold_tokens": threshold,
            },
        )
        step = SummaryStep(list(snapshot.messages), "none")
        if self._summarizer is not None:
            step = await self._summarizer.view(snapshot, budget, threshold)
        view = step.view
        strategies_applied = False
        if self._count.count(view) > threshold:
            view = await Pipeline(*self.strategies, self._fitter(threshold)).compact(view)
            strategies_applied = True
        wire = render_view(view, snapshot)
        tokens_after = self._count.count(view)
        await self._emit(
            "context:post_compact",
            {
                "messages_before": len(snapshot.dicts),
                "messages_after": len(wire),
                "tokens_before": tokens,
                "tokens_after": tokens_after,
                "budget": budget,
                "threshold_tokens": threshold,
                "summary": step.outcome,
                "strategies_applied": strategies_applied,
                "summarizer_requests": step.requests,
                "summarizer_input_tokens": step.usage.input_tokens,
                "summarizer_output_tokens": step.usage.output_tokens,
                "error": step.error,
            },
        )
        logger.info(
            "compacted view: %d -> %d messages, ~%d -> ~%d tokens (budget %d, summary %s)",
            len(snapshot.dicts),
            len(wire),
            tokens,
            tokens_after,
            budget,
            step.outcome,
        )
        return wire

    def _fitter(self, threshold: int) -> FitContextWindow:
        fitter = self._fitters.get(threshold)
        if fitter is None:
            if len(self._fitters) >= 8:
                self._fitters.clear()
            fitter = self._fitters[threshold] = FitContextWindow(threshold, self._counter)
        return fitter

    async def _emit(self, event: str, data: dict[str, Any]) -> None:
        hooks = self.hooks
        if hooks is None:
            return
        try:
            result = hooks.emit(event, data)
            if inspect.isawaitable(result):
                await result
        except Exception:
            logger.exception("hook for %s raised; ignoring it", event)


_CONFIG_KEYS = frozenset(
    {
        "max_tokens",
        "compaction_threshold",
        "transport",
        "keep_recent",
        "safety_margin",
        "target_ratio",
        "max_tool_chars",
        "max_summary_tokens",
        "system_prompt",
        "update_prompt",
        "prompt_vars",
        "cache_size",
        "max_backoff",
    }
)


async def mount(
    coordinator: Coordinator, config: Mapping[str, Any] | None = None
) -> CompactingContextManager:
    """Build a :class:`CompactingContextManager` from ``config`` and register it.

    ``config`` keys are the constructor's keyword arguments (``max_tokens``,
    ``compaction_threshold``, ``keep_recent``, ``safety_margin``, ``target_ratio``,
    ``max_tool_chars``, ``max_summary_tokens``, ``system_prompt``, ``update_prompt``,
    ``prompt_vars``, ``cache_size``, ``max_backoff``, and ``transport`` as an object);
    an unknown key raises :class:`ValueError`. Events go to ``coordinator.hooks`` when
    it has an ``emit`` method. The manager is registered with
    ``coordinator.mount("context", manager, name="contextfold")`` (sync or async) and
    **returned** (it holds no resources, so there is no cleanup callable).
    """
    if not isinstance(coordinator, Coordinator):
        raise ValueError(
            f"coordinator must have a mount(point, module, name=...) method: {coordinator!r}"
        )
    options = dict(config or {})
    unknown = sorted(set(options) - _CONFIG_KEYS)
    if unknown:
        raise ValueError(
            f"unknown contextfold-context config key(s): {', '.join(unknown)} "
            f"(known: {', '.join(sorted(_CONFIG_KEYS))})"
        )
    hooks = getattr(coordinator, "hooks", None)
    manager = CompactingContextManager(
        hooks=hooks if isinstance(hooks, EventHooks) else None, **options
    )
    registered = coordinator.mount("context", manager, name="contextfold")
    if inspect.isawaitable(registered):
        await registered
    return manager
