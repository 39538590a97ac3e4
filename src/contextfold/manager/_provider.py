"""An Amplifier provider as a :class:`~contextfold.transports.base.CompletionTransport`.

Amplifier providers answer ``await provider.complete(ChatRequest) -> ChatResponse``
(``amplifier_core.message_models``). :class:`ProviderTransport` lets the manager's
summarizer use one: the conversation goes out as Amplifier message dicts
(:func:`~contextfold.manager._amplifier.to_amplifier`, the system prompt first), the
reply's blocks come back as contextfold blocks, its ``usage`` as a
:class:`~contextfold.transports.base.Usage`.

Whatever the provider raises becomes a :class:`~contextfold.errors.TransportError`
subclass chosen by the exception's class name in Amplifier's ``llm_errors``
(``ContextLengthError`` → :class:`~contextfold.errors.ContextOverflowError`,
``RateLimitError``, ``AuthenticationError``, ``ProviderUnavailableError``,
``LLMTimeoutError``, ``InvalidRequestError`` ...), its text redacted and without the
provider's exception chained, so no credential it may carry travels on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from contextfold._secrets import Secrets
from contextfold.blocks import ContentBlock, TextBlock, ThinkingBlock, ToolUseBlock
from contextfold.errors import (
    AuthenticationError,
    BadRequestError,
    ContextfoldError,
    ContextOverflowError,
    ProviderUnavailableError,
    RateLimitError,
    ResponseFormatError,
    TransportError,
    TransportTimeoutError,
)
from contextfold.manager._amplifier import block_from_native, to_amplifier
from contextfold.manager._budget import provider_limits
from contextfold.messages import Message
from contextfold.transports.base import (
    DEFAULT_CONTEXT_WINDOW,
    Completion,
    ModelInfo,
    StopReason,
    ToolSpec,
    Usage,
    lookup_model,
)

__all__ = ["ProviderTransport"]

_ERRORS: tuple[tuple[str, type[TransportError]], ...] = (
    ("ContextLengthError", ContextOverflowError),
    ("RateLimitError", RateLimitError),
    ("AuthenticationError", AuthenticationError),
    ("LLMTimeoutError", TransportTimeoutError),
    ("TimeoutError", TransportTimeoutError),
    ("ProviderUnavailableError", ProviderUnavailableError),
    ("InvalidRequestError", BadRequestError),
    ("NotFoundError", BadRequestError),
    ("ContentFilterError", BadRequestError),
)

_STOPS: dict[str, StopReason] = {
    "stop": "end_turn",
    "end_turn": "end_turn",
    "length": "max_tokens",
    "max_tokens": "max_tokens",
    "max_output_tokens": "max_tokens",
    "tool_use": "tool_use",
    "tool_calls": "tool_use",
    "stop_sequence": "stop_sequence",
    "refusal": "refusal",
    "content_filter": "refusal",
}


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _usage(raw: object) -> Usage:
    if not isinstance(raw, Mapping):
        return Usage(0, 0, estimated=True)
    read, write = _count(raw.get("cache_read_tokens")), _count(raw.get("cache_write_tokens"))
    total = max(_count(raw.get("input_tokens")), read + write)
    return Usage(total, _count(raw.get("output_tokens")), read, write)


def completion_from(response: object, model: str) -> Completion:
    """An Amplifier ``ChatResponse`` (or its dict form) as a :class:`Completion`.

    Raises :class:`~contextfold.errors.ResponseFormatError` when it has no content
    list or holds malformed blocks.
    """
    dump = getattr(response, "model_dump", None)
    data = dump(mode="json") if callable(dump) else response
    if not isinstance(data, Mapping) or not isinstance(data.get("content"), list | None):
        raise ResponseFormatError(
            f"provider for {model} answered {type(response).__name__}, not a ChatResponse",
            model=model,
        )
    content: list[ContentBlock] = []
    try:
        for block in data.get("content") or []:
            parsed = block_from_native(block, "the provider's reply")
            if isinstance(parsed, TextBlock | ThinkingBlock | ToolUseBlock):
                content.append(parsed)
        seen = {b.id for b in content if isinstance(b, ToolUseBlock)}
        for call in data.get("tool_calls") or []:
            arguments = call.get("arguments") if isinstance(call, Mapping) else None
            use = block_from_native(
                {"type": "tool_call", **dict(call), "input": arguments or {}}, "a tool call"
            )
            if isinstance(use, ToolUseBlock) and use.id not in seen:
                content.append(use)
    except (ValueError, TypeError) as exc:
        raise ResponseFormatError(f"provider for {model}: {exc}", model=model) from None
    reason = data.get("finish_reason")
    stop = _STOPS.get(reason, "end_turn") if isinstance(reason, str) else "end_turn"
    if stop == "end_turn" and any(isinstance(b, ToolUseBlock) for b in content):
        stop = "tool_use"
    return Completion(content, stop, _usage(data.get("usage")), model)


def translate(exc: Exception, provider: str, model: str) -> TransportError:
    """``exc`` (raised by an Amplifier provider) as the matching :class:`TransportError`."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    kind = next((mapped for name, mapped in _ERRORS if name in names), TransportError)
    text = Secrets(()).text(f"{provider} failed: {type(exc).__name__}: {exc}")
    return kind(text, provider=provider, model=model)


