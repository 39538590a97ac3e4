"""A local stand-in for the OpenAI and Anthropic APIs, for offline demos and tests.

``contextfold fake-upstream --port 8765`` serves it, so the proxy quickstart can be
followed without an API key (``examples/proxy_quickstart.md``); the proxy's own tests
drive :class:`Upstream` in-process. Needs the ``proxy`` extra (Starlette; uvicorn to
serve it from the command line).

What it answers, in each API's real JSON and SSE shapes:

* ``POST /v1/chat/completions``, ``POST /v1/messages`` and ``POST /v1/responses``:
  one assistant message. Its text is :attr:`Upstream.reply_text`, or, when that is
  ``None``, a description of the request received (how many messages, about how
  many tokens), so a client can see what the proxy forwarded. ``usage`` reports
  about a token per four bytes of the messages (Responses: ``input``) and system
  prompt (``instructions``) sent (times :attr:`Upstream.usage_scale`). Streams are
  word by word.
* Responses only: with :attr:`Upstream.tool_call` naming a function tool the request
  offers, and an ``input`` that does not end with a tool output, the reply calls
  that tool with :attr:`Upstream.tool_arguments` instead (streamed as
  ``response.function_call_arguments`` events); :attr:`Upstream.reasoning` puts a
  ``reasoning`` item with ``encrypted_content`` before each reply.
* With :attr:`Upstream.max_prompt_tokens`, a chat request whose prompt is larger gets
  each API's context-overflow error (400: OpenAI's ``context_length_exceeded``,
  Anthropic's "prompt is too long"); summarizer calls are never refused.
* A request whose system prompt is contextfold's built-in summary prompt is a
  summarizer call: it gets ``SUMMARY-N (fresh)`` or ``SUMMARY-N (update)`` (``update``
  when the prompt is the one that extends a previous summary).
* ``GET /v1/models`` lists one model; any other ``/v1/...`` route echoes its path.
* A body it cannot read gets a 400 like a real API's; it accepts any API key.

Every request is recorded in :attr:`Upstream.seen` (summarizer calls also in
:attr:`Upstream.summaries`) and passed to :attr:`Upstream.log` as one line. Tests can
make it fail (:attr:`Upstream.fail_chat`, :attr:`Upstream.fail_summary`), slow its
summaries (:attr:`Upstream.summary_delay`), hold them until an event is set
(:attr:`Upstream.summary_gate`), hold a stream's last event
(:attr:`Upstream.stream_gate`) or call the proxy's recall tool
(:attr:`Upstream.recall`). It keeps everything in memory and is meant for
loopback use only.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from contextfold._extras import requires_extra
from contextfold.dialects import CHAT, MESSAGES, RESPONSES, Dialect
from contextfold_harness._fake_responses import (
    output_items,
    response_events,
    response_object,
    wants_call,
)

with requires_extra("proxy", "contextfold_harness.fake_upstream"):
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route

__all__ = ["SUMMARY_PROMPT_START", "Seen", "Upstream", "json_reply", "serve"]

SUMMARY_PROMPT_START = "You are the memory of a long-running AI agent."
"""How contextfold's built-in summary prompts begin (a summarizer call is recognized by it)."""
_ANY_METHOD = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def malformed(dialect: Dialect) -> dict[str, Any]:
    """The 400 body each real API sends for a request it cannot read."""
    return dialect.error_body(400, "malformed request")


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
    """One request as it arrived: path, query string, headers (lower-case), raw body."""

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
    summary_gate: asyncio.Event | None = None  # when set, summaries wait for it
    stream_gate: asyncio.Event | None = None  # when set, the last SSE event waits for it
    reply_text: str | None = "Hello from upstream"  # None: describe the request received
    log: Callable[[str], None] | None = None  # told one line per request
    # Scripted recall: offered a ``recall`` tool, call it with the first handle in the
    # request (an out- one first; "once": then answer "Recalled: <the first 300
    # characters that came back>"; "always": call it every time).
    recall: Literal["off", "once", "always"] = "off"
    max_prompt_tokens: int | None = None  # larger chat prompts get a context-overflow 400
    tool_call: str | None = None  # Responses: the function tool to call (see the module doc)
    tool_arguments: dict[str, Any] = field(default_factory=dict)
    reasoning: bool = False  # Responses: a reasoning item before each reply
    # The provider's own compaction API (POST /v1/responses/compact): off, a 404 as
    # local servers answer; on, an opaque compaction item of the provider's own.
    native_compaction: bool = False

    @property
    def chats(self) -> list[Seen]:
        return [s for s in self.seen if s not in self.summaries]

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self.openai, methods=["POST"]),
                Route("/v1/messages", self.anthropic, methods=["POST"]),
                Route("/v1/responses", self.responses, methods=["POST"]),
                Route("/v1/responses/compact", self.compact, methods=["POST"]),
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

    def _note(self, seen: Seen, what: str) -> None:
        if self.log is not None:
            self.log(f"{seen.path}: {what}")

    def _reply(self, seen: Seen, body: dict[str, Any], tokens: int) -> str:
        messages = body.get("messages", body.get("input"))
        # a Responses ``input`` may be a string: one message
        count = len(messages) if isinstance(messages, list) else int(isinstance(messages, str))
        self._note(seen, f"chat, {count} messages, ~{tokens:,} tokens")
        if self.reply_text is not None:
            return self.reply_text
        return f"(fake upstream) I received {count} messages, about {tokens:,} tokens."

    def _prompt_tokens(self, body: dict[str, Any]) -> int:
        history = body.get("messages", body.get("input", []))
        system = body.get("system", body.get("instructions")) or ""
        size = len(json.dumps(history)) + len(str(system))
        return max(1, int(size / 4 * self.usage_scale))

    async def _summary_reply(self, seen: Seen) -> tuple[int, dict[str, Any]] | str:
        self.summaries.append(seen)
        self._note(seen, f"summary request #{len(self.summaries)}")
        if self.summary_delay:
            await asyncio.sleep(self.summary_delay)
        gate = self.summary_gate  # the gate in place when this request came
        if gate is not None:
            await gate.wait()
        if self.fail_summary is not None:
            return self.fail_summary
        update = "summarized before" in _system_text(seen.json)
        # A model following the built-in prompt: the summary inside <summary> tags.
        kind = "update" if update else "fresh"
        return f"<summary>SUMMARY-{len(self.summaries)} ({kind})</summary>"

    def _recall_step(self, body: dict[str, Any]) -> tuple[str | None, str | None]:
        """``(handle to recall, None)``, ``(None, the text a recall returned)`` or neither."""
        if self.recall == "off":
            return None, None
        tools = body.get("tools")
        tools = tools if isinstance(tools, list) else []
        names = {
            str((t.get("function") or t).get("name"))
            for t in tools
            if isinstance(t, dict) and isinstance(t.get("function") or t, dict)
        }
        messages = body.get("messages")
        if "recall" not in names or not isinstance(messages, list):
            return None, None
        returned = _tool_result_text(messages[-1]) if messages else None
        if returned is not None and self.recall == "once":
            return None, returned[:300]
        sent = json.dumps(messages)
        found = re.search(r"out-[0-9a-f]{12}", sent) or re.search(r"msgs-[0-9a-f]{16}", sent)
        return (found.group(0), None) if found else (None, None)

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
            return json_reply(malformed(CHAT), status_code=400)
        return await self._answer(
            seen,
            body,
            system,
            tokens,
            lambda text, used: _openai_completion(model, text, used),
            lambda text: self._openai_events(model, text, tokens, usage),
            CHAT,
            lambda args, used: _openai_call(model, args, used, len(self.seen)),
        )

    async def _answer(
        self,
        seen: Seen,
        body: dict[str, Any],
        system: str,
        tokens: int,
        completion: Callable[[str, int], dict[str, Any]],
        events: Callable[[str], AsyncIterator[str]],
        dialect: Dialect,
        recall_call: Callable[[dict[str, Any], int], dict[str, Any]] | None = None,
    ) -> Response:
        """A chat request in any dialect: a summary when the summarizer asks, the
        configured failure, else the reply as one body or as ``events(text)``."""
        if system.startswith(SUMMARY_PROMPT_START):
            reply = await self._summary_reply(seen)
            if not isinstance(reply, str):
                return json_reply(reply[1], status_code=reply[0])
            return json_reply(completion(reply, 100))
        if self.fail_chat is not None:
            status, payload, headers = self.fail_chat
            return json_reply(payload, status_code=status, headers=headers)
        if self.max_prompt_tokens is not None and tokens > self.max_prompt_tokens:
            self._note(seen, f"rejected: ~{tokens:,} tokens > {self.max_prompt_tokens:,}")
            return json_reply(dialect.overflow_body(tokens, self.max_prompt_tokens), 400)
        handle, recalled = self._recall_step(body) if recall_call else (None, None)
        if handle is not None and recall_call is not None:
            self._note(seen, f"calls recall({handle})")
            return json_reply(recall_call({"handle": handle}, tokens))
        text = self._reply(seen, body, tokens) if recalled is None else f"Recalled: {recalled}"
        if not body.get("stream"):
            return json_reply(completion(text, tokens))
        return StreamingResponse(events(text), media_type="text/event-stream")

    async def _openai_events(
        self, model: str, text: str, tokens: int, usage: bool
    ) -> AsyncIterator[str]:
        base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": model}
        words = text.split(" ")
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
            return json_reply(malformed(MESSAGES), status_code=400)
        return await self._answer(
            seen,
            body,
            system,
            tokens,
            lambda text, used: _anthropic_message(model, text, used),
            lambda text: self._anthropic_events(model, text, tokens),
            MESSAGES,
            lambda args, used: _anthropic_call(model, args, used, len(self.seen)),
        )

    async def _anthropic_events(self, model: str, text: str, tokens: int) -> AsyncIterator[str]:
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
        for i, word in enumerate(text.split(" ")):
            delta = {"type": "text_delta", "text": word if i == 0 else " " + word}
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

    # -- OpenAI Responses ------------------------------------------------------------

    async def responses(self, request: Request) -> Response:
        seen = await self._record(request)
        try:
            body = seen.json
            model = body["model"]
            instructions = body.get("instructions") or ""
            tokens = self._prompt_tokens(body)
            call = wants_call(body, self.tool_call)
        except Exception:  # a real API answers what it cannot read with a 400
            return json_reply(malformed(RESPONSES), status_code=400)
        n = len(self.seen)
        arguments = (self.tool_call or "", self.tool_arguments) if call else None

        def output(text: str) -> list[dict[str, Any]]:
            return output_items(n, text, arguments, self.reasoning)

        return await self._answer(
            seen,
            body,
            str(instructions),
            tokens,
            lambda text, used: response_object(n, model, output(text), used),
            lambda text: response_events(n, model, output(text), tokens, self.stream_gate),
            RESPONSES,
        )

    async def compact(self, request: Request) -> Response:
        seen = await self._record(request)
        if not self.native_compaction:
            return json_reply(
                {"error": {"message": "Not Found", "type": "not_found", "code": None}},
                status_code=404,
            )
        body = seen.json
        users = [
            i
            for i in body.get("input", [])
            if isinstance(i, dict)
            and i.get("role") == "user"
            and i.get("type", "message") == "message"
        ]
        n = len(self.seen)
        item = {
            "id": f"cmp_up{n}",
            "type": "compaction",
            "encrypted_content": f"gAAAA-provider-{n}",
        }
        return json_reply(
            {
                "id": f"resp_up{n}",
                "object": "response.compaction",
                "created_at": 0,
                "output": [*users, item],
                "usage": {
                    "input_tokens": 10,
                    "input_tokens_details": {"cached_tokens": 0},
                    "output_tokens": 5,
                    "output_tokens_details": {"reasoning_tokens": 0},
                    "total_tokens": 15,
                },
            }
        )

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


