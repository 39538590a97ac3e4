"""One request's view: the summary stage, the strategies, the events, the dicts.

:class:`ViewBuilder` turns a history snapshot over the threshold into the dicts a
request sends (see :class:`~contextfold.manager.CompactingContextManager` for the
contract) and emits ``context:pre_compact`` / ``context:post_compact`` around it.
:class:`SummarizerSource` finds the transport a request's summary uses.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final, Protocol

from contextfold._history import safe_cut_points
from contextfold.manager._history import Snapshot
from contextfold.manager._provider import ProviderTransport
from contextfold.manager._render import render_view
from contextfold.manager._summary import SummaryStep, ViewSummarizer
from contextfold.manager._transports import MountedProvider, TransportSpec, preferred
from contextfold.messages import Message
from contextfold.strategies import FitContextWindow, MaskToolOutputs, Pipeline, StrategyLike
from contextfold.tokens import CachedMessageCounter, TokenCounter
from contextfold.transports.base import CompletionTransport, ModelInfo

__all__ = ["EVENTS", "SummarizerSource", "ViewBuilder"]

logger = logging.getLogger("contextfold.manager")

EVENTS: Final = ("context:pre_compact", "context:post_compact", "context:prepared")
"""The events the manager emits (``mount`` declares them to ``observability.events``)."""


class _Hooks(Protocol):
    def emit(self, event: str, data: dict[str, Any], /) -> object: ...


class SummarizerSource:
    """The transport for one request's summary, from the manager's ``transport`` spec.

    A transport is used as it is. A :class:`MountedProvider` is resolved per request:
    the request's ``provider`` (for an unnamed one), else ``lookup()``'s provider of
    that name, or its preferred one. A contextfold transport is used as it is; an
    Amplifier provider (anything with ``complete``) is wrapped in a
    :class:`~contextfold.manager._provider.ProviderTransport`, once per provider.
    ``None`` when there is none (the view then uses the strategies alone).
    """

    def __init__(
        self, spec: TransportSpec, lookup: Callable[[], Mapping[str, object]] | None
    ) -> None:
        self.spec = spec
        self.lookup = lookup
        self._adapters: dict[int, ProviderTransport] = {}

    async def resolve(self, provider: object | None) -> CompletionTransport | None:
        spec = self.spec
        if not isinstance(spec, MountedProvider):
            return spec
        chosen = provider if spec.name is None else None
        if chosen is None and self.lookup is not None:
            try:
                providers = dict(self.lookup())
            except Exception:
                logger.exception("could not list the mounted providers")
                providers = {}
            chosen = providers.get(spec.name) if spec.name else preferred(providers)
        if chosen is None:
            return None
        if isinstance(getattr(chosen, "model", None), ModelInfo) and isinstance(
            chosen, CompletionTransport
        ):
            return chosen
        if not callable(getattr(chosen, "complete", None)):
            logger.debug("provider %r cannot complete requests; no summary", chosen)
            return None
        adapter = self._adapters.get(id(chosen))
        if adapter is None or adapter.provider is not chosen:
            adapter = self._adapters[id(chosen)] = await ProviderTransport.wrap(chosen)
        return adapter


class ViewBuilder:
    """Builds compacted views (see the module docstring); holds no history of its own."""

    def __init__(
        self,
        summarizer: ViewSummarizer,
        source: SummarizerSource,
        count: CachedMessageCounter,
        counter: TokenCounter,
        strategies: Sequence[StrategyLike],
        mask: MaskToolOutputs | None = None,
    ) -> None:
        self.mask = mask  # masking first: no summary when it brings the view under
        self.summarizer = summarizer
        self.source = source
        self.count = count
        self.counter = counter
        self.strategies = tuple(strategies)
        self._fitters: dict[int, FitContextWindow] = {}

    async def prepare(
        self,
        snapshot: Snapshot,
        budget: int,
        threshold: int,
        provider: object | None,
        hooks: _Hooks | None,
    ) -> None:
        """Start preparing the summary of ``snapshot``'s view in the background (it is
        past the prepare point); ``context:prepared`` reports how it ended."""
        transport = await self.source.resolve(provider)
        if transport is None:
            return
        counts = {"budget": budget, "threshold_tokens": threshold}

        async def notify(data: dict[str, Any]) -> None:
            await emit(hooks, "context:prepared", {**data, **counts})

        if self.summarizer.prepare(snapshot, budget, threshold, transport, notify):
            logger.debug("preparing a summary at ~%d tokens", snapshot.tokens_from(0))

    async def build(
        self,
        snapshot: Snapshot,
        budget: int,
        threshold: int,
        provider: object | None,
        hooks: _Hooks | None,
        prepare_at: int | None = None,
        *,
        summarize: bool = True,
        wanted: bool = False,
    ) -> list[dict[str, Any]]:
        """The dicts of ``snapshot``'s compacted view (it is over ``threshold``); past
        ``prepare_at`` the view's next summary is prepared in the background.
        ``summarize=False`` (the ``should_compact`` hook said not now): no new summary
        and no masking, the view keeps the summary it has and is fitted to
        ``threshold`` by the strategies. ``wanted``: the hook asked for a summary now,
        whatever the view's size.

        The view's protected messages (``protected_recent``, see
        :mod:`~contextfold.manager._summary`) end it as they are: the summary leaves
        them out and the window fitting never drops them, even when that leaves the view
        over ``threshold``; the strategies still see them (the default one cuts tool
        outputs and keeps every message).
        """
        tokens = snapshot.tokens_from(0)
        counts = {"budget": budget, "threshold_tokens": threshold}
        await emit(
            hooks,
            "context:pre_compact",
            {"messages": len(snapshot.dicts), "tokens": tokens, **counts},
        )
        step: SummaryStep | None = None
        if not summarize:
            held = await self.summarizer.view(snapshot, budget, threshold, None, held=True)
            step = replace(held, outcome="held")
        else:
            step = await self._masked(snapshot, threshold)
        if step is None:
            transport = await self.source.resolve(provider)
            step = await self.summarizer.view(snapshot, budget, threshold, transport, wanted=wanted)
        view = step.view
        size = self.count.count(view)
        if prepare_at is not None and prepare_at < size <= threshold:
            # Masked or summarized, the view is past the prepare point again: prepare
            # its next summary (``prepare`` does nothing without a transport).
            await self.prepare(snapshot, budget, threshold, provider, hooks)
        strategies_applied = False
        if self.count.count(view) > threshold:
            view = await self._fit(view, threshold, step.protected)
            strategies_applied = True
        wire = render_view(view, snapshot)
        tokens_after = self.count.count(view)
        post = _post(step, snapshot, wire, (tokens, tokens_after), counts, strategies_applied)
        await emit(hooks, "context:post_compact", post)
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

    async def _fit(self, view: list[Message], threshold: int, protect: int) -> list[Message]:
        """``view`` through the strategies, then fitted to ``threshold`` by leaving out
        whole old rounds, never its last ``protect`` messages."""
        if not protect:
            return await Pipeline(*self.strategies, self._fitter(threshold)).compact(view)
        view = await Pipeline(*self.strategies).compact(view)
        # A strategy may have changed the messages: the protected part starts at the
        # latest safe cut point that keeps at least ``protect`` of them.
        start = max((p for p in safe_cut_points(view) if p <= len(view) - protect), default=0)
        older, kept = view[:start], view[start:]
        if not older:
            return view
        # Protection comes first: over the threshold on its own, the protected part
        # still goes whole, after the least of the rest (its head and latest round).
        room = max(threshold - self.count.count(kept), 1)
        return [*await self._fitter(room).compact(older), *kept]

    async def _masked(self, snapshot: Snapshot, threshold: int) -> SummaryStep | None:
        """The view with old tool outputs masked, when that alone fits ``threshold``."""
        if self.mask is None:
            return None
        messages = list(snapshot.messages)
        masked = await self.mask.compact(messages)
        if masked is messages or self.count.count(masked) > threshold:
            return None
        return SummaryStep(masked, "masked")  # under the threshold: nothing more is cut

    def _fitter(self, threshold: int) -> FitContextWindow:
        fitter = self._fitters.get(threshold)
        if fitter is None:
            if len(self._fitters) >= 8:
                self._fitters.clear()
            fitter = self._fitters[threshold] = FitContextWindow(threshold, self.counter)
        return fitter


async def emit(hooks: _Hooks | None, event: str, data: dict[str, Any]) -> None:
    """``hooks.emit(event, data)`` (awaited when async); a hook that raises is logged."""
    if hooks is None:
        return
    try:
        result = hooks.emit(event, data)
        if inspect.isawaitable(result):
            await result
    except Exception:
        logger.exception("hook for %s raised; ignoring it", event)


def _post(
    step: SummaryStep,
    snapshot: Snapshot,
    wire: Sequence[object],
    tokens: tuple[int, int],
    counts: dict[str, int],
    strategies_applied: bool,
) -> dict[str, Any]:
    return {
        "messages_before": len(snapshot.dicts),
        "messages_after": len(wire),
        "tokens_before": tokens[0],
        "tokens_after": tokens[1],
        **counts,
        "summary": step.outcome,
        "strategies_applied": strategies_applied,
        "summarizer_requests": step.requests,
        "summarizer_input_tokens": step.usage.input_tokens,
        "summarizer_output_tokens": step.usage.output_tokens,
        "facts": None if step.facts is None else step.facts.to_json(),
        "error": step.error,
    }
