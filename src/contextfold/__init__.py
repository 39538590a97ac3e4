"""contextfold: long-running LLM agents that never run out of context.

The public API is importable from here and from the concept modules
(``contextfold.messages``, ``contextfold.stores``, ``contextfold.compaction``, ...).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

from contextfold.agent import Agent, Tool, tool
from contextfold.blocks import (
    ContentBlock,
    ImageBlock,
    OpaqueBlock,
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
    CompactionSettings,
    FactCoverage,
    compact_context,
    compaction_limit,
)
from contextfold.errors import (
    AuthenticationError,
    BadRequestError,
    CompactionError,
    ContextfoldError,
    ContextOverflowError,
    CorruptRecordError,
    HistoryConflictError,
    HistoryValidationError,
    MaxIterationsError,
    NothingToUndoError,
    PromptError,
    ProviderUnavailableError,
    RateLimitError,
    RecallError,
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
from contextfold.formats import from_anthropic, from_openai, to_anthropic, to_openai
from contextfold.manager import CompactingContextManager, ContextManager, EventHooks
from contextfold.messages import Message, Role
from contextfold.prompts import Prompt, builtin_prompt, load_prompt
from contextfold.recall import recall_tool
from contextfold.stores import (
    ArchivedMessage,
    Archiving,
    Compactable,
    CompactionLocking,
    CompactionRecord,
    ContextStore,
    JournalEntry,
    Journaling,
    MemoryContextStore,
    PrefixReplacing,
    SessionInfo,
    SnapshotReplacing,
    SQLiteContextStore,
)
from contextfold.strategies import (
    ContextStrategy,
    FitContextWindow,
    MaskToolOutputs,
    Pipeline,
    TrimRounds,
    TruncateToolOutputs,
)
from contextfold.tokens import (
    CalibratedTokenCounter,
    HeuristicTokenCounter,
    TiktokenCounter,
    approx_token_counter,
    count_message_tokens,
    count_tokens,
)
from contextfold.transports._retry import RetryPolicy
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

if TYPE_CHECKING:
    from contextfold.stores.postgres import PostgresContextStore
    from contextfold.transports.anthropic import AnthropicTransport
    from contextfold.transports.openai import OpenAITransport

try:
    __version__ = version("contextfold")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

__all__ = [
    "DEFAULT_PROMPT",
    "Agent",
    "AnthropicTransport",
    "ArchivedMessage",
    "Archiving",
    "AuthenticationError",
    "AutoCompactStore",
    "BadRequestError",
    "CalibratedTokenCounter",
    "Compactable",
    "CompactingContextManager",
    "CompactionError",
    "CompactionEvent",
    "CompactionLocking",
    "CompactionRecord",
    "CompactionResult",
    "CompactionSettings",
    "Completion",
    "CompletionTransport",
    "ContentBlock",
    "ContextManager",
    "ContextOverflowError",
    "ContextStore",
    "ContextStrategy",
    "ContextfoldError",
    "CorruptRecordError",
    "EventHooks",
    "FactCoverage",
    "FitContextWindow",
    "HeuristicTokenCounter",
    "HistoryConflictError",
    "HistoryValidationError",
    "ImageBlock",
    "JournalEntry",
    "Journaling",
    "MaskToolOutputs",
    "MaxIterationsError",
    "MemoryContextStore",
    "Message",
    "ModelInfo",
    "NothingToUndoError",
    "OpaqueBlock",
    "OpenAITransport",
    "Pipeline",
    "PostgresContextStore",
    "PrefixReplacing",
    "Prompt",
    "PromptError",
    "ProviderUnavailableError",
    "RateLimitError",
    "RecallError",
    "ResponseFormatError",
    "RetryPolicy",
    "Role",
    "SQLiteContextStore",
    "SchemaVersionError",
    "SessionInfo",
    "SessionNotFoundError",
    "SnapshotReplacing",
    "StopReason",
    "StoreError",
    "StreamingTransport",
    "StubExhaustedError",
    "SummaryRejectedError",
    "TextBlock",
    "ThinkingBlock",
    "TiktokenCounter",
    "Tool",
    "ToolResultBlock",
    "ToolSpec",
    "ToolUseBlock",
    "TransportConnectionError",
    "TransportError",
    "TransportTimeoutError",
    "TrimRounds",
    "TruncateToolOutputs",
    "Usage",
    "__version__",
    "approx_token_counter",
    "builtin_prompt",
    "compact_context",
    "compaction_limit",
    "count_message_tokens",
    "count_tokens",
    "from_anthropic",
    "from_dict",
    "from_openai",
    "history_problems",
    "load_prompt",
    "lookup_model",
    "recall_tool",
    "to_anthropic",
    "to_dict",
    "to_openai",
    "tool",
    "validate_history",
]


def __getattr__(name: str) -> Any:
    # The provider transports import their SDKs; load them only when asked for.
    if name in ("AnthropicTransport", "OpenAITransport"):
        from contextfold import transports

        return getattr(transports, name)
    if name == "PostgresContextStore":  # psycopg is the optional `postgres` extra
        from contextfold.stores.postgres import PostgresContextStore

        return PostgresContextStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
