"""contextfold: long-running LLM agents that never run out of context.

The public API is importable from here and from the concept modules
(``contextfold.messages``, ``contextfold.context``, ``contextfold.compaction``, ...).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from contextfold.agent import Agent, Tool, tool
from contextfold.blocks import (
    ContentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    from_dict,
    to_dict,
)
from contextfold.compaction import (
    DEFAULT_PROMPT,
    AutoCompactStore,
    CompactionEvent,
    CompactionResult,
    compact_context,
    compaction_limit,
)
from contextfold.context import (
    Compactable,
    CompactionLocking,
    ContextStore,
    MemoryContextStore,
    SessionInfo,
)
from contextfold.errors import (
    AuthenticationError,
    BadRequestError,
    CompactionError,
    ContextfoldError,
    ContextOverflowError,
    CorruptRecordError,
    HistoryValidationError,
    MaxIterationsError,
    PromptError,
    ProviderUnavailableError,
    RateLimitError,
    ResponseFormatError,
    SchemaVersionError,
    SessionNotFoundError,
    StoreError,
    StubExhaustedError,
    SummaryRejectedError,
    TransportConnectionError,
    TransportError,
    TransportTimeoutError,
)
from contextfold.messages import Message, Role
from contextfold.prompts import Prompt, builtin_prompt, load_prompt
from contextfold.transports.base import (
    Completion,
    CompletionTransport,
    ModelInfo,
    StopReason,
    StreamingTransport,
    ToolSpec,
    Usage,
    lookup_model,
)
from contextfold.validation import history_problems, validate_history

try:
    __version__ = version("contextfold")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

__all__ = [
    "DEFAULT_PROMPT",
    "Agent",
    "AuthenticationError",
    "AutoCompactStore",
    "BadRequestError",
    "Compactable",
    "CompactionError",
    "CompactionEvent",
    "CompactionLocking",
    "CompactionResult",
    "Completion",
    "CompletionTransport",
    "ContentBlock",
    "ContextOverflowError",
    "ContextStore",
    "ContextfoldError",
    "CorruptRecordError",
    "HistoryValidationError",
    "ImageBlock",
    "MaxIterationsError",
    "MemoryContextStore",
    "Message",
    "ModelInfo",
    "Prompt",
    "PromptError",
    "ProviderUnavailableError",
    "RateLimitError",
    "ResponseFormatError",
    "Role",
    "SchemaVersionError",
    "SessionInfo",
    "SessionNotFoundError",
    "StopReason",
    "StoreError",
    "StreamingTransport",
    "StubExhaustedError",
    "SummaryRejectedError",
    "TextBlock",
    "ThinkingBlock",
    "Tool",
    "ToolResultBlock",
    "ToolSpec",
    "ToolUseBlock",
    "TransportConnectionError",
    "TransportError",
    "TransportTimeoutError",
    "Usage",
    "__version__",
    "builtin_prompt",
    "compact_context",
    "compaction_limit",
    "from_dict",
    "history_problems",
    "load_prompt",
    "lookup_model",
    "to_dict",
    "tool",
    "validate_history",
]
