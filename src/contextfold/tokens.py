"""Token counting without a model call.

A *token counter* is any callable ``(text: str) -> int``. :func:`count_message_tokens`
and :func:`count_tokens` apply one to messages: text, tool calls (name + JSON input),
tool results and thinking are counted as text; images cost a flat
``tokens_per_media``; each message adds ``per_message_overhead`` for its framing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Protocol

from contextfold.blocks import (
    ContentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.messages import Message

__all__ = [
    "HeuristicTokenCounter",
    "TokenCounter",
    "approx_token_counter",
    "count_message_tokens",
    "count_tokens",
]

DEFAULT_PER_MESSAGE_OVERHEAD = 4
DEFAULT_TOKENS_PER_MEDIA = 600


class TokenCounter(Protocol):
    """Counts the tokens of a piece of text."""

    def __call__(self, text: str, /) -> int: ...


class HeuristicTokenCounter:
    """``ceil(len(text) / chars_per_token)``: fast, provider-agnostic, slightly pessimistic."""

    __slots__ = ("chars_per_token",)

    def __init__(self, chars_per_token: float = 4.0) -> None:
        if not chars_per_token > 0:
            raise ValueError(f"chars_per_token must be positive, got {chars_per_token}")
        self.chars_per_token = chars_per_token

    def __call__(self, text: str, /) -> int:
        return math.ceil(len(text) / self.chars_per_token)

    def __repr__(self) -> str:
        return f"HeuristicTokenCounter(chars_per_token={self.chars_per_token})"


approx_token_counter: TokenCounter = HeuristicTokenCounter()
"""The default counter: four characters a token."""


def _block_tokens(block: ContentBlock, counter: TokenCounter, tokens_per_media: int) -> int:
    match block:
        case TextBlock(text=text):
            return counter(text)
        case ImageBlock():
            return tokens_per_media
        case ToolUseBlock(name=name, input=input_):
            return counter(name) + counter(json.dumps(input_, ensure_ascii=False))
        case ToolResultBlock(content=str() as text):
            return counter(text)
        case ToolResultBlock(content=list() as parts):
            return sum(_block_tokens(part, counter, tokens_per_media) for part in parts)
        case ThinkingBlock(thinking=thinking):
            return counter(thinking)
    return 0


def count_message_tokens(
    message: Message,
    counter: TokenCounter = approx_token_counter,
    *,
    per_message_overhead: int = DEFAULT_PER_MESSAGE_OVERHEAD,
    tokens_per_media: int = DEFAULT_TOKENS_PER_MEDIA,
) -> int:
    """Estimated tokens of one message, framing included."""
    return per_message_overhead + sum(
        _block_tokens(block, counter, tokens_per_media) for block in message.content
    )


def count_tokens(
    messages: Iterable[Message],
    counter: TokenCounter = approx_token_counter,
    *,
    system: str | None = None,
    per_message_overhead: int = DEFAULT_PER_MESSAGE_OVERHEAD,
    tokens_per_media: int = DEFAULT_TOKENS_PER_MEDIA,
) -> int:
    """Estimated tokens of a whole request: ``system`` plus every message."""
    total = counter(system) if system else 0
    for message in messages:
        total += count_message_tokens(
            message,
            counter,
            per_message_overhead=per_message_overhead,
            tokens_per_media=tokens_per_media,
        )
    return total