def _tool_result_text(message: Any) -> str | None:
    """The text of a tool result message (either dialect), or ``None``."""
    if not isinstance(message, dict):
        return None
    if message.get("role") == "tool":
        return str(message.get("content"))
    content = message.get("content")
    if message.get("role") == "user" and isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                return str(block.get("content"))
    return None


def _openai_call(model: str, args: dict[str, Any], tokens: int, n: int) -> dict[str, Any]:
    reply = _openai_completion(model, "", tokens)
    call = {
        "id": f"call_recall_{n}",
        "type": "function",
        "function": {"name": "recall", "arguments": json.dumps(args)},
    }
    reply["choices"][0]["message"] = {"role": "assistant", "content": None, "tool_calls": [call]}
    reply["choices"][0]["finish_reason"] = "tool_calls"
    return reply


def _anthropic_call(model: str, args: dict[str, Any], tokens: int, n: int) -> dict[str, Any]:
    reply = _anthropic_message(model, "", tokens)
    use = {"type": "tool_use", "id": f"toolu_recall_{n}", "name": "recall", "input": args}
    reply["content"], reply["stop_reason"] = [use], "tool_use"
    return reply


def serve(host: str = "127.0.0.1", port: int = 8765, **upstream_fields: Any) -> None:
    """Serve an :class:`Upstream` (built from ``upstream_fields``) with uvicorn until
    interrupted; each request is printed as one line on stdout."""
    with requires_extra("proxy", "contextfold_harness.fake_upstream.serve"):
        import uvicorn

    upstream_fields.setdefault("log", lambda line: print(f"fake upstream: {line}", flush=True))
    upstream = Upstream(**upstream_fields)
    uvicorn.run(upstream.app(), host=host, port=port, log_level="warning")
