"""Offline transports for tests, demos and examples.

:class:`StubTransport` answers from a script; :class:`FunctionTransport` answers by
calling your function. Both record every request they receive (messages, tools,
system, output cap) in ``requests`` so a test can assert exactly what a model saw, both report
realistic usage (input tokens grow with the conversation they are sent), and both
can enforce their model's context window by raising
:class:`~contextfold.errors.ContextOverflowError` like a real provider would.

Their replies are *scripted* (``scripted=True``, the default): written by a person,
not generated from the prompt, so compaction does not insist that a summary comes
inside the ``<summary>`` tags its built-in prompts ask a model for (refusals and
every other check still apply). ``scripted=False`` makes a stub judged like a model.

>>> stub = StubTransport([make_text_response("Done!")])
"""

from __future__ import annotations

import inspect
import json
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from contextfold.blocks import ContentBlock, TextBlock, ToolUseBlock
from contextfold.errors import (
    ContextOverflowError,
    ProviderUnavailableError,
    RateLimitError,
    StubExhaustedError,
    TransportTimeoutError,
)
from contextfold.messages import Message
from contextfold.tokens import TokenCounter, approx_token_counter, count_tokens
from contextfold.transports.base import (
    Completion,
    ModelInfo,
    StopReason,
    ToolSpec,
    Usage,
    check_output_cap,
)

__all__ = [
    "FunctionTransport",
    "StubRequest",
    "StubResponse",
    "StubTransport",
    "make_overflow_error",
    "make_rate_limit_error",
    "make_text_response",
    "make_timeout_error",
    "make_tool_use_response",
    "make_unavailable_error",
]

STUB_MODEL = ModelInfo("stub-model", 128_000, 8_192)


@dataclass(frozen=True, slots=True)
class StubRequest:
    """One request as a stub transport received it (copies, safe to keep)."""

    messages: list[Message]
    tools: list[ToolSpec]
    system: str | None
    input_tokens: int
    max_output_tokens: int | None = None
    """The output cap the caller asked for (``complete(..., max_output_tokens=N)``)."""

    @property
    def text(self) -> str:
        """Every text the model was shown, system included, for easy assertions."""
        parts = [self.system or ""]
        parts.extend(m.text for m in self.messages)
        return "\n".join(parts)


@dataclass(frozen=True, slots=True)
class StubResponse:
    """A scripted reply; ``usage=None`` lets the transport compute realistic usage."""

    content: list[ContentBlock]
    stop_reason: StopReason = "end_turn"
    usage: Usage | None = None


Reply: TypeAlias = Completion | StubResponse | BaseException
Handler: TypeAlias = Callable[[StubRequest], Reply | Awaitable[Reply]]


def make_text_response(
    text: str, *, usage: Usage | None = None, stop_reason: StopReason = "end_turn"
) -> StubResponse:
    """A reply holding ``text``."""
    return StubResponse([TextBlock(text)], stop_reason, usage)


_tool_counter = 0


def make_tool_use_response(
    name: str,
    input: dict[str, Any] | None = None,
    *,
    id: str | None = None,
    text: str | None = None,
    calls: Sequence[tuple[str, dict[str, Any]]] = (),
    usage: Usage | None = None,
) -> StubResponse:
    """A reply that calls tool ``name`` with ``input`` (plus any extra ``calls``).

    Ids are generated (``toolu_stub_N``) unless ``id`` is given for the first call.
    """
    global _tool_counter
    content: list[ContentBlock] = [TextBlock(text)] if text else []
    for i, (call_name, call_input) in enumerate([(name, input or {}), *calls]):
        _tool_counter += 1
        call_id = id if (i == 0 and id) else f"toolu_stub_{_tool_counter}"
        content.append(ToolUseBlock(call_id, call_name, dict(call_input)))
    return StubResponse(content, "tool_use", usage)


def make_rate_limit_error(retry_after: float | None = None) -> RateLimitError:
    return RateLimitError(
        "rate limited (scripted)", retry_after=retry_after, provider="stub", status=429
    )


def make_overflow_error(message: str = "prompt is too long (scripted)") -> ContextOverflowError:
    return ContextOverflowError(message, provider="stub", status=400)


def make_timeout_error() -> TransportTimeoutError:
    return TransportTimeoutError("request timed out (scripted)", provider="stub")


def make_unavailable_error() -> ProviderUnavailableError:
    return ProviderUnavailableError("overloaded (scripted)", provider="stub", status=529)


