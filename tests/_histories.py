"""Hypothesis strategies that build valid, realistic agent histories.

``histories()`` draws histories that pass ``validate_history``: leading and
mid-transcript system messages, a task with or without an image, text replies,
thinking (a session thinks at the start of every turn or never), tool loops with
several parallel calls (results in any order, string or block content, images,
errors), follow-up prompts, and optionally a last assistant turn whose tool calls are
still pending (validate those with ``allow_pending=True``).
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import strategies as st

from contextfold.blocks import (
    ContentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.messages import Message

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16

_words = st.text(alphabet="abcdefghij klmnop\nXYZ{}[]:,0123", min_size=1, max_size=40)
_outputs = st.text(alphabet="abcdefxyz \n0123<>/ERROR", min_size=0, max_size=400)


def system_message(draw: Any) -> Message:
    return Message("system", [TextBlock(draw(_words))])


@st.composite
def histories(draw: Any, *, max_turns: int = 14, pending: bool | None = None) -> list[Message]:
    """A valid history; ``pending=None`` sometimes ends with unanswered tool calls."""
    ids = (f"call_{n}" for n in itertools.count())
    messages: list[Message] = [system_message(draw) for _ in range(draw(st.integers(0, 2)))]
    task: list[ContentBlock] = [TextBlock(draw(_words))]
    if draw(st.booleans()):
        task.append(ImageBlock("image/png", PNG))
    messages.append(Message("user", task))
    last_role = "user"
    # A session runs with extended thinking or without: with it, the first assistant
    # message of every turn starts with its thinking (Anthropic's rule), later ones may.
    thinking = draw(st.booleans())
    opens_turn = True

    for _ in range(draw(st.integers(0, max_turns))):
        if draw(st.integers(0, 5)) == 0:
            messages.append(system_message(draw))
        if last_role == "assistant" or draw(st.integers(0, 4)) == 0:
            messages.append(Message.user(draw(_words)))  # a follow-up prompt
            opens_turn = True
        content: list[ContentBlock] = []
        if thinking and (opens_turn or draw(st.booleans())):
            content.append(ThinkingBlock(draw(_words), signature="sig"))
        opens_turn = False
        if draw(st.booleans()):
            content.append(TextBlock(draw(_words)))
        calls = [
            ToolUseBlock(next(ids), draw(st.sampled_from(["read", "grep", "run"])), {"q": "x"})
            for _ in range(draw(st.integers(0, 3)))
        ]
        content.extend(calls)
        if not content or all(isinstance(b, ThinkingBlock) for b in content):
            content.append(TextBlock(draw(_words)))  # thinking is followed by an answer
        messages.append(Message("assistant", content))
        last_role = "assistant"
        if calls:
            if draw(st.integers(0, 5)) == 0:
                messages.append(system_message(draw))  # between a call and its results
            messages.append(Message("user", _results(draw, calls)))
            last_role = "user"

    if pending is True or (pending is None and draw(st.integers(0, 5)) == 0):
        if last_role == "assistant":
            messages.append(Message.user(draw(_words)))
            opens_turn = True
        final: list[ContentBlock] = [ToolUseBlock(next(ids), "run", {"cmd": "ls"})]
        if thinking and opens_turn:
            final.insert(0, ThinkingBlock(draw(_words), signature="sig"))
        messages.append(Message("assistant", final))
    if draw(st.integers(0, 6)) == 0:
        messages.append(system_message(draw))
    return messages


def _results(draw: Any, calls: list[ToolUseBlock]) -> list[ContentBlock]:
    order = draw(st.permutations(calls))
    results: list[ContentBlock] = []
    for call in order:
        content: str | list[TextBlock | ImageBlock]
        if draw(st.integers(0, 3)) == 0:
            parts: list[TextBlock | ImageBlock] = [
                TextBlock(draw(_outputs) or "-") for _ in range(draw(st.integers(1, 3)))
            ]
            if draw(st.booleans()):
                parts.insert(draw(st.integers(0, len(parts))), ImageBlock("image/png", PNG))
            content = parts
        else:
            content = draw(_outputs)
        results.append(ToolResultBlock(call.id, content, is_error=draw(st.booleans())))
    if draw(st.integers(0, 5)) == 0:
        results.append(TextBlock(draw(_words)))  # text after the results is allowed
    return results
