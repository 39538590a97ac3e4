"""The one exception tree of contextfold.

Every error the library raises on purpose derives from :class:`ContextfoldError`.
Provider SDK and HTTP exceptions are translated at the transport boundary
(``raise Mapped(...) from None``: the SDK's exception holds the request and its
credentials, so it is not chained; the status, body and request id are carried
over, scrubbed), so callers never need to import an SDK to catch a failure.
Errors that report invalid input also derive from :class:`ValueError`.

::

    ContextfoldError
    ├── TransportError                 a model call failed (.status .body .request_id .model)
    │   ├── AuthenticationError        401/403: the API key is missing or wrong
    │   ├── BadRequestError            400/404/422: the request itself is wrong; not retried
    │   │   └── ContextOverflowError   the prompt is longer than the model's window
    │   ├── RateLimitError             429 (.retry_after)
    │   ├── ProviderUnavailableError   5xx or "overloaded" (529)
    │   ├── TransportTimeoutError      the request timed out
    │   ├── TransportConnectionError   the server could not be reached
    │   └── ResponseFormatError        the reply could not be understood
    ├── StubExhaustedError             a StubTransport was called with no reply left
    ├── StoreError                     a context store failed
    │   ├── SessionNotFoundError       no session with that id (also KeyError)
    │   ├── SchemaVersionError         the database was written by a newer contextfold
    │   ├── CorruptRecordError         a stored row cannot be decoded (also ValueError)
    │   ├── HistoryConflictError       the history changed since it was read; nothing written
    │   ├── NothingToUndoError         undo() found nothing left to undo (also LookupError)
    │   └── RecallError                nothing archived under a handle, .handle (also LookupError)
    ├── CompactionError                compaction could not produce a valid history
    │   └── SummaryRejectedError       the summarizer's reply was unusable (.reason)
    ├── HistoryValidationError         a history breaks provider rules (also ValueError)
    ├── MaxIterationsError             the agent loop hit max_iterations
    └── PromptError                    a prompt file or template is invalid (also ValueError)

Retryable failures are :data:`RETRYABLE_ERRORS`.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "RETRYABLE_ERRORS",
    "AuthenticationError",
    "BadRequestError",
    "CompactionError",
    "ContextOverflowError",
    "ContextfoldError",
    "CorruptRecordError",
    "HistoryConflictError",
    "HistoryValidationError",
    "MaxIterationsError",
    "NothingToUndoError",
    "PromptError",
    "ProviderUnavailableError",
    "RateLimitError",
    "RecallError",
    "ResponseFormatError",
    "SchemaVersionError",
    "SessionNotFoundError",
    "StoreError",
    "StubExhaustedError",
    "SummaryRejectedError",
    "TransportConnectionError",
    "TransportError",
    "TransportTimeoutError",
]


class ContextfoldError(Exception):
    """Base class of every error contextfold raises on purpose."""


class TransportError(ContextfoldError):
    """A model call failed.

    ``status`` is the HTTP status when there was one, ``body`` the provider's error
    payload, ``request_id`` the provider's id of the failed request (quote it to its
    support), ``provider`` and ``model`` say where. None of them, nor the message,
    holds a credential; and an error raised by a transport in place of an SDK's or
    ``httpx``'s exception does not chain that exception (it carries the request, and
    with it the credentials).
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        model: str | None = None,
        status: int | None = None,
        body: Any = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.model = model
        self.status = status
        self.body = body
        self.request_id = request_id


class AuthenticationError(TransportError):
    """The provider refused the credentials; the message names the variable to set."""


class BadRequestError(TransportError):
    """The provider rejected the request as malformed; retrying will not help."""


class ContextOverflowError(BadRequestError):
    """The request is longer than the model's context window.

    Agents and :class:`~contextfold.compaction.AutoCompactStore` react to it by
    forcing a compaction and retrying once.
    """


class RateLimitError(TransportError):
    """429: too many requests. ``retry_after`` is the server's hint in seconds, if any."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ProviderUnavailableError(TransportError):
    """A 5xx status or an "overloaded" answer; usually transient."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class TransportTimeoutError(TransportError):
    """The request timed out."""


class TransportConnectionError(TransportError):
    """The server could not be reached."""


class ResponseFormatError(TransportError):
    """The provider's reply could not be understood."""


class StubExhaustedError(ContextfoldError):
    """A :class:`~contextfold.testing.StubTransport` was called with no scripted reply left."""


class StoreError(ContextfoldError):
    """A context store operation failed."""


class SessionNotFoundError(StoreError, KeyError):
    """No session with the requested id exists."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "session not found"


class SchemaVersionError(StoreError):
    """The database schema is newer than this version of contextfold understands."""


class CorruptRecordError(StoreError, ValueError):
    """A stored record cannot be decoded; the message names the session and row."""


class HistoryConflictError(StoreError):
    """A compare-and-swap rewrite found the history changed since it was read.

    Raised by ``replace_prefix(..., expected=...)`` when the messages it was to replace
    are no longer the ones the caller read (another process rewrote them meanwhile);
    nothing was written. Read the history again and decide anew.
    """


class NothingToUndoError(StoreError, LookupError):
    """``undo()`` found no compaction left to undo (none yet, or all undone already),
    or the one named cannot be undone; nothing was written."""


class RecallError(StoreError, LookupError):
    """The store's archive holds no original for ``handle`` (or the store keeps none).

    Raised by :func:`contextfold.recall.recall`; the recall tool turns it into an error
    result the model reads, so a mistyped handle never ends the agent's turn.
    """

    def __init__(self, message: str, *, handle: str) -> None:
        super().__init__(message)
        self.handle = handle

    def __str__(self) -> str:
        return str(self.args[0])


class CompactionError(ContextfoldError):
    """Compaction could not produce a valid history; the store was left untouched."""


class SummaryRejectedError(CompactionError):
    """The summarizer's reply was unusable and was not committed.

    ``reason`` is one of ``"empty"``, ``"refusal"``, ``"truncated"`` (cut at the
    output limit), ``"incomplete"`` (another stop than a normal end, e.g.
    ``pause_turn``), ``"tool_call"``, ``"format"`` (a ``<summary>`` tag never
    closed), ``"unrelated"`` (a short untagged reply that names nothing of the
    conversation), ``"too_long"`` (over the summary budget) or ``"not_smaller"`` (an
    automatic compaction would not make the history smaller than the original;
    explicit ones, :func:`~contextfold.compaction.compact_context` and
    ``AutoCompactStore.compact()``, do not check it).
    """

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class HistoryValidationError(ContextfoldError, ValueError):
    """A history breaks a provider's rules; ``problems`` lists every violation found."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


class MaxIterationsError(ContextfoldError):
    """The agent loop reached ``max_iterations`` while the model still asked for tools."""

    def __init__(self, iterations: int) -> None:
        super().__init__(
            f"agent stopped after {iterations} model calls while the model still requested "
            "tools; raise max_iterations if the task needs more steps"
        )
        self.iterations = iterations


class PromptError(ContextfoldError, ValueError):
    """A prompt file or template is missing or uses an unknown variable."""


RETRYABLE_ERRORS: tuple[type[TransportError], ...] = (
    RateLimitError,
    ProviderUnavailableError,
    TransportTimeoutError,
    TransportConnectionError,
)
