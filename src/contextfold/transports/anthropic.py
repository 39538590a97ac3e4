"""A transport on the official ``anthropic`` async SDK (Messages API).

>>> transport = AnthropicTransport("claude-haiku-4-5")           # reads ANTHROPIC_API_KEY
>>> reply = await transport.complete([Message.user("Hi")], system="Be brief.")

What it sends: text, images, tools and tool results (``is_error`` kept), thinking
blocks with their signatures, the system prompt, ``max_tokens`` = the model's output
limit (or ``max_output_tokens``; a call's ``max_output_tokens=`` cap lowers it - plus the
thinking budget when thinking is on, since Anthropic counts thinking in ``max_tokens``),
and - unless ``cache=False`` - three prompt-cache breakpoints (``cache_control:
{"type": "ephemeral"}``): the system prompt, the last tool definition and the last
block of the last message (Anthropic allows four).

With ``native_compaction=True`` (for a ``summary_transport``) each call is an on-demand
compaction request of Anthropic's (beta ``compact-2026-09-04``): the system prompt
becomes the compaction ``instructions`` and the ``compaction`` block's text the reply
(see :meth:`AnthropicTransport._compacted`).

What it reports: :class:`~contextfold.transports.base.Usage` whose ``input_tokens``
adds cache reads and writes back to the uncached input. Failures are retried by
:class:`RetryPolicy` (the SDK's own retries are off) and surface as
:mod:`contextfold.errors` exceptions; the API key never appears in them.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Sequence
from typing import Any

import anthropic
import httpx2

from contextfold._secrets import Secrets
from contextfold.blocks import ContentBlock, TextBlock
from contextfold.dialects.messages import MESSAGES, from_anthropic, to_anthropic
from contextfold.errors import ResponseFormatError, TransportConnectionError, TransportError
from contextfold.messages import Message
from contextfold.transports._errors import Provider, missing_key_error, status_error
from contextfold.transports._retry import RetryPolicy
from contextfold.transports._sdk import SDKErrors, SDKTransport, resolve_key
from contextfold.transports.base import (
    Completion,
    StopReason,
    ToolSpec,
    Usage,
    check_output_cap,
    lookup_model,
)

__all__ = ["AnthropicTransport"]

_EPHEMERAL = {"type": "ephemeral"}
_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "refusal": "refusal",
    "pause_turn": "pause_turn",
    "model_context_window_exceeded": "max_tokens",
}
# Above this the SDK refuses a non-streaming request that has no explicit timeout.
_NONSTREAMING_MAX_TOKENS = 8_192

COMPACTION_BETA = "compact-2026-09-04"
"""The beta of Anthropic's on-demand compaction (``native_compaction=True``)."""


