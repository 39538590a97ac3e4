"""Recognizing an upstream's context-overflow answer, and what the proxy says about it.

The proxy's estimate of a prompt's size can be wrong (an unknown model's window, a
tokenizer far from the counter). When the upstream answers a chat request with an
error that says the prompt is longer than the model's window, the proxy compacts
that request (forced, whatever its estimate) and sends it once more; see
:mod:`contextfold.proxy`. Only an error answer the client has not seen a byte of can
be retried: a buffered JSON error (also the answer to a stream request, which an
upstream rejects before it starts streaming), never an error inside a stream.

Recognition is :func:`contextfold.transports._errors.is_overflow`, the one the
transports use: OpenAI's ``context_length_exceeded`` and "maximum context length"
(Chat Completions and Responses), vLLM's "context length is only", Anthropic's "prompt
is too long" - read in the body's ``error`` object, or in an ``error`` string or a
top-level ``message`` (older vLLM) when it has none.
"""

from __future__ import annotations

import json
import re
from typing import Final, Literal

from contextfold.proxy._dialects import Dialect
from contextfold.transports._errors import is_overflow

__all__ = ["RETRYABLE_STATUSES", "failed_retry", "overflowed", "reported_sizes"]

RETRYABLE_STATUSES: Final = frozenset({400, 413})
_PREFIX: Final = "the upstream rejected the prompt as longer than the model's context window"


def overflowed(dialect: Dialect, status: int, content: bytes) -> bool:
    """Whether an error answer (``status``, JSON ``content``) reports a context overflow."""
    if status not in RETRYABLE_STATUSES:
        return False
    try:
        payload = json.loads(content)
    except (ValueError, RecursionError):  # not JSON (or not readable JSON)
        return False
    if not isinstance(payload, dict):
        return False
    # the error object; or its message as a string, or at the top level (older vLLM)
    error, message = payload.get("error"), payload.get("message")
    fallback = error if isinstance(error, str) else message if isinstance(message, str) else ""
    provider: Literal["openai", "anthropic"] = "anthropic" if dialect == "anthropic" else "openai"
    return is_overflow(provider, status, error, fallback)


_NUMBER = r"(\d[\d,]{0,12})"
_WINDOW = re.compile(
    rf"maximum context length is {_NUMBER} tokens|context length is only {_NUMBER} tokens"
    rf"|tokens > {_NUMBER} maximum",
    re.IGNORECASE,
)
_PROMPTS = tuple(  # best first: "you requested" counts the completion too
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"\({_NUMBER} in the messages",
        rf"resulted in {_NUMBER} tokens",
        rf"too long: {_NUMBER} tokens",
        rf"you requested {_NUMBER} tokens",
    )
)


def reported_sizes(content: bytes) -> tuple[int, int] | None:
    """``(window, prompt)`` in the upstream's own tokens, when its overflow error says
    both (OpenAI: "maximum context length is N tokens. However, your messages resulted
    in M tokens"; vLLM: "... you requested M tokens (P in the messages ..."; Anthropic:
    "prompt is too long: M tokens > N maximum"); else ``None``."""
    text = content[:8_192].decode("utf-8", "replace")
    window = _WINDOW.search(text)
    prompt = next((m for m in (p.search(text) for p in _PROMPTS) if m is not None), None)
    if window is None or prompt is None:
        return None
    sizes = [int(next(g for g in m.groups() if g).replace(",", "")) for m in (window, prompt)]
    return (sizes[0], sizes[1]) if sizes[0] > 0 and sizes[1] > 0 else None


def failed_retry(why: str) -> str:
    """The ``x-contextfold-error`` sent with the upstream's original overflow error."""
    return f"{_PREFIX}; {why}; its original error is relayed"
