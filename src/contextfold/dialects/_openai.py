"""What OpenAI's two wire formats (:mod:`.chat`, :mod:`.responses`) share.

The error prefix that stands in for a tool result's missing error flag, the error
JSON OpenAI's clients parse, and the context-overflow errors of OpenAI and of the
OpenAI-compatible servers (vLLM) behind both formats.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from contextfold.dialects._common import sizes_of

__all__ = [
    "TOOL_ERROR_PREFIX",
    "error_body",
    "holds_json_object",
    "is_overflow",
    "mark_error",
    "reported_sizes",
]

TOOL_ERROR_PREFIX: Final = "Error: "
"""What an error result's text starts with (OpenAI's tool results have no error flag)."""

_OVERFLOW: Final = (
    "maximum context length",
    "context_length_exceeded",
    "exceed_context_size",
    "exceeds the available context size",
    "exceeds the context window",  # the Responses API
    "context length is only",  # vLLM: "... However, the model's context length is only N"
)
_NUMBER: Final = r"(\d[\d,]{0,12})"
_WINDOW: Final = re.compile(
    rf"maximum context length is {_NUMBER} tokens|context length is only {_NUMBER} tokens",
    re.IGNORECASE,
)
_PROMPTS: Final = tuple(  # best first: "you requested" counts the completion too
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"\({_NUMBER} in the messages",
        rf"resulted in {_NUMBER} tokens",
        rf"you requested {_NUMBER} tokens",
    )
)
_ERROR_TYPES: Final[dict[int, str]] = {
    400: "invalid_request_error",
    404: "invalid_request_error",
    405: "invalid_request_error",
    413: "invalid_request_error",
    431: "invalid_request_error",
    500: "server_error",
    502: "upstream_error",
    504: "upstream_error",
}


def mark_error(text: str) -> str:
    """``text`` starting with :data:`TOOL_ERROR_PREFIX` (added only when missing)."""
    return text if text.startswith(TOOL_ERROR_PREFIX) else TOOL_ERROR_PREFIX + text


def holds_json_object(text: str) -> bool:
    """Whether ``text`` is the JSON text of an object (a tool call's arguments)."""
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


def error_body(status: int, message: str) -> dict[str, Any]:
    """``{"error": {"message", "type", "param", "code"}}`` with OpenAI's error type."""
    code = "request_too_large" if status == 413 else None
    kind = _ERROR_TYPES.get(status, "api_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def is_overflow(status: int | None, error: Any, fallback: str) -> bool:
    """OpenAI's ``context_length_exceeded`` and "maximum context length" (Chat
    Completions and Responses), vLLM's "context length is only", on a 400 or 413 (or
    inside a stream: no status)."""
    error = error if isinstance(error, Mapping) else {}
    message = str(error.get("message") or fallback).lower()
    code = str(error.get("code") or "").lower()
    return status in (None, 400, 413) and any(m in f"{code} {message}" for m in _OVERFLOW)


def reported_sizes(text: str) -> tuple[int, int] | None:
    """``(window, prompt)`` from OpenAI's "maximum context length is N tokens. However,
    your messages resulted in M tokens", or vLLM's "... you requested M tokens (P in
    the messages ..."."""
    window = _WINDOW.search(text)
    prompt = next((m for m in (p.search(text) for p in _PROMPTS) if m is not None), None)
    if window is None or prompt is None:
        return None
    return sizes_of(window, prompt)
