"""Where a history can be cut: safe cut points and rounds.

Shared machinery of the strategies and compaction. Two views of one history:

* :func:`safe_cut_points` - every index ``i`` where ``messages[:i]`` and
  ``messages[i:]`` can be separated without splitting a tool call from its results:
  the first non-system message at or after ``i`` is not a user message carrying
  :class:`~contextfold.blocks.ToolResultBlock` s.
* :func:`split_rounds` - the history as a *head* (leading system messages and the
  user's task, the first message when it is a plain user message) followed by
  *rounds*. A round is an assistant turn with the tool results that answer it; a
  plain user message (a follow-up prompt) opens a round together with the assistant
  turn that answers it; system messages belong to the round they sit in or precede
  (system messages after the task with no round following stay in the head).
  Every round but possibly the first starts at a safe cut point, so keeping the head
  and any suffix of rounds never orphans a tool result.

:meth:`RoundSplit.keep_from` drops whole rounds and keeps the system messages of the
dropped rounds (moved, in order, right after the head): a strategy built on it never
drops a system message. If the input is valid (:func:`~contextfold.validation.validate_history`),
so is the output.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

from contextfold.blocks import ToolResultBlock
from contextfold.messages import Message

__all__ = ["RoundSplit", "is_tool_result_message", "safe_cut_points", "split_rounds"]


def is_tool_result_message(message: Message) -> bool:
    """Whether ``message`` is a user message carrying tool results."""
    return message.role == "user" and any(isinstance(b, ToolResultBlock) for b in message.content)


def _is_plain_user(message: Message) -> bool:
    return message.role == "user" and not is_tool_result_message(message)


def safe_cut_points(
    messages: Sequence[Message], *, starts_with: Literal["user", "assistant"] | None = None
) -> list[int]:
    """Ascending indices ``i`` in ``0..len(messages)`` where the history may be cut.

    Cutting at ``i`` means ``messages[i:]`` is kept (or sent) without ``messages[:i]``.
    ``i`` is safe when the first non-system message at or after ``i`` is not a tool-result
    message, so no tool result loses the tool call it answers; ``len(messages)`` is
    always safe. With ``starts_with``, only the points whose first non-system message
    at or after ``i`` has that role are returned (``len(messages)`` then is not).
    """
    points: list[int] = []
    next_role: str | None = None  # role of the first non-system message at or after i
    blocked = False
    for i in range(len(messages), -1, -1):
        if i < len(messages) and messages[i].role != "system":
            next_role = messages[i].role
            blocked = is_tool_result_message(messages[i])
        if blocked:
            continue
        if starts_with is None or (next_role == starts_with and i < len(messages)):
            points.append(i)
    points.reverse()
    return points


@dataclass(frozen=True, slots=True)
class RoundSplit:
    """A history cut into a head and rounds (see :func:`split_rounds`).

    ``messages[:head_end]`` is the head; round ``r`` is
    ``messages[starts[r]:starts[r + 1]]`` (the last one runs to the end).
    """

    messages: Sequence[Message]
    head_end: int
    starts: tuple[int, ...]

    @property
    def head(self) -> list[Message]:
        """Leading system messages and the task (plus trailing system messages, if no round)."""
        return list(self.messages[: self.head_end])

    @property
    def rounds(self) -> list[list[Message]]:
        """Each round's messages, oldest first."""
        bounds = (*self.starts, len(self.messages))
        return [list(self.messages[a:b]) for a, b in pairwise(bounds)]

    def __len__(self) -> int:
        return len(self.starts)

    def keep_from(self, first_round: int) -> list[Message]:
        """The head, the system messages of rounds before ``first_round``, then the rest.

        ``keep_from(0)`` is a copy of the whole history; ``keep_from(len(split))`` keeps
        the head and every system message only. Raises :class:`ValueError` outside
        ``0..len(split)``.
        """
        if not 0 <= first_round <= len(self.starts):
            raise ValueError(f"first_round must be in 0..{len(self.starts)}, got {first_round}")
        cut = self.starts[first_round] if first_round < len(self.starts) else len(self.messages)
        dropped_systems = [m for m in self.messages[self.head_end : cut] if m.role == "system"]
        return [*self.messages[: self.head_end], *dropped_systems, *self.messages[cut:]]


def split_rounds(messages: Sequence[Message]) -> RoundSplit:
    """Split ``messages`` into the head and its rounds (see the module docstring).

    Never fails: on a history that breaks provider rules the rounds still cover every
    message, but only the guarantees of valid input hold.
    """
    n = len(messages)
    first = next((i for i, m in enumerate(messages) if m.role != "system"), n)
    head_end = first + 1 if first < n and _is_plain_user(messages[first]) else first
    if all(m.role == "system" for m in messages[head_end:]):
        # nothing but system messages after the task: no round to keep or drop
        return RoundSplit(messages, n, ())

    starts = [head_end]
    previous: Message | None = None  # previous non-system message inside the rounds
    run_start: int | None = None  # first index of the run of system messages before i
    for i in range(head_end, n):
        message = messages[i]
        if message.role == "system":
            if run_start is None:
                run_start = i
            continue
        opens = not is_tool_result_message(message) and not (
            message.role == "assistant" and previous is not None and _is_plain_user(previous)
        )
        start = run_start if run_start is not None else i
        if opens and previous is not None and start > starts[-1]:
            starts.append(start)
        previous = message
        run_start = None
    return RoundSplit(messages, head_end, tuple(starts))
