"""History operations shared by compaction, the strategies, the manager and the proxy.

One implementation of each way to take a history apart without breaking it:

* **Cut points** - :func:`safe_cut_points`: every index ``i`` where ``messages[:i]`` and
  ``messages[i:]`` can be separated without splitting a tool call from its results: the
  first non-system message at or after ``i`` is not a user message carrying
  :class:`~contextfold.blocks.ToolResultBlock` s. :func:`choose_cut` and
  :func:`shrink_cut` pick among them for compaction.
* **Rounds** - :func:`split_rounds`: the history as a *head* (leading system messages
  and the user's task, the first message when it is a plain user message) followed by
  *rounds*. A round is an assistant turn with the tool results that answer it; a plain
  user message (a follow-up prompt) opens a round together with the assistant turn
  that answers it; system messages belong to the round they sit in or precede (system
  messages after the task with no round following stay in the head). Every round but
  possibly the first starts at a safe cut point, so keeping the head and any suffix of
  rounds never orphans a tool result. When the history holds thinking blocks, rounds
  inside the turn in progress open only at an assistant message that starts with its
  thinking (Anthropic requires the current tool-use cycle to start with it).
  :meth:`RoundSplit.keep_from` drops whole rounds and keeps the system messages of the
  dropped rounds (moved, in order, right after the head): nothing built on it drops a
  system message.
* **Head + tail truncation** - :func:`truncate_text`, :func:`truncate_result` and
  :func:`truncate_tool_outputs`. A cut text is exactly ``max_chars`` characters: the
  first ``(max_chars - len(marker)) // 2`` characters, ``marker``, then the last ones.
  Text already within ``max_chars`` is returned unchanged (the same object), which
  makes cutting idempotent; a budget shorter than the marker leaves the marker alone.
  A tool result is bounded as a whole: the text of all its blocks counts together.
* **Images left out** - :func:`omit_tool_images`: the images of tool results, oldest
  first, become short text placeholders (:func:`image_placeholder`) until what is left
  fits; the newest images stay. Text truncation leaves images alone; this is what bounds
  them.

If the input is valid (:func:`~contextfold.validation.validate_history`), so is every
output. Imports only the ground (blocks, messages).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

from contextfold.blocks import (
    ContentBlock,
    ImageBlock,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
)
from contextfold.messages import Message
from contextfold.validation import has_thinking

__all__ = [
    "RoundSplit",
    "choose_cut",
    "compaction_cut_points",
    "image_placeholder",
    "is_tool_result_message",
    "omit_tool_images",
    "safe_cut_points",
    "shrink_cut",
    "split_rounds",
    "truncate_result",
    "truncate_text",
    "truncate_tool_outputs",
]


def is_tool_result_message(message: Message) -> bool:
    """Whether ``message`` is a user message carrying tool results (or opaque outputs
    of unmodelled tool calls, which pair like results)."""
    return message.role == "user" and any(
        isinstance(b, ToolResultBlock) or (isinstance(b, OpaqueBlock) and b.is_result and b.call_id)
        for b in message.content
    )


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

    # With thinking on, a round inside the turn in progress may open only at an
    # assistant message that starts with its thinking (see compaction_cut_points).
    turn_start = _turn_start(messages) if has_thinking(messages) else n
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
        if i > turn_start and not _opens_with_thinking(message):
            opens = False
        start = run_start if run_start is not None else i
        if opens and previous is not None and start > starts[-1]:
            starts.append(start)
        previous = message
        run_start = None
    return RoundSplit(messages, head_end, tuple(starts))


def compaction_cut_points(messages: Sequence[Message]) -> list[int]:
    """The safe cut points compaction may use.

    They leave something on both sides (``1 <= i``, and no later than the last
    non-system message: the kept part must hold the turn the model is answering, not
    only trailing system notes). When the history holds thinking blocks, a cut inside
    the turn in progress (after its last prompt) must keep an assistant message that
    starts with its thinking block first: the summary opens a new turn there, and
    Anthropic requires the current tool-use cycle to start with its thinking.
    """
    last = max((i for i, m in enumerate(messages) if m.role != "system"), default=-1)
    points = [p for p in safe_cut_points(messages) if 0 < p <= last]
    if not has_thinking(messages):
        return points
    turn_start = _turn_start(messages)

    def allowed(point: int) -> bool:
        first = next(m for m in messages[point:] if m.role != "system")
        return point <= turn_start or _opens_with_thinking(first)

    return [p for p in points if allowed(p)]


def _turn_start(messages: Sequence[Message]) -> int:
    """Index of the prompt (a plain user message) that opened the turn in progress."""
    return max((i for i, m in enumerate(messages) if _is_plain_user(m)), default=-1)


def _opens_with_thinking(message: Message) -> bool:
    head = message.content[0] if message.content else None
    return message.role == "assistant" and isinstance(head, ThinkingBlock)


def choose_cut(messages: Sequence[Message], keep_recent: int) -> int | None:
    """The cut that keeps about ``keep_recent`` messages, or ``None`` if there is none.

    Prefers keeping more (the latest safe cut at or before ``len - keep_recent``);
    when every such cut would summarize nothing, takes the earliest later safe cut.
    The part before the cut must hold at least one non-system message.
    """
    target = len(messages) - keep_recent
    if target <= 0:
        return None
    first_content = next((i for i, m in enumerate(messages) if m.role != "system"), None)
    if first_content is None:
        return None
    candidates = [p for p in compaction_cut_points(messages) if p > first_content]
    if not candidates:
        return None
    earlier = [p for p in candidates if p <= target]
    return earlier[-1] if earlier else candidates[0]


def shrink_cut(
    messages: Sequence[Message], cut: int, fits: Callable[[int], bool], *, last: int | None = None
) -> int:
    """Move ``cut`` later (keeping fewer messages) until ``fits(cut)`` or no later safe cut
    (none past ``last``, when given)."""
    for point in compaction_cut_points(messages):
        if point <= cut:
            continue
        if last is not None and point > last:
            break
        if fits(cut):
            break
        cut = point
    return cut


def _budgets(total: int, max_chars: int, marker: str) -> tuple[int, int]:
    """Head and tail lengths to keep from ``total`` characters."""
    keep = max(max_chars - len(marker), 0)  # a budget below the marker keeps the marker alone
    head = keep // 2
    return head, keep - head


def truncate_text(text: str, max_chars: int, marker: str) -> str:
    """``text`` cut to head + ``marker`` + tail if longer than ``max_chars``, else ``text``."""
    if len(text) <= max_chars:
        return text
    head, tail = _budgets(len(text), max_chars, marker)
    return text[:head] + marker + text[len(text) - tail :]


def truncate_result(block: ToolResultBlock, max_chars: int, marker: str) -> ToolResultBlock:
    """``block`` with its text cut to ``max_chars`` characters in all, or ``block`` itself.

    For list content the text of every :class:`TextBlock` counts together: the head is
    taken from the first blocks, the tail from the last ones, the marker joins them
    inside the block where the head ends, and blocks wholly inside the cut middle are
    dropped. Images are kept in place. ``tool_use_id`` and ``is_error`` are unchanged.
    """
    content = block.content
    if isinstance(content, str):
        cut = truncate_text(content, max_chars, marker)
        if cut is content:
            return block
        return ToolResultBlock(block.tool_use_id, cut, block.is_error)

    total = sum(len(part.text) for part in content if isinstance(part, TextBlock))
    if total <= max_chars:
        return block
    head, tail = _budgets(total, max_chars, marker)
    tail_from = total - tail  # text offsets [head, tail_from) are dropped
    parts: list[TextBlock | ImageBlock | OpaqueBlock] = []
    offset = 0
    marked = False
    for part in content:
        if not isinstance(part, TextBlock):  # images and opaque parts stay in place
            parts.append(part)
            continue
        start, end = offset, offset + len(part.text)
        offset = end
        kept = part.text[: max(0, min(end, head) - start)]
        if not marked and end > head:
            kept += marker
            marked = True
        kept += part.text[max(0, tail_from - start) :] if end > tail_from else ""
        if kept:
            parts.append(TextBlock(kept))
    return ToolResultBlock(block.tool_use_id, parts, block.is_error)


def truncate_tool_outputs(messages: list[Message], max_chars: int, marker: str) -> list[Message]:
    """``messages`` with every tool result cut to ``max_chars`` characters in all
    (:func:`truncate_result`); the same list object when nothing was cut."""
    result: list[Message] | None = None
    for index, message in enumerate(messages):
        if message.role != "user":
            continue
        content: list[ContentBlock] | None = None
        for position, block in enumerate(message.content):
            if not isinstance(block, ToolResultBlock):
                continue
            cut = truncate_result(block, max_chars, marker)
            if cut is not block:
                if content is None:
                    content = list(message.content)
                content[position] = cut
        if content is not None:
            if result is None:
                result = list(messages)
            result[index] = Message(message.role, content)
    return messages if result is None else result


def image_placeholder(image: ImageBlock) -> TextBlock:
    """The text an image left out of a kept tool result becomes: its type and size."""
    kilobytes = max(1, round(len(image.data) / 1024))
    return TextBlock(f"[{image.media_type}, {kilobytes} KB, omitted to fit the context window]")


def _tool_images(messages: Sequence[Message]) -> int:
    """How many images the tool results of ``messages`` hold."""
    return sum(
        isinstance(part, ImageBlock)
        for message in messages
        if message.role == "user"
        for block in message.content
        if isinstance(block, ToolResultBlock) and not isinstance(block.content, str)
        for part in block.content
    )


def _omit_oldest(messages: list[Message], count: int) -> list[Message]:
    """``messages`` with the first ``count`` tool-result images replaced by placeholders."""
    result = list(messages)
    left = count
    for index, message in enumerate(messages):
        if left <= 0:
            break
        if message.role != "user":
            continue
        content = list(message.content)
        changed = False
        for position, block in enumerate(content):
            if left <= 0:
                break
            if not isinstance(block, ToolResultBlock) or isinstance(block.content, str):
                continue
            if not any(isinstance(part, ImageBlock) for part in block.content):
                continue
            changed = True
            parts: list[TextBlock | ImageBlock | OpaqueBlock] = []
            for part in block.content:
                if isinstance(part, ImageBlock) and left > 0:
                    parts.append(image_placeholder(part))
                    left -= 1
                else:
                    parts.append(part)
            content[position] = ToolResultBlock(block.tool_use_id, parts, block.is_error)
        if changed:
            result[index] = Message(message.role, content)
    return result


def omit_tool_images(
    messages: list[Message], fits: Callable[[list[Message]], bool]
) -> list[Message]:
    """``messages`` with the fewest tool-result images left out for ``fits`` to hold.

    The oldest images (in history order, inside a result in block order) become
    :func:`image_placeholder` text first; the newest stay. Returns the same list object
    when ``fits(messages)`` already holds or no tool result holds an image, and the
    copy with every such image left out when nothing less fits. ``fits`` must not
    become false as images are left out (each placeholder is far smaller than an
    image). Messages, tool pairs, ``tool_use_id`` and ``is_error`` are unchanged; only
    new objects are made, the input is not modified.
    """
    total = _tool_images(messages)
    if total == 0 or fits(messages):
        return messages
    low, high = 1, total  # the fewest omitted images that fit is in [low, high]
    while low < high:
        middle = (low + high) // 2
        if fits(_omit_oldest(messages, middle)):
            high = middle
        else:
            low = middle + 1
    return _omit_oldest(messages, low)
