"""Provider transports: the one seam between contextfold and a model.

See :mod:`contextfold.transports.base` for the protocol and data types.
Provider transports live in their own modules and are imported lazily so that
``import contextfold.transports`` never imports an SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from contextfold.transports._retry import RetryPolicy
from contextfold.transports.base import (
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_MAX_OUTPUT_TOKENS,
    MODEL_REGISTRY,
    Completion,
    CompletionTransport,
    ModelInfo,
    StopReason,
    StreamingTransport,
    ToolSpec,
    Usage,
    lookup_model,
)

if TYPE_CHECKING:
    from contextfold.transports.anthropic import AnthropicTransport
    from contextfold.transports.openai import OpenAITransport

__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "DEFAULT_MAX_OUTPUT_TOKENS",
    "MODEL_REGISTRY",
    "AnthropicTransport",
    "Completion",
    "CompletionTransport",
    "ModelInfo",
    "OpenAITransport",
    "RetryPolicy",
    "StopReason",
    "StreamingTransport",
    "ToolSpec",
    "Usage",
    "lookup_model",
]

_LAZY = {
    "AnthropicTransport": "contextfold.transports.anthropic",
    "OpenAITransport": "contextfold.transports.openai",
}


def __getattr__(name: str) -> Any:
    """Import a provider transport (and its SDK) only when it is first asked for."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