class ProviderTransport:
    """Sends the summarizer's requests through an Amplifier provider.

    Build it with :meth:`wrap`, which reads the provider's limits (as the request
    budget does; unknown limits give 128,000 / 8,192 tokens). The request is an
    ``amplifier_core`` ``ChatRequest`` (so amplifier-core must be importable, as it is
    wherever an Amplifier provider runs); see the module docstring for the reply and
    the errors.
    """

    def __init__(self, provider: Any, model: ModelInfo) -> None:
        self.provider = provider
        self._model = model
        name = getattr(provider, "name", None)
        self.name = name if isinstance(name, str) and name else type(provider).__name__

    @classmethod
    async def wrap(cls, provider: Any) -> ProviderTransport:
        name = getattr(provider, "name", None)
        label = name if isinstance(name, str) and name else type(provider).__name__
        limits = await provider_limits(provider)
        if limits is None or limits[1] >= limits[0]:
            return cls(provider, ModelInfo(label, DEFAULT_CONTEXT_WINDOW))
        window, max_output = limits
        info = lookup_model(label, context_window=window, max_output_tokens=max_output or None)
        return cls(provider, info)

    @property
    def model(self) -> ModelInfo:
        return self._model

    def _request(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], system: str | None
    ) -> Any:
        try:
            from amplifier_core.message_models import ChatRequest
        except ImportError as exc:
            raise TransportError(
                "summarizing with an Amplifier provider needs the 'amplifier' extra: "
                "pip install 'contextfold[amplifier]'",
                provider=self.name,
            ) from exc
        wires = ([{"role": "system", "content": system}] if system else []) + to_amplifier(messages)
        specs = [
            {"name": t.name, "description": t.description, "parameters": t.input_schema}
            for t in tools
        ]
        try:
            return ChatRequest.model_validate({"messages": wires, "tools": specs or None})
        except ValueError as exc:
            raise BadRequestError(
                f"the summary request is not a valid ChatRequest: {exc}", provider=self.name
            ) from None

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        system: str | None = None,
    ) -> Completion:
        request = self._request(messages, tools, system)
        try:
            response = await self.provider.complete(request)
        except ContextfoldError:
            raise
        except Exception as exc:
            error = translate(exc, self.name, self._model.name)
        else:
            return completion_from(response, self._model.name)
        raise error  # outside the handler: the provider's exception is not even __context__

    def __repr__(self) -> str:
        return f"ProviderTransport({self.name!r})"