class _RecordingTransport:
    """Shared machinery: request recording, usage estimation, window enforcement, streaming."""

    def __init__(
        self,
        *,
        model: ModelInfo | str | None,
        counter: TokenCounter,
        enforce_window: bool,
        stream_chunk_chars: int,
        scripted: bool,
    ) -> None:
        if isinstance(model, str):
            model = ModelInfo(model, STUB_MODEL.context_window, STUB_MODEL.max_output_tokens)
        self._model = model or STUB_MODEL
        self.counter = counter
        self.enforce_window = enforce_window
        self.stream_chunk_chars = stream_chunk_chars
        self.scripted = scripted
        """Replies are written by a person, not a model following the prompt."""
        self.requests: list[StubRequest] = []
        self.usage_total = Usage(0, 0)

    @property
    def model(self) -> ModelInfo:
        return self._model

    def estimate_input_tokens(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], system: str | None
    ) -> int:
        """What a provider would report as input tokens for this request (an estimate)."""
        tool_tokens = sum(
            self.counter(t.name + t.description + json.dumps(t.input_schema)) for t in tools
        )
        return count_tokens(messages, self.counter, system=system) + tool_tokens

    async def _next_reply(self, request: StubRequest) -> Reply:
        raise NotImplementedError

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        system: str | None = None,
        *,
        max_output_tokens: int | None = None,
    ) -> Completion:
        """The next reply; ``max_output_tokens`` is recorded, not enforced."""
        if max_output_tokens is not None:
            check_output_cap(max_output_tokens)
        input_tokens = self.estimate_input_tokens(messages, tools, system)
        request = StubRequest(
            [m.copy() for m in messages], list(tools), system, input_tokens, max_output_tokens
        )
        self.requests.append(request)
        if self.enforce_window and input_tokens > self._model.input_budget:
            raise ContextOverflowError(
                f"prompt is too long: {input_tokens} tokens > {self._model.input_budget} "
                f"allowed for {self._model.name}",
                provider="stub",
                model=self._model.name,
                status=400,
            )
        reply = await self._next_reply(request)
        if isinstance(reply, BaseException):
            raise reply
        if not isinstance(reply, StubResponse | Completion):
            raise TypeError(
                "a scripted reply or handler must give a StubResponse (e.g. "
                f"make_text_response(...)), a Completion or an exception; got {reply!r}"
            )
        if isinstance(reply, StubResponse):
            output = sum(
                self.counter(b.text if isinstance(b, TextBlock) else repr(b)) for b in reply.content
            )
            reply = Completion(
                list(reply.content),
                reply.stop_reason,
                reply.usage or Usage(input_tokens, output),
                self._model.name,
            )
        self.usage_total = self.usage_total + reply.usage
        return reply

    async def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        system: str | None = None,
        *,
        max_output_tokens: int | None = None,
    ) -> AsyncIterator[str | Completion]:
        """Yield the reply's text in chunks, then the full :class:`Completion`."""
        completion = await self.complete(
            messages, tools, system, max_output_tokens=max_output_tokens
        )
        text = completion.text
        for start in range(0, len(text), self.stream_chunk_chars):
            yield text[start : start + self.stream_chunk_chars]
        yield completion


class StubTransport(_RecordingTransport):
    """A transport that plays back scripted replies in order.

    Each scripted item is a :class:`StubResponse` (from :func:`make_text_response` or
    :func:`make_tool_use_response`), a ready :class:`Completion`, an exception to
    raise (see :func:`make_rate_limit_error` and friends), or a callable taking the
    :class:`StubRequest` and returning one of those. ``StubTransport([])`` is valid;
    calling it with nothing left raises :class:`~contextfold.errors.StubExhaustedError`.
    """

    def __init__(
        self,
        responses: Iterable[Reply | Handler] = (),
        *,
        model: ModelInfo | str | None = None,
        counter: TokenCounter = approx_token_counter,
        enforce_window: bool = False,
        stream_chunk_chars: int = 8,
        scripted: bool = True,
    ) -> None:
        super().__init__(
            model=model,
            counter=counter,
            enforce_window=enforce_window,
            stream_chunk_chars=stream_chunk_chars,
            scripted=scripted,
        )
        self._script: deque[Reply | Handler] = deque(responses)

    @property
    def remaining(self) -> int:
        """How many scripted replies are left."""
        return len(self._script)

    def add(self, *responses: Reply | Handler) -> None:
        """Append more scripted replies."""
        self._script.extend(responses)

    async def _next_reply(self, request: StubRequest) -> Reply:
        if not self._script:
            raise StubExhaustedError(
                f"StubTransport was called (request #{len(self.requests)}) but has no scripted "
                "reply left; add more with StubTransport([...]) or .add(...)"
            )
        item = self._script.popleft()
        if isinstance(item, Completion | StubResponse | BaseException):
            return item
        return await _call(item, request)


class FunctionTransport(_RecordingTransport):
    """A transport that answers every request by calling ``handler(request)``.

    The handler (sync or async) gets the :class:`StubRequest` and returns a
    :class:`StubResponse`, a :class:`Completion`, or an exception to raise.
    """

    def __init__(
        self,
        handler: Handler,
        *,
        model: ModelInfo | str | None = None,
        counter: TokenCounter = approx_token_counter,
        enforce_window: bool = False,
        stream_chunk_chars: int = 8,
        scripted: bool = True,
    ) -> None:
        super().__init__(
            model=model,
            counter=counter,
            enforce_window=enforce_window,
            stream_chunk_chars=stream_chunk_chars,
            scripted=scripted,
        )
        self.handler = handler

    async def _next_reply(self, request: StubRequest) -> Reply:
        return await _call(self.handler, request)


async def _call(handler: Handler, request: StubRequest) -> Reply:
    result = handler(request)
    if inspect.isawaitable(result):
        result = await result
    return result
