"""A transport on the official ``openai`` async SDK (Chat Completions).

>>> transport = OpenAITransport("gpt-4.1")                       # reads OPENAI_API_KEY
>>> local = OpenAITransport("qwen3:8b", base_url="http://localhost:11434/v1")  # Ollama

Works with OpenAI and with any OpenAI-compatible server (vLLM, llama.cpp, Ollama)
through ``base_url``; such servers need no API key. The history is sent in the
mapping of :func:`contextfold.formats.to_openai` (tool calls as ``tool_calls``, tool
results as ``role: "tool"``, images as data URLs). The output limit goes out as
``max_completion_tokens`` to reasoning models (o-series, gpt-5) and as ``max_tokens``
to the others - and only when it is known (a registry model or an explicit
``max_output_tokens``), so a small local model keeps its server's default. A call's
``max_output_tokens=`` cap is always sent (below the model's limit); a reasoning model
spends hidden reasoning tokens out of ``max_completion_tokens``, so it gets the cap plus
:data:`REASONING_ALLOWANCE` (OpenAI's advice: reserve about 25,000 for reasoning).

Usage: ``prompt_tokens`` already includes cached tokens; ``cached_tokens`` becomes
``cache_read_tokens``. A server that reports no usage gets a local estimate
(:func:`contextfold.tokens.count_tokens`) marked ``Usage(estimated=True)``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2
import openai
from openai.types import CompletionUsage
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from contextfold._secrets import Secrets
from contextfold.blocks import ContentBlock, TextBlock, ThinkingBlock
from contextfold.dialects.chat import CHAT, parse_openai_tool_call, to_openai
from contextfold.errors import ResponseFormatError, TransportError
from contextfold.messages import Message
from contextfold.tokens import approx_token_counter, count_tokens
from contextfold.transports._errors import Provider, missing_key_error, status_error
from contextfold.transports._retry import RetryPolicy
from contextfold.transports._sdk import SDKErrors, SDKTransport, resolve_key
from contextfold.transports.base import (
    MODEL_REGISTRY,
    Completion,
    StopReason,
    ToolSpec,
    Usage,
    check_output_cap,
    lookup_model,
)

__all__ = ["REASONING_ALLOWANCE", "OpenAITransport"]

REASONING_ALLOWANCE = 25_000
"""Tokens added to a reasoning model's output cap for the reasoning it does first."""

_FINISH_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}
_REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")
# Compatible servers ignore the key, but the SDK insists on one.
_NO_KEY = "no-key-required"


class OpenAITransport(SDKTransport[openai.AsyncOpenAI]):
    """A :class:`~contextfold.transports.base.StreamingTransport` for Chat Completions.

    Credentials: ``client=`` (an ``openai.AsyncOpenAI``, used with ``max_retries=0``),
    or ``api_key=``, or ``OPENAI_API_KEY``; without a ``base_url`` and with none of
    them the constructor raises :class:`~contextfold.errors.AuthenticationError`.
    ``http_client=`` (an ``httpx``/``httpx2`` ``AsyncClient``) is passed through to
    the client it builds. ``max_retries`` counts retries after the first attempt;
    ``retry=`` replaces the whole :class:`RetryPolicy`.
    """

    _errors = SDKErrors(openai.OpenAIError, openai.APITimeoutError, openai.APIConnectionError)

    def __init__(
        self,
        model: str,
        *,
        client: openai.AsyncOpenAI | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        http_client: httpx2.AsyncClient | None = None,
        timeout: float | None = None,
        max_output_tokens: int | None = None,
        context_window: int | None = None,
        max_retries: int = 3,
        retry: RetryPolicy | None = None,
        secret_headers: Iterable[str] = (),
    ) -> None:
        info = lookup_model(
            model, context_window=context_window, max_output_tokens=max_output_tokens
        )
        known = any(model == key or model.startswith(key + "-") for key in MODEL_REGISTRY)
        self.send_max_tokens = known or max_output_tokens is not None
        super().__init__(info, retry=retry, max_retries=max_retries, secret_headers=secret_headers)
        provider = Provider("openai", "OpenAI", "OPENAI_API_KEY", model)
        if client is not None:
            self._adopt(client.with_options(max_retries=0), provider, injected=client, key=None)
            return
        key = resolve_key(api_key, provider)
        if not key and base_url is None:
            raise missing_key_error(provider)
        options: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
        built = openai.AsyncOpenAI(
            api_key=key or _NO_KEY,
            base_url=base_url,
            http_client=http_client,
            max_retries=0,
            **options,
        )
        self._adopt(built, provider, injected=None, key=key, http_client=http_client)

    def request_params(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        system: str | None = None,
        *,
        max_output_tokens: int | None = None,
    ) -> dict[str, Any]:
        """The keyword arguments this transport passes to ``chat.completions.create``.

        ``max_output_tokens`` caps this reply below the model's output limit.
        """
        params: dict[str, Any] = {
            "model": self._model.name,
            "messages": to_openai(messages, system),
        }
        if tools:
            params["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.input_schema,
                    },
                }
                for t in tools
            ]
        reasoning = self._model.name.startswith(_REASONING_PREFIXES)
        key = "max_completion_tokens" if reasoning else "max_tokens"
        if max_output_tokens is not None:
            check_output_cap(max_output_tokens)
            allowance = REASONING_ALLOWANCE if reasoning else 0
            params[key] = min(max_output_tokens + allowance, self._model.max_output_tokens)
        elif self.send_max_tokens:
            params[key] = self._model.max_output_tokens
        return params

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        system: str | None = None,
        *,
        max_output_tokens: int | None = None,
    ) -> Completion:
        """One model call, retried on transient failures; see the module doc.

        ``max_output_tokens`` caps the reply (``stop_reason="max_tokens"`` when cut).
        """
        params = self.request_params(messages, tools, system, max_output_tokens=max_output_tokens)
        reply = await self._retried(
            lambda: self._client.chat.completions.create(**params), ChatCompletion
        )
        if not reply.choices:
            raise ResponseFormatError(
                "OpenAI's reply has no choices", provider="openai", model=self._model.name
            )
        choice = reply.choices[0]
        wire = choice.message.model_dump(mode="json")
        turn = _Turn(
            text=choice.message.content or "",
            reasoning=_reasoning(wire),
            calls=list(wire.get("tool_calls") or []),
            finish_reason=choice.finish_reason,
        )
        return turn.completion(self, reply.usage, reply.model, messages, tools, system)

    async def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        system: str | None = None,
        *,
        max_output_tokens: int | None = None,
    ) -> AsyncIterator[str | Completion]:
        """Yield text deltas as they arrive, then the full :class:`Completion`.

        Asks for a final usage chunk (``stream_options.include_usage``). A failure
        before the first delta is retried like :meth:`complete`; after it, raised.
        """
        params = self.request_params(messages, tools, system, max_output_tokens=max_output_tokens)
        params["stream_options"] = {"include_usage": True}

        async def attempt() -> AsyncGenerator[str | _Turn, None]:
            turn, chunks = _Turn(), 0
            async for chunk in await self._client.chat.completions.create(**params, stream=True):
                chunks += 1
                delta = turn.add(chunk)
                if delta:
                    yield delta
            if not chunks:
                raise self._unreadable("the reply is not a stream of chat completion chunks")
            yield turn

        async for item in self._retried_stream(attempt):
            if isinstance(item, str):
                yield item
            else:
                yield item.completion(self, item.usage, item.model, messages, tools, system)

    def _api_error(self, exc: Exception, secrets: Secrets) -> TransportError | None:
        if not isinstance(exc, openai.APIError):
            return None
        error = exc.body if isinstance(exc.body, dict) else {}
        status = exc.status_code if isinstance(exc, openai.APIStatusError) else None
        message = str(error.get("message") or exc.message)
        return status_error(
            self._provider,
            status=status,
            error_type=error.get("type") if isinstance(error.get("type"), str) else None,
            message=message,
            body=exc.body,
            headers=dict(exc.response.headers) if isinstance(exc, openai.APIStatusError) else None,
            overflow=CHAT.is_overflow(status, error, message),
            request_id=exc.request_id if isinstance(exc, openai.APIStatusError) else None,
            secrets=secrets,
        )


