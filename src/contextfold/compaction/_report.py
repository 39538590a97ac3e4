"""Reporting compaction attempts: events to the hooks, the latest event, and logs.

Every attempt of :class:`~contextfold.compaction.AutoCompactStore` is reported twice, a
``before`` and an ``after`` :class:`~contextfold.compaction.CompactionEvent`; a hook
that raises is logged and ignored, so observing can never break a compaction.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from contextfold.compaction._engine import CompactionEvent, CompactionHook, Outcome, Trigger
from contextfold.compaction._summarizer import Summarizer
from contextfold.transports.base import Usage

__all__ = ["Attempt", "Reporter", "span_attributes"]

logger = logging.getLogger("contextfold.compaction")


@dataclass(slots=True)
class Attempt:
    """One compaction attempt: what triggered it, and what it has cost so far."""

    trigger: Trigger
    tokens: int
    summarizer: Summarizer | None = None
    started: float = field(default_factory=time.monotonic)
    messages: int = 0

    @property
    def usage(self) -> Usage:
        return self.summarizer.usage if self.summarizer is not None else Usage(0, 0)


def span_attributes(event: CompactionEvent) -> dict[str, str | int | float | bool | list[str]]:
    """What an ``after`` event adds to its attempt's OpenTelemetry span (counts only)."""
    fields: dict[str, str | int | float | bool | list[str]] = {
        "contextfold.compaction.outcome": event.outcome or "",
        "contextfold.compaction.messages_before": event.messages_before,
        "contextfold.compaction.summarizer_requests": event.summarizer_requests,
    }
    for name in ("messages_after", "tokens_after", "summary_tokens"):
        value = getattr(event, name)
        if value is not None:
            fields[f"contextfold.compaction.{name}"] = value
    if event.summarizer_usage is not None:
        fields["gen_ai.usage.input_tokens"] = event.summarizer_usage.input_tokens
        fields["gen_ai.usage.output_tokens"] = event.summarizer_usage.output_tokens
    return fields


class Reporter:
    """Builds the events of one session and hands them to its hooks.

    ``session_id`` and ``limit`` are read when an event is made, so they are always
    the store's current ones.
    """

    def __init__(
        self,
        hooks: CompactionHook | Iterable[CompactionHook] | None,
        session_id: Callable[[], str],
        limit: Callable[[], int],
    ) -> None:
        self.hooks: list[CompactionHook] = [hooks] if callable(hooks) else list(hooks or ())
        self.last_event: CompactionEvent | None = None
        self._session_id = session_id
        self._limit = limit

    def event(
        self,
        phase: Literal["before", "after"],
        trigger: Trigger,
        tokens: int,
        count: int,
        **fields: Any,
    ) -> CompactionEvent:
        return CompactionEvent(
            phase, self._session_id(), trigger, self._limit(), count, tokens, **fields
        )

    async def before(self, attempt: Attempt) -> None:
        await self.emit(self.event("before", attempt.trigger, attempt.tokens, attempt.messages))

    async def after(self, attempt: Attempt, outcome: Outcome, **fields: Any) -> None:
        """Report how ``attempt`` ended, with its duration and the summarizer's usage."""
        summarizer = attempt.summarizer
        await self.emit(
            self.event(
                "after",
                attempt.trigger,
                attempt.tokens,
                attempt.messages,
                outcome=outcome,
                summarizer_usage=attempt.usage,
                summarizer_requests=summarizer.requests if summarizer is not None else 0,
                duration_s=time.monotonic() - attempt.started,
                **fields,
            )
        )

    async def held(self, trigger: Trigger, tokens: int, why: str) -> None:
        """Report a trigger that back-off or the no-loop floor held back (hooks only)."""
        logger.info("compaction of session %s held back: %s", self._session_id(), why)
        await self.emit(self.event("before", trigger, tokens, 0), attempt=False)
        await self.emit(
            self.event("after", trigger, tokens, 0, outcome="held", error=why), attempt=False
        )

    async def emit(self, event: CompactionEvent, *, attempt: bool = True) -> None:
        if attempt:  # a held-back trigger goes to the hooks only
            self.last_event = event
        for hook in self.hooks:
            try:
                result = hook(event)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                logger.exception("compaction hook %r raised; ignoring it", hook)
