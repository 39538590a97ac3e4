"""A small fake OpenAI + Anthropic upstream for the proxy tests and bench.

It records every request (path, headers, raw body), answers chat requests in each
API's real JSON and SSE shapes, recognizes the summarizer's requests by the
built-in summary prompt, and can be told to fail.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

SUMMARY_PROMPT_START = "You are the memory of a long-running AI agent."
_ANY_METHOD = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def malformed(dialect: str) -> dict[str, Any]:
    """The 400 body each real API sends for a request it cannot read."""
    message = "malformed request"
    if dialect == "openai":
        error = {"message": message, "type": "invalid_request_error", "param": None, "code": None}
        return {"error": error}
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}


def json_reply(
    payload: Any, status_code: int = 200, headers: dict[str, str] | None = None
) -> Response:
    """JSON with non-ASCII escaped, so echoed lone surrogates still encode."""
    return Response(
        json.dumps(payload).encode(),
        status_code=status_code,
        headers=headers,
        media_type="application/json",
    )


@dataclass
class Seen:
    path: str
    query: str
    headers: dict[str, str]
    raw: bytes
    raw_path: bytes = b""  # the path as the proxy sent it, percent-encoding and all

    @property
    def json(self) -> Any:
        return json.loads(self.raw)


@dataclass
class Upstream:
    """The fake upstream's state; ``app`` serves it."""

    seen: list[Seen] = field(default_factory=list)
    summaries: list[Seen] = field(default_factory=list)
    fail_chat: tuple[int, dict[str, Any], dict[str, str]] | None = None
    fail_summary: tuple[int, dict[str, Any]] | None = None
    usage_scale: float = 1.0  # multiply reported prompt sizes (to test usage anchoring)
    summary_delay: float = 0.0
    stream_gate: asyncio.Event | None = None  # when set, the last SSE event waits for it
    reply_text: str = "Hello from upstream"

    @property
    def chats(self) -> list[Seen]:
        return [s for s in self.seen if s not in self.summaries]

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self.openai, methods=["POST"]),
                Route("/v1/messages", self.anthropic, methods=["POST"]),
                Route("/v1/models", self.models, methods=["GET"]),
                Route("/{rest:path}", self.echo, methods=_ANY_METHOD),
            ]
        )

    async def _record(self, request: Request) -> Seen:
        seen = Seen(
            request.url.path,
            request.url.query,
            {k.lower(): v for k, v in request.headers.items()},
            await request.body(),
            request.scope.get("raw_path", b""),
        )
        self.seen.append(seen)
        return seen

    def _prompt_tokens(self, body: dict[str, Any]) -> int:
        size = len(json.dumps(body.get("messages", []))) + len(str(body.get("system", "")))
        return max(1, int(size / 4 * self.usage_scale))

    async def _summary_reply(self, seen: Seen) -> tuple[int, dict[str, Any]] | str:
        self.summaries.append(seen)
        if self.summary_delay:
            await asyncio.sleep(self.summary_delay)
        if self.fail_summary is not None:
            return self.fail_summary
        update = "summarized before" in _system_text(seen.json)
        # A model following the built-in prompt: the summary inside <summary> tags.
        kind = "update" if update else "fresh"
        return f"<summary>SUMMARY-{len(self.summaries)} ({kind})</summary>"

    # -- OpenAI ----------------------------------------------------------------------

    async def openai(self, request: Request) -> Response:
        seen = await self._record(request)
        try:
            body = seen.json
            model = body["model"]
            system = _system_text(body)
            tokens = self._prompt_tokens(body)
            usage = bool(
                body.get("stream") and (body.get("stream_options") or {}).get("include_usage")
            )
        except Exception:  # a real API answers what it cannot read with a 400
            return json_reply(malformed("openai"), status_code=400)
        if system.startswith(SUMMARY_PROMPT_START):
            reply = await self._summary_reply(seen)
            if not isinstance(reply, str):
                return json_reply(reply[1], status_code=reply[0])
            return json_reply(_openai_completion(model, reply, 100))
        if self.fail_chat is not None:
            status, payload, headers = self.fail_chat
            return json_reply(payload, status_code=status, headers=headers)
        if not body.get("stream"):
            return json_reply(_openai_completion(model, self.reply_text, tokens))
        return StreamingResponse(
            self._openai_events(model, tokens, usage), media_type="text/event-stream"
        )

    async def _openai_events(self, model: str, tokens: int, usage: bool) -> Any:
        base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": model}
        words = self.reply_text.split(" ")
        for i, word in enumerate(words):
            delta = {"content": word if i == 0 else " " + word}
            if i == 0:
                delta["role"] = "assistant"
            choice = {"index": 0, "delta": delta, "finish_reason": None}
            yield f"data: {json.dumps({**base, 'choices': [choice]})}\n\n"
        if self.stream_gate is not None:
            await self.stream_gate.wait()
        done = {"index": 0, "delta": {}, "finish_reason": "stop"}
        yield f"data: {json.dumps({**base, 'choices': [done]})}\n\n"
        if usage:
            report = {"prompt_tokens": tokens, "completion_tokens": 5, "total_tokens": tokens + 5}
            yield f"data: {json.dumps({**base, 'choices': [], 'usage': report})}\n\n"
        yield "data: [DONE]\n\n"

    # -- Anthropic -------------------------------------------------------------------

    async def anthropic(self, request: Request) -> Response:
        seen = await self._record(request)
        try:
            body = seen.json
            model = body["model"]
            system = _system_text(body)
            tokens = self._prompt_tokens(body)
        except Exception:  # a real API answers what it cannot read with a 400
            return json_reply(malformed("anthropic"), status_code=400)
        if system.startswith(SUMMARY_PROMPT_START):
            reply = await self._summary_reply(seen)
            if not isinstance(reply, str):
                return json_reply(reply[1], status_code=reply[0])
            return json_reply(_anthropic_message(model, reply, 100))
        if self.fail_chat is not None:
            status, payload, headers = self.fail_chat
            return json_reply(payload, status_code=status, headers=headers)
        if not body.get("stream"):
            return json_reply(_anthropic_message(model, self.reply_text, tokens))
        return StreamingResponse(
            self._anthropic_events(model, tokens), media_type="text/event-stream"
        )

    async def _anthropic_events(self, model: str, tokens: int) -> Any:
        start = _anthropic_message(model, "", tokens)
        start["content"], start["stop_reason"] = [], None
        events: list[dict[str, Any]] = [
            {"type": "message_start", "message": start},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ]
        for i, word in enumerate(self.reply_text.split(" ")):
            text = word if i == 0 else " " + word
            delta = {"type": "text_delta", "text": text}
            events.append({"type": "content_block_delta", "index": 0, "delta": delta})
        for event in events:
            yield f"event: {event['type']}\ndata: {json.dumps(event)}\n\n"
        if self.stream_gate is not None:
            await self.stream_gate.wait()
        tail: list[dict[str, Any]] = [
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
            {"type": "message_stop"},
        ]
        for event in tail:
            yield f"event: {event['type']}\ndata: {json.dumps(event)}\n\n"

    # -- other routes ----------------------------------------------------------------

    async def models(self, request: Request) -> Response:
        await self._record(request)
        return json_reply(
            {"object": "list", "data": [{"id": "test-model", "object": "model", "owned_by": "me"}]},
            headers={
                "x-upstream": "yes",
                "connection": "close, x-upstream-hop",
                "x-upstream-hop": "1",
            },
        )

    async def echo(self, request: Request) -> Response:
        seen = await self._record(request)
        return json_reply({"path": seen.path, "query": seen.query, "bytes": len(seen.raw)})


