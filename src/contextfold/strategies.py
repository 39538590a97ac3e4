"""Cheap, LLM-free ways to bound a transcript.

A *strategy* takes a history and returns a shorter (or equal) one. Every strategy
here guarantees, for any input that passes
:func:`~contextfold.validation.validate_history`:

* the output passes it too: no tool call is separated from its results, the first
  non-system message stays the user's task, no two assistant messages meet;
* no system message is dropped, and messages are never reordered except that the
  system messages of dropped rounds move up to just after the task;
* the input list and its messages are never modified; when nothing needs to change,
  the very same list object is returned (``result is messages``).

Strategies compose: ``Pipeline(TruncateToolOutputs(4_000), FitContextWindow(100_000))``.
:class:`MaskToolOutputs` is the one that loses nothing for good: on a store that keeps
an archive, the model can fetch each masked original back (:mod:`contextfold.recall`).
Wherever a strategy is expected, a plain ``async def f(messages) -> list[Message]`` works
too (see :data:`StrategyLike`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from typing import TypeAlias

from contextfold._history import split_rounds, truncate_tool_outputs
from contextfold._masking import mask_outputs
from contextfold.messages import Message
from contextfold.tokens import (
    DEFAULT_PER_MESSAGE_OVERHEAD,
    DEFAULT_TOKENS_PER_MEDIA,
    CachedMessageCounter,
    TokenCounter,
    approx_token_counter,
)

__all__ = [
    "ContextStrategy",
    "FitContextWindow",
    "MaskToolOutputs",
    "Pipeline",
    "StrategyLike",
    "TrimRounds",
    "TruncateToolOutputs",
]


class ContextStrategy(ABC):
    """A way to shorten a history without a model call.

    Subclasses implement :meth:`compact`. A strategy is also an async callable,
    ``await strategy(messages)``, so it fits wherever a :data:`StrategyLike` is expected.
    """

    @abstractmethod
    async def compact(self, messages: list[Message]) -> list[Message]:
        """Return the shortened history, or ``messages`` itself when nothing changes.

        Implementations must not modify ``messages`` or its messages, and must return a
        valid history when given one (see the module docstring).
        """

    async def __call__(self, messages: list[Message]) -> list[Message]:
        return await self.compact(messages)


StrategyLike: TypeAlias = ContextStrategy | Callable[[list[Message]], Awaitable[list[Message]]]
"""A :class:`ContextStrategy` or an ``async (messages) -> messages`` callable."""


def _positive_int(name: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def _non_negative_int(name: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return value


class TrimRounds(ContextStrategy):
    """Keep the system messages, the user's task and the last ``max_rounds`` rounds.

    A round is an assistant turn plus the tool results that answer it; a follow-up
    user prompt belongs to the round of the reply it got. Raises :class:`ValueError`
    unless ``max_rounds`` is a positive integer.
    """

    def __init__(self, max_rounds: int) -> None:
        self.max_rounds = _positive_int("max_rounds", max_rounds)

    async def compact(self, messages: list[Message]) -> list[Message]:
        split = split_rounds(messages)
        if len(split) <= self.max_rounds:
            return messages
        return split.keep_from(len(split) - self.max_rounds)

    def __repr__(self) -> str:
        return f"TrimRounds({self.max_rounds})"


class TruncateToolOutputs(ContextStrategy):
    """Cut every tool output longer than ``max_chars`` to its head and tail.

    The kept text is exactly ``max_chars`` characters: the first half of the budget,
    ``marker``, then the end of the output (where errors and summaries usually are).
    For outputs made of several blocks, the text of all blocks counts together and
    images are kept. Every message and tool pair is kept; applying it twice changes
    nothing more (idempotent). Raises :class:`ValueError` unless ``max_chars`` is a
    positive integer larger than ``len(marker)``.
    """

    def __init__(self, max_chars: int, *, marker: str = "...[truncated]") -> None:
        _positive_int("max_chars", max_chars)
        if not isinstance(marker, str):
            raise ValueError(f"marker must be a string, got {marker!r}")
        if max_chars <= len(marker):
            raise ValueError(
                f"max_chars ({max_chars}) must be larger than the marker ({len(marker)} chars)"
            )
        self.max_chars = max_chars
        self.marker = marker

    async def compact(self, messages: list[Message]) -> list[Message]:
        return truncate_tool_outputs(messages, self.max_chars, self.marker)

    def __repr__(self) -> str:
        return f"TruncateToolOutputs({self.max_chars}, marker={self.marker!r})"


class MaskToolOutputs(ContextStrategy):
    """Replace old, large tool outputs with a short placeholder naming a recall handle.

    Tool outputs outside the last ``keep_rounds`` rounds whose text is at least
    ``min_chars`` characters become one string: a first line with the output's stable
    handle, the call in brief (tool name and arguments cut to 80 characters) and its
    size, then the first ``head_chars`` characters of the output, then a line saying
    how much was left out and that the recall tool returns it (the exact format and
    the handle's derivation are documented in :mod:`contextfold._masking`; handles
    depend on content and ``tool_use_id`` only, so they are the same in every run and
    process). ``tool_use_id`` and ``is_error`` are kept, images of a masked output are
    dropped with it; every message, pair and role is kept, so validity is unchanged.
    An output is masked only when the placeholder is shorter; masking twice changes
    nothing more (idempotent).

    The originals survive where the history is rewritten through a store that keeps
    an archive (:class:`~contextfold.stores.base.Archiving`: the memory, SQLite,
    PostgreSQL and Redis stores), e.g. inside
    :class:`~contextfold.compaction.AutoCompactStore`
    (``settings=CompactionSettings(mask_tool_outputs=...)``) or by
    ``store.replace_history(await MaskToolOutputs().compact(history))``. A handle
    names the output as this strategy receives it, so in a :class:`Pipeline` that
    rewrites the store in one step, put it before strategies that change tool
    outputs (:class:`TruncateToolOutputs`): after them, the handle would name a cut
    output the archive never held. Raises
    :class:`ValueError` unless ``keep_rounds`` is a positive integer, ``head_chars``
    a non-negative one and ``min_chars`` larger than ``head_chars``.
    """

    def __init__(
        self, keep_rounds: int = 3, *, min_chars: int = 2_000, head_chars: int = 200
    ) -> None:
        self.keep_rounds = _positive_int("keep_rounds", keep_rounds)
        self.head_chars = _non_negative_int("head_chars", head_chars)
        _positive_int("min_chars", min_chars)
        if min_chars <= head_chars:
            raise ValueError(
                f"min_chars ({min_chars}) must be larger than head_chars ({head_chars})"
            )
        self.min_chars = min_chars

    async def compact(self, messages: list[Message]) -> list[Message]:
        return mask_outputs(
            messages,
            keep_rounds=self.keep_rounds,
            min_chars=self.min_chars,
            head_chars=self.head_chars,
        )

    def __repr__(self) -> str:
        return (
            f"MaskToolOutputs({self.keep_rounds}, min_chars={self.min_chars}, "
            f"head_chars={self.head_chars})"
        )


class FitContextWindow(ContextStrategy):
    """Keep system messages and the task, then as many whole recent rounds as fit.

    The budget is ``max_tokens - reserve_tokens``, counted with ``counter`` as
    :func:`~contextfold.tokens.count_message_tokens` does (framing
    ``per_message_overhead`` per message, ``tokens_per_media`` per image). Rounds are
    kept whole - a tool pair is never split - and the latest round is always kept,
    even when it alone is over budget (pair this strategy with
    :class:`TruncateToolOutputs` to bound single rounds). Counts are cached by message
    content, so applying it to a growing history each turn counts only new messages.
    Raises :class:`ValueError` for a non-positive budget or negative settings.
    """

    def __init__(
        self,
        max_tokens: int,
        counter: TokenCounter = approx_token_counter,
        *,
        reserve_tokens: int = 0,
        per_message_overhead: int = DEFAULT_PER_MESSAGE_OVERHEAD,
        tokens_per_media: int = DEFAULT_TOKENS_PER_MEDIA,
    ) -> None:
        _positive_int("max_tokens", max_tokens)
        _non_negative_int("reserve_tokens", reserve_tokens)
        if reserve_tokens >= max_tokens:
            raise ValueError(
                f"reserve_tokens ({reserve_tokens}) must be smaller than max_tokens ({max_tokens})"
            )
        self.max_tokens = max_tokens
        self.reserve_tokens = reserve_tokens
        self._counter = CachedMessageCounter(
            counter,
            per_message_overhead=_non_negative_int("per_message_overhead", per_message_overhead),
            tokens_per_media=_non_negative_int("tokens_per_media", tokens_per_media),
        )

    @property
    def budget(self) -> int:
        """The tokens the kept history may use: ``max_tokens - reserve_tokens``."""
        return self.max_tokens - self.reserve_tokens

    async def compact(self, messages: list[Message]) -> list[Message]:
        split = split_rounds(messages)
        if not len(split):
            return messages
        count = self._counter.count_message
        total = sum(count(m) for m in split.head)
        rounds = split.rounds
        round_costs = [sum(count(m) for m in r) for r in rounds]
        system_costs = [sum(count(m) for m in r if m.role == "system") for r in rounds]
        # Keeping rounds k.. costs head + their messages + the system messages of the
        # rounds before k; that grows as k falls, so walk back until it no longer fits.
        total += sum(system_costs)
        first = len(rounds) - 1
        total += round_costs[first] - system_costs[first]
        while first > 0:
            extra = round_costs[first - 1] - system_costs[first - 1]
            if total + extra > self.budget:
                break
            total += extra
            first -= 1
        return messages if first == 0 else split.keep_from(first)

    def __repr__(self) -> str:
        return f"FitContextWindow({self.max_tokens}, reserve_tokens={self.reserve_tokens})"


class Pipeline(ContextStrategy):
    """Apply strategies in order, each to the previous one's output.

    Accepts :class:`ContextStrategy` objects and plain async callables. Returns the
    input list itself when every step returned its input unchanged. Raises
    :class:`ValueError` when a step is not callable, and :class:`TypeError` when a
    step returns something other than a list.
    """

    def __init__(self, *strategies: StrategyLike) -> None:
        for strategy in strategies:
            if not callable(strategy):
                raise ValueError(f"a pipeline step must be a strategy or callable: {strategy!r}")
        self.strategies: tuple[StrategyLike, ...] = strategies

    async def compact(self, messages: list[Message]) -> list[Message]:
        current = messages
        for strategy in self.strategies:
            result = await strategy(current)
            if not isinstance(result, list):
                raise TypeError(
                    f"strategy {strategy!r} returned {type(result).__name__}, expected a list"
                )
            current = result
        return current

    def __repr__(self) -> str:
        return f"Pipeline({', '.join(map(repr, self.strategies))})"
