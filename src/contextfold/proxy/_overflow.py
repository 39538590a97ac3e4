"""Recognizing an upstream's context-overflow answer, and what the proxy says about it.

The proxy's estimate of a prompt's size can be wrong (an unknown model's window, a
tokenizer far from the counter). When the upstream answers a chat request with an
error that says the prompt is longer than the model's window, the proxy compacts
that request (forced, whatever its estimate) and sends it once more; see
:mod:`contextfold.proxy`. Only an error answer the client has not seen a byte of can
be retried: a buffered JSON error (also the answer to a stream request, which an
upstream rejects before it starts streaming), never an error inside a stream.

Recognition is the dialect's (:meth:`~contextfold.dialects.base.Dialect.is_overflow`,
which the transports ask too): OpenAI's ``context_length_exceeded`` and "maximum
context length" (Chat Completions and Responses), vLLM's "context length is only",
Anthropic's "prompt is too long" - read in the body's ``error`` object, or in an
``error`` string or a top-level ``message`` (older vLLM) when it has none.
"""

from __future__ import annotations

import json
from typing import Final

from contextfold.dialects import Dialect

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
    return dialect.is_overflow(status, error, fallback)


def reported_sizes(dialect: Dialect, content: bytes) -> tuple[int, int] | None:
    """``(window, prompt)`` in the upstream's own tokens, when its overflow error says
    both (:meth:`~contextfold.dialects.base.Dialect.reported_sizes`: OpenAI's "maximum
    context length is N tokens. However, your messages resulted in M tokens", vLLM's
    "... you requested M tokens (P in the messages ...", Anthropic's "prompt is too
    long: M tokens > N maximum"); else ``None``."""
    return dialect.reported_sizes(content[:8_192].decode("utf-8", "replace"))


def failed_retry(why: str) -> str:
    """The ``x-contextfold-error`` sent with the upstream's original overflow error."""
    return f"{_PREFIX}; {why}; its original error is relayed"
