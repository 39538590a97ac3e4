"""How big the next prompt is: the last believed size plus what was appended since.

:class:`~contextfold.compaction.AutoCompactStore` decides when to compact from this
estimate. The provider's real usage is the base; every message appended through the
wrapper is counted once (lazily, on the read before a request, so appends stay cheap).
"""

from __future__ import annotations

from collections.abc import Iterable

from contextfold.messages import Message
from contextfold.tokens import TokenCounter, count_message_tokens

__all__ = ["UsageAnchor"]


class UsageAnchor:
    """The prompt-size estimate of one session.

    ``base`` is the last believed prompt size (a real usage report, or the estimate
    when a report was not believable); ``since`` counts what was appended after it;
    ``pending`` holds appended messages not counted yet. ``live`` is the count of the
    live history's messages alone, kept independently of any report, so a transport
    that keeps under-reporting (cache reads left out) cannot drag the estimate down
    with it. ``counted`` says whether a history that existed before the wrapper was
    estimated.
    """

    __slots__ = ("base", "counted", "counter", "live", "pending", "since")

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self.base = 0
        self.since = 0
        self.live = 0
        self.pending: list[Message] = []
        self.counted = False

    def note(self, message: Message) -> None:
        """``message`` was appended; it is counted on the next :meth:`fold`."""
        self.pending.append(message)

    def fold(self) -> None:
        """Count the pending messages into ``since``."""
        if self.pending:
            pending, self.pending = self.pending, []
            added = sum(count_message_tokens(m, self.counter) for m in pending)
            self.since += added
            self.live += added

    @property
    def estimate(self) -> int:
        """The estimated size of the next prompt: never below the live messages' count."""
        self.fold()
        return max(self.base + self.since, self.live)

    def needs_history(self) -> bool:
        """Whether the history from before this wrapper still has to be counted."""
        return not self.counted and self.base == 0

    def take_history(self, history: Iterable[Message]) -> None:
        """Count ``history`` (all of it) instead of what was appended so far."""
        self.counted = True
        self.since, self.live, self.pending = 0, 0, list(history)

    def observe(self, input_tokens: int) -> int:
        """A model call reported ``input_tokens``; return the prompt size to act on.

        That is never less than the estimate of what was sent: a transport that reports
        0, or leaves cache reads out, cannot hide a full window. A report below half of
        the estimate is not believed as the next base either (the estimate stands in);
        a plausible one is, so the counter's error never accumulates turn after turn.
        """
        sent = self.estimate
        self.base = input_tokens if input_tokens >= sent // 2 else sent
        self.since = 0
        return max(input_tokens, sent)

    def reset(self, messages: Iterable[Message] = ()) -> None:
        """The history was rewritten (or cleared) to ``messages``: estimate it anew."""
        self.base = self.since = self.live = 0
        self.pending, self.counted = list(messages), True

    def rebase(self, estimate: int, live: int) -> None:
        """A compaction left a history estimated at ``estimate`` tokens, whose messages
        alone count ``live``."""
        self.base, self.since, self.live = estimate, 0, live

    def copy(self) -> UsageAnchor:
        twin = UsageAnchor(self.counter)
        twin.base, twin.since, twin.counted = self.base, self.since, self.counted
        twin.live = self.live
        twin.pending = list(self.pending)
        return twin
