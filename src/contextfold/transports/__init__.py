"""Provider transports: the one seam between contextfold and a model.

See :mod:`contextfold.transports.base` for the protocol and data types.
Provider transports live in their own modules and are imported lazily so that
``import contextfold.transports`` never imports an SDK.
"""

from __future__ import annotations

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

__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "DEFAULT_MAX_OUTPUT_TOKENS",
    "MODEL_REGISTRY",
    "Completion",
    "CompletionTransport",
    "ModelInfo",
    "StopReason",
    "StreamingTransport",
    "ToolSpec",
    "Usage",
    "lookup_model",
]