def _reasoning(wire: dict[str, Any]) -> str:
    # vLLM, DeepSeek and llama.cpp return reasoning as an extra field.
    value = wire.get("reasoning_content")
    return value if isinstance(value, str) else ""


@dataclass(slots=True)
class _Turn:
    """One reply as it accumulates, from a whole response or from stream chunks."""

    text: str = ""
    reasoning: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = None
    usage: CompletionUsage | None = None
    model: str = ""

    def add(self, chunk: ChatCompletionChunk) -> str:
        """Take one chunk in; return its text delta."""
        self.model = chunk.model or self.model
        if chunk.usage is not None:
            self.usage = chunk.usage
        if not chunk.choices:
            return ""
        choice = chunk.choices[0]
        self.finish_reason = choice.finish_reason or self.finish_reason
        delta = choice.delta
        self.reasoning += _reasoning(delta.model_dump(mode="json"))
        for call in delta.tool_calls or []:
            while len(self.calls) <= call.index:
                self.calls.append({"id": "", "function": {"name": "", "arguments": ""}})
            slot = self.calls[call.index]
            slot["id"] = call.id or slot["id"]
            if call.function is not None:
                slot["function"]["name"] += call.function.name or ""
                slot["function"]["arguments"] += call.function.arguments or ""
        self.text += delta.content or ""
        return delta.content or ""

    def completion(
        self,
        transport: OpenAITransport,
        usage: CompletionUsage | None,
        model: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        system: str | None,
    ) -> Completion:
        content: list[ContentBlock] = [ThinkingBlock(self.reasoning)] if self.reasoning else []
        if self.text:
            content.append(TextBlock(self.text))
        try:
            content += [parse_openai_tool_call(call, 0) for call in self.calls]
        except ValueError as exc:
            raise ResponseFormatError(
                f"could not read the model's tool call: {exc}",
                provider="openai",
                model=transport.model.name,
            ) from exc
        stop = _FINISH_REASONS.get(self.finish_reason or "stop", "end_turn")
        if self.calls and stop == "end_turn":
            stop = "tool_use"  # some compatible servers say "stop" after tool calls
        return Completion(
            content, stop, _usage(usage, content, messages, tools, system), model or ""
        )


def _usage(
    usage: CompletionUsage | None,
    content: list[ContentBlock],
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    system: str | None,
) -> Usage:
    if usage is not None and usage.prompt_tokens is not None:
        details = usage.prompt_tokens_details
        cached = (details.cached_tokens or 0) if details is not None else 0
        return Usage(
            usage.prompt_tokens,
            usage.completion_tokens or 0,
            cache_read_tokens=min(cached, usage.prompt_tokens),
        )
    tool_text = json.dumps(
        [[t.name, t.description, t.input_schema] for t in tools], ensure_ascii=False
    )
    prompt = count_tokens(messages, system=system) + (
        approx_token_counter(tool_text) if tools else 0
    )
    reply = count_tokens([Message("assistant", content)], per_message_overhead=0)
    return Usage(prompt, reply, estimated=True)