class AnthropicTransport(SDKTransport[anthropic.AsyncAnthropic]):
    """A :class:`~contextfold.transports.base.StreamingTransport` for Claude models.

    Credentials: pass ``client=`` (an ``anthropic.AsyncAnthropic``, used with
    ``max_retries=0``), or ``api_key=``, or set ``ANTHROPIC_API_KEY``; with none of
    them the constructor raises :class:`~contextfold.errors.AuthenticationError`.
    ``http_client=`` (an ``httpx2.AsyncClient``, the SDK's HTTP library) is passed
    through to the client it builds. ``thinking=N`` enables extended thinking with a
    budget of ``N`` tokens (it must be below the output limit). ``max_retries`` is
    the number of retries after the first attempt; ``retry=`` replaces the whole policy.
    """

    _errors = SDKErrors(
        anthropic.AnthropicError, anthropic.APITimeoutError, anthropic.APIConnectionError
    )

    def __init__(
        self,
        model: str,
        *,
        client: anthropic.AsyncAnthropic | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        http_client: httpx2.AsyncClient | None = None,
        timeout: float | None = None,
        max_output_tokens: int | None = None,
        context_window: int | None = None,
        thinking: int | None = None,
        cache: bool = True,
        max_retries: int = 3,
        retry: RetryPolicy | None = None,
        secret_headers: Iterable[str] = (),
        native_compaction: bool = False,
    ) -> None:
        if not isinstance(native_compaction, bool):
            raise ValueError(f"native_compaction must be True or False, got {native_compaction!r}")
        self.native_compaction = native_compaction
        """Summaries through Anthropic's own on-demand compaction (see :meth:`complete`)."""
        info = lookup_model(
            model, context_window=context_window, max_output_tokens=max_output_tokens
        )
        if thinking is not None and not 1024 <= thinking < info.max_output_tokens:
            raise ValueError(
                f"thinking budget must be at least 1024 and below max_output_tokens "
                f"({info.max_output_tokens}), got {thinking}"
            )
        self.thinking = thinking
        self.cache = cache
        super().__init__(info, retry=retry, max_retries=max_retries, secret_headers=secret_headers)
        self._timeout_set = timeout is not None
        options: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
        provider = Provider("anthropic", "Anthropic", "ANTHROPIC_API_KEY", model)
        if client is not None:
            self._adopt(
                client.with_options(max_retries=0, **options), provider, injected=client, key=None
            )
            return
        key = resolve_key(api_key, provider)
        if not key:
            raise missing_key_error(provider)
        if http_client is not None and not isinstance(http_client, httpx2.AsyncClient):
            raise TypeError(
                "http_client must be an httpx2.AsyncClient (the HTTP library of the "
                f"anthropic SDK), got {type(http_client).__name__}"
            )
        built = anthropic.AsyncAnthropic(
            api_key=key, base_url=base_url, http_client=http_client, max_retries=0, **options
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
        """The keyword arguments this transport passes to ``messages.create``.

        ``max_output_tokens`` caps this reply's text below the model's output limit.
        """
        top, wire = to_anthropic(messages, system)
        limit = self._model.max_output_tokens
        if max_output_tokens is not None:
            check_output_cap(max_output_tokens)
            limit = min(limit, max_output_tokens + (self.thinking or 0))
        params: dict[str, Any] = {
            "model": self._model.name,
            "max_tokens": limit,
            "messages": wire,
        }
        if top:
            params["system"] = [{"type": "text", "text": top}]
        if tools:
            params["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.input_schema}
                for t in tools
            ]
        if self.thinking is not None:
            params["thinking"] = {"type": "enabled", "budget_tokens": self.thinking}
        if self.cache:
            _add_breakpoints(params)
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
        A long reply (``max_tokens`` above 8,192 with no explicit ``timeout``) is
        fetched through the streaming API, as the SDK requires for requests that may
        outlast an idle HTTP connection; the result is the same :class:`Completion`.
        """
        params = self.request_params(messages, tools, system, max_output_tokens=max_output_tokens)
        if self.native_compaction:
            return await self._compacted(params)
        if params["max_tokens"] > _NONSTREAMING_MAX_TOKENS and not self._timeout_set:
            async for item in self._streamed(params, retry_after_output=True):
                if isinstance(item, Completion):
                    return item
        reply = await self._retried(
            lambda: self._client.messages.create(**params), anthropic.types.Message
        )
        return self._completion(reply)

    async def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        system: str | None = None,
        *,
        max_output_tokens: int | None = None,
    ) -> AsyncIterator[str | Completion]:
        """Yield text deltas as they arrive, then the full :class:`Completion`.

        A failure before the first delta is retried like :meth:`complete`; once
        text has been yielded, a failure is raised (a retry would repeat output).
        """
        params = self.request_params(messages, tools, system, max_output_tokens=max_output_tokens)
        async for item in self._streamed(params, retry_after_output=False):
            yield item

    async def _streamed(
        self, params: dict[str, Any], *, retry_after_output: bool
    ) -> AsyncIterator[str | Completion]:
        async def attempt() -> AsyncGenerator[str | anthropic.types.Message, None]:
            started = stopped = False
            async with self._client.messages.stream(**params) as events:
                async for event in events:
                    started = started or event.type == "message_start"
                    stopped = stopped or event.type == "message_stop"
                    if event.type == "text" and event.text:
                        yield event.text
                if not started:
                    raise self._unreadable("the reply is not a stream of message events")
                if not stopped:
                    raise TransportConnectionError(
                        "the Anthropic stream ended before the reply was complete",
                        provider="anthropic",
                        model=self._model.name,
                    )
                yield await events.get_final_message()

        async for item in self._retried_stream(attempt, retry_after_output=retry_after_output):
            yield item if isinstance(item, str) else self._completion(item)

    async def _compacted(self, params: dict[str, Any]) -> Completion:
        """The call as an on-demand compaction request (beta ``compact-2026-09-04``):
        ``messages`` are the conversation to summarize and the system prompt becomes
        the compaction ``instructions`` (which replace the server's own prompt); the
        ``compaction`` block's text is the reply, stopped normally, so the caller's
        verdict judges it as any summary (a failed compaction's empty block is
        rejected there). An endpoint that ignores the parameter answers the same
        request with text, which is read as it is."""
        system = params.pop("system", None)
        instructions = "\n\n".join(
            block["text"] for block in system or () if isinstance(block.get("text"), str)
        )
        if instructions.strip():
            params["compaction"] = {"type": "summarize", "instructions": instructions}
        else:
            params["compaction"] = {"type": "summarize"}
        params["betas"] = [COMPACTION_BETA]
        reply = await self._retried(
            lambda: self._client.beta.messages.create(**params),
            anthropic.types.beta.BetaMessage,
        )
        blocks = reply.content if isinstance(reply.content, list) else []
        texts = [
            getattr(block, "content", None) or ""
            if block.type == "compaction"
            else getattr(block, "text", "") or ""
            for block in blocks
            if block.type in ("compaction", "text")
        ]
        usage = reply.usage
        if usage is None or not isinstance(usage.input_tokens, int):
            raise self._unreadable("the reply has no 'usage'")
        cache_write = usage.cache_creation_input_tokens or 0
        cache_read = usage.cache_read_input_tokens or 0
        stop: StopReason = "max_tokens" if reply.stop_reason == "max_tokens" else "end_turn"
        return Completion(
            [TextBlock("".join(texts))],
            stop,
            Usage(
                usage.input_tokens + cache_write + cache_read,
                usage.output_tokens,
                cache_read_tokens=cache_read,
                cache_write_tokens=cache_write,
            ),
            reply.model,
        )

    def _completion(self, reply: anthropic.types.Message) -> Completion:
        # The SDK builds the reply without validating it: a JSON body of another shape
        # leaves these fields None.
        if not isinstance(reply.content, list) or not isinstance(
            reply.usage, anthropic.types.Usage
        ):
            raise self._unreadable("the reply has no 'content' list or no 'usage'")
        try:
            wire = [block.model_dump(mode="json") for block in reply.content]
            content: list[ContentBlock] = from_anthropic([{"role": "assistant", "content": wire}])[
                0
            ].content
        except ValueError as exc:
            raise ResponseFormatError(
                f"could not read Anthropic's reply: {exc}",
                provider="anthropic",
                model=self._model.name,
            ) from exc
        usage = reply.usage
        cache_write = usage.cache_creation_input_tokens or 0
        cache_read = usage.cache_read_input_tokens or 0
        return Completion(
            content,
            _STOP_REASONS.get(reply.stop_reason or "end_turn", "end_turn"),
            Usage(
                usage.input_tokens + cache_write + cache_read,
                usage.output_tokens,
                cache_read_tokens=cache_read,
                cache_write_tokens=cache_write,
            ),
            reply.model,
        )

    def _api_error(self, exc: Exception, secrets: Secrets) -> TransportError | None:
        if not isinstance(exc, anthropic.APIStatusError):
            return None
        error = exc.body.get("error") if isinstance(exc.body, dict) else None
        error = error if isinstance(error, dict) else {}
        message = str(error.get("message") or exc.message)
        return status_error(
            self._provider,
            status=exc.status_code,
            error_type=error.get("type") if isinstance(error.get("type"), str) else None,
            message=message,
            body=exc.body,
            headers=dict(exc.response.headers),
            overflow=MESSAGES.is_overflow(exc.status_code, error, message),
            request_id=exc.request_id,
            secrets=secrets,
        )


def _add_breakpoints(params: dict[str, Any]) -> None:
    """Mark the system prompt, the last tool and the last cacheable block (3 of 4 allowed)."""
    if "system" in params:
        params["system"][-1]["cache_control"] = dict(_EPHEMERAL)
    if "tools" in params:
        params["tools"][-1]["cache_control"] = dict(_EPHEMERAL)
    messages: list[dict[str, Any]] = params["messages"]
    if not messages:
        return
    for block in reversed(messages[-1]["content"]):
        # Thinking blocks and empty text cannot carry a breakpoint.
        if block["type"] in ("thinking", "redacted_thinking"):
            continue
        if block["type"] == "text" and not block["text"]:
            continue
        block["cache_control"] = dict(_EPHEMERAL)
        return
