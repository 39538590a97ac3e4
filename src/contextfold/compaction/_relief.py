"""LLM-free relief: a smaller view of the history for one request, the store untouched.

When the prompt is past the point where a request risks overflowing the window and no
summary can be committed now (one still in preparation, a summarizer that hangs or
fails and is being backed off, a history with no valid cut point), the read before the
request returns :func:`relieve`'s view instead of the whole history. The store keeps
everything; the summary is committed when it arrives and the view is no longer needed.

The view is cut in four steps, each only as far as needed, cheapest loss first:

1. every kept tool output the model has already seen is cut to head + tail
   (:func:`~contextfold._history.truncate_tool_outputs`); the results after the last
   assistant message (the model has not seen them yet) are cut only when steps 2 and 3
   do not free enough;
2. whole old rounds are dropped (:meth:`~contextfold._history.RoundSplit.keep_from`):
   the system messages and the user's task (the head) stay, a tool call never loses its
   results, the latest round stays;
3. inside that latest round (a long tool loop in one turn, where thinking opens only
   the turn), whole old tool cycles are dropped - an assistant message that answers
   tool results, with the results that answer it - keeping the round's opening (with
   its thinking) and its latest cycle;
4. the images of what is left's tool results, oldest first, become short placeholders
   (:func:`~contextfold._history.omit_tool_images`); the newest stay.

A valid input (:func:`~contextfold.validation.validate_history`, either dialect) gives a
valid view. When even the head and the latest cycle, their tool images left out, are
over the budget, that is what the view holds: nothing else can go without breaking the
history.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from contextfold._history import (
    is_tool_result_message,
    omit_tool_images,
    split_rounds,
    truncate_tool_outputs,
)
from contextfold.messages import Message
from contextfold.tokens import TokenCounter, count_message_tokens

__all__ = ["Relief", "relief_point", "relieve"]


def relief_point(limit: int, budget: int) -> int:
    """Past this prompt size a request is relieved: halfway from the compaction
    ``limit`` to ``budget``, the most the window takes with room for a full reply (the
    other half is the margin for the estimate's error). Every face uses this point."""
    return limit + max(budget - limit, 0) // 2


@dataclass(frozen=True, slots=True)
class Relief:
    """A relieved view: its messages and how many estimated tokens it saved."""

    messages: list[Message]
    saved: int
    truncated: bool
    dropped: int


def relieve(
    history: list[Message],
    excess: int,
    counter: TokenCounter,
    *,
    max_tool_chars: int,
    marker: str,
) -> Relief:
    """``history`` made at least ``excess`` estimated tokens smaller (see the module doc).

    Tokens are counted with :func:`~contextfold.tokens.count_message_tokens` and
    ``counter``. Returns the view, what it saved, whether tool outputs were cut (their
    text or images), and how many messages were dropped.
    """

    def size(messages: Sequence[Message]) -> int:
        return sum(count_message_tokens(m, counter) for m in messages)

    total = size(history)
    # The results the model has not seen yet (after the last assistant message) are
    # cut only when nothing else frees enough.
    unseen = next(
        (i + 1 for i in range(len(history) - 1, -1, -1) if history[i].role == "assistant"),
        0,
    )
    seen = history[:unseen]
    cut = truncate_tool_outputs(seen, max_tool_chars, marker)
    truncated = cut is not seen
    view = [*cut, *history[unseen:]] if truncated else history
    current = size(view) if truncated else total
    if total - current < excess:
        split = split_rounds(view)
        first = 0
        for messages in split.rounds[:-1]:
            if total - current >= excess:
                break
            # Dropping a round keeps its system messages (moved after the head).
            current -= size([m for m in messages if m.role != "system"])
            first += 1
        if first:
            view = split.keep_from(first)
    if total - current < excess:
        view, current = _drop_cycles(view, total - excess, size)
    if total - current < excess:
        cut = truncate_tool_outputs(view, max_tool_chars, marker)  # the unseen results too
        if cut is not view:
            view, current, truncated = cut, size(cut), True
    if total - current < excess:
        thinned = omit_tool_images(view, lambda messages: total - size(messages) >= excess)
        if thinned is not view:
            view, current, truncated = thinned, size(thinned), True
    return Relief(view, total - current, truncated, len(history) - len(view))


def _drop_cycles(
    messages: list[Message], goal: int, size: Callable[[Sequence[Message]], int]
) -> tuple[list[Message], int]:
    """Drop the oldest tool cycles of the latest round until ``size`` is at most ``goal``."""
    split = split_rounds(messages)
    if not len(split):
        return messages, size(messages)
    start = split.starts[-1]
    # A cycle opens at an assistant message whose previous non-system message is a tool
    # result: dropping cycles from the first such one keeps the alternation and pairs.
    cycles: list[int] = []
    previous: Message | None = None
    for index in range(start, len(messages)):
        message = messages[index]
        if message.role == "system":
            continue
        if message.role == "assistant" and previous and is_tool_result_message(previous):
            cycles.append(index)
        previous = message
    current = size(messages)
    drop_until = cycles[0] if cycles else 0
    for end in cycles[1:]:
        if current <= goal:
            break
        current -= size([m for m in messages[drop_until:end] if m.role != "system"])
        drop_until = end
    if not cycles or drop_until == cycles[0]:
        return messages, current
    systems = [m for m in messages[cycles[0] : drop_until] if m.role == "system"]
    return [*messages[: cycles[0]], *systems, *messages[drop_until:]], current