def _system_text(body: dict[str, Any]) -> str:
    system = body.get("system")
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(b.get("text", "") for b in system if isinstance(b, dict))
    for message in body.get("messages", []):
        if message.get("role") == "system" and isinstance(message.get("content"), str):
            return str(message["content"])
    return ""


def _openai_completion(model: str, text: str, tokens: int) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": tokens, "completion_tokens": 5, "total_tokens": tokens + 5},
    }


def _anthropic_message(model: str, text: str, tokens: int) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": tokens, "output_tokens": 5},
    }


def openai_history(turns: int, chars: int = 800) -> list[dict[str, Any]]:
    """A system prompt and ``turns`` rounds: a user request, a tool call, its result, an answer."""
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful coding agent."}]
    for i in range(turns):
        out.append({"role": "user", "content": f"request {i}: " + "u" * chars})
        out.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{i}",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": json.dumps({"n": i})},
                    }
                ],
            }
        )
        out.append({"role": "tool", "tool_call_id": f"call_{i}", "content": "r" * chars})
        out.append({"role": "assistant", "content": f"answer {i}: " + "a" * (chars // 4)})
    out.append({"role": "user", "content": "what next?"})
    return out


def anthropic_history(turns: int, chars: int = 800) -> list[dict[str, Any]]:
    """The Anthropic shape of :func:`openai_history` (system goes in the top-level field)."""
    out: list[dict[str, Any]] = []
    for i in range(turns):
        out.append({"role": "user", "content": f"request {i}: " + "u" * chars})
        use = {"type": "tool_use", "id": f"toolu_{i}", "name": "read_file", "input": {"n": i}}
        out.append({"role": "assistant", "content": [use]})
        result = {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": "r" * chars}
        out.append({"role": "user", "content": [result]})
        out.append({"role": "assistant", "content": f"answer {i}: " + "a" * (chars // 4)})
    out.append({"role": "user", "content": "what next?"})
    return out
