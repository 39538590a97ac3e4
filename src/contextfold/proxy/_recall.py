"""The proxy's recall loop (``create_app(recall=True)``, ``contextfold serve --recall``).

When the proxy compacts a request and the summary it forwards lists recall handles
(:mod:`contextfold.recall`), it adds a ``recall`` tool to the request. A model that
calls it is answered by the proxy itself: the originals are in the client's own
request (a client resends its whole history, the part the summary replaced
included), so they are read from there, by handle, a page of at most
:data:`~contextfold.recall.DEFAULT_MAX_CHARS` characters per call. The proxy sends
the answer back upstream and repeats, at most :data:`MAX_ROUNDS` times; the client
gets only the last reply.

The client never sees the tool: replies that still call it (the round limit was hit,
or the model called the client's own tools in the same reply: functions or OpenAI
custom tools) go back with the recall calls removed (and, when nothing else is left,
a short text saying the limit was reached). Streaming requests are answered by
buffering: the rounds run without streaming, and the final reply is sent as one
stream of server-sent events in the dialect's own shape (text, tool calls and
thinking blocks; usage included). Such a response carries ``x-contextfold-recalls:
N``, the recall calls answered; an upstream error in any round is relayed as it is.
Images of a recalled output are not sent back (only its text). With extended
thinking, a reply that calls the client's tools after recall rounds but opens with
no thinking of its own is given the thinking the turn's first reply opened with
(Anthropic requires it at the start of a tool-use cycle's assistant message). The
tool is not added when the client defines a tool named ``recall`` itself, turns
tools off (``tool_choice`` ``none``) or asks for several choices (OpenAI's ``n``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from contextfold._masking import RECALLABLE_HEADER
from contextfold.context import ArchivedMessage
from contextfold.errors import RecallError
from contextfold.proxy._compact import Plan
from contextfold.proxy._dialects import Dialect, reparse
from contextfold.recall import (
    RECALL_DESCRIPTION,
    RECALL_SCHEMA,
    RECALL_TOOL_NAME,
    recall_archived,
)

if TYPE_CHECKING:
    from contextfold.proxy._forward import Forwarder

__all__ = ["MAX_ROUNDS", "answer_with_recall"]

logger = logging.getLogger("contextfold.proxy")

MAX_ROUNDS = 4
"""Upstream calls the proxy makes to answer recall calls, per client request, at most."""

LIMIT_NOTE = "[contextfold: the recall limit of this request was reached]"
_SKIPPED_HEADERS = frozenset({b"content-length", b"content-type", b"content-encoding"})
_THINKING = frozenset({"thinking", "redacted_thinking"})


@dataclass(frozen=True, slots=True)
class _Call:
    id: str
    input: dict[str, Any]


def _with_tool(dialect: Dialect, body: dict[str, Any]) -> dict[str, Any] | None:
    """``body`` with the recall tool added and streaming off, or ``None`` when the
    client's own tools or ``tool_choice`` leave no room for it."""
    tools = body.get("tools", [])
    choice = body.get("tool_choice")
    if not isinstance(tools, list) or choice == "none":
        return None
    if isinstance(choice, dict) and choice.get("type") == "none":
        return None
    if body.get("n", 1) not in (1, None):  # several choices: the loop can follow only one
        return None
    for tool in tools:
        spec = _spec(tool)
        if not isinstance(spec, dict) or spec.get("name") == RECALL_TOOL_NAME:
            return None
    if dialect == "openai":
        function = {
            "name": RECALL_TOOL_NAME,
            "description": RECALL_DESCRIPTION,
            "parameters": RECALL_SCHEMA,
        }
        added: dict[str, Any] = {"type": "function", "function": function}
    else:
        added = {
            "name": RECALL_TOOL_NAME,
            "description": RECALL_DESCRIPTION,
            "input_schema": RECALL_SCHEMA,
        }
    out = {**body, "tools": [*tools, added], "stream": False}
    out.pop("stream_options", None)
    return out


def _spec(tool: Any) -> Any:
    """Where a tool definition keeps its name: OpenAI's ``function`` or ``custom``
    object, or (Anthropic) the tool itself."""
    if not isinstance(tool, dict):
        return None
    return tool.get("function") or tool.get("custom") or tool


def _calls(dialect: Dialect, payload: Any) -> tuple[list[_Call], bool]:
    """The recall calls of a reply, and whether it calls other tools too."""
    recalls: list[_Call] = []
    others = False
    for name, call_id, arguments in _tool_uses(dialect, payload):
        if name != RECALL_TOOL_NAME:
            others = True
            continue
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                arguments = {}
        recalls.append(_Call(call_id, arguments if isinstance(arguments, dict) else {}))
    return recalls, others


def _tool_uses(dialect: Dialect, payload: Any) -> Iterator[tuple[Any, str, Any]]:
    if not isinstance(payload, dict):
        return
    if dialect == "openai":
        calls = (_openai_message(payload) or {}).get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and call.get("type", "function") == "function":
                yield function.get("name"), str(call.get("id")), function.get("arguments")
            elif isinstance(call, dict):  # a custom tool's call (or a kind unknown): theirs
                yield None, str(call.get("id")), None
        return
    blocks = payload.get("content")
    for block in blocks if isinstance(blocks, list) else []:
        if isinstance(block, dict) and block.get("type") == "tool_use":
            yield block.get("name"), str(block.get("id")), block.get("input")


def _openai_message(payload: dict[str, Any]) -> dict[str, Any] | None:
    choices = payload.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        return message if isinstance(message, dict) else None
    return None


def _answer(archive: list[ArchivedMessage], call: _Call) -> tuple[str, bool]:
    """The text answering one recall call, and whether it is an error."""
    offset = call.input.get("offset") or 0
    try:
        if not isinstance(offset, int) or isinstance(offset, bool):
            raise ValueError(f"offset must be an integer, got {offset!r}")
        page = recall_archived(archive, str(call.input.get("handle", "")), offset=offset)
    except (RecallError, ValueError) as exc:
        return f"Error: {exc}", True
    rendered = page.render()
    if isinstance(rendered, str):
        return rendered, False
    return "\n".join(getattr(part, "text", "[image]") for part in rendered), False


def _next_body(
    dialect: Dialect,
    body: dict[str, Any],
    payload: dict[str, Any],
    answers: list[tuple[_Call, tuple[str, bool]]],
) -> dict[str, Any]:
    messages = list(body["messages"])
    if dialect == "openai":
        message = _openai_message(payload) or {}
        kept = {k: message[k] for k in ("role", "content", "tool_calls") if k in message}
        messages.append(kept)
        for call, (text, _) in answers:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
    else:
        messages.append({"role": "assistant", "content": payload.get("content") or []})
        results = [
            {"type": "tool_result", "tool_use_id": call.id, "content": text, "is_error": error}
            for call, (text, error) in answers
        ]
        messages.append({"role": "user", "content": results})
    return {**body, "messages": messages}


def _without_recall(dialect: Dialect, payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` with its recall calls removed (see the module docstring)."""
    if dialect == "openai":
        message = _openai_message(payload)
        if message is None:
            return payload
        calls = [
            c
            for c in message.get("tool_calls") or []
            if not (
                isinstance(c, dict) and (c.get("function") or {}).get("name") == RECALL_TOOL_NAME
            )
        ]
        message = {k: v for k, v in message.items() if k != "tool_calls"}
        if calls:
            message["tool_calls"] = calls
        elif not message.get("content"):
            message["content"] = LIMIT_NOTE
        choice = {**payload["choices"][0], "message": message}
        if not calls and choice.get("finish_reason") == "tool_calls":
            choice["finish_reason"] = "stop"
        return {**payload, "choices": [choice, *payload["choices"][1:]]}
    blocks = [
        b
        for b in payload.get("content") or []
        if not (
            isinstance(b, dict)
            and b.get("type") == "tool_use"
            and b.get("name") == RECALL_TOOL_NAME
        )
    ]
    if all(isinstance(b, dict) and b.get("type") in _THINKING for b in blocks):
        blocks.append({"type": "text", "text": LIMIT_NOTE})  # nothing but thinking is left
    out = {**payload, "content": blocks}
    if payload.get("stop_reason") == "tool_use" and not any(
        isinstance(b, dict) and b.get("type") == "tool_use" for b in blocks
    ):
        out["stop_reason"] = "end_turn"
    return out


def _thinking(content: Any) -> list[Any]:
    """The thinking blocks ``content`` opens with."""
    blocks = content if isinstance(content, list) else []
    opening = []
    for block in blocks:
        if not isinstance(block, dict) or block.get("type") not in _THINKING:
            break
        opening.append(block)
    return opening


def _with_opening(payload: dict[str, Any], opening: list[Any]) -> dict[str, Any]:
    """``payload`` (an Anthropic reply after recall rounds) opening with the turn's first
    thinking when it calls the client's tools without thinking of its own: with
    thinking on, the assistant message of a tool-use cycle must start with it, and the
    client never saw the rounds in between."""
    content = payload["content"]
    calls = any(isinstance(b, dict) and b.get("type") == "tool_use" for b in content)
    if not calls or _thinking(content):
        return payload
    return {**payload, "content": [*opening, *content]}


async def answer_with_recall(
    forwarder: Forwarder,
    request: Request,
    dialect: Dialect,
    original: dict[str, Any],
    forwarded: bytes,
    plan: Plan,
) -> Response | None:
    """The answer to a compacted request with the recall tool offered, or ``None`` when
    recall does not apply to it (no handle forwarded, no room for the tool, or a
    Responses API request: the tool is offered on chat completions and messages only)."""
    if dialect == "responses":
        return None
    if RECALLABLE_HEADER.encode() not in forwarded and b"[masked tool output" not in forwarded:
        return None
    try:
        body = _with_tool(dialect, json.loads(forwarded))
    except ValueError:
        return None
    if body is None:
        return None
    archive = [ArchivedMessage(i, 0, False, m) for i, m in enumerate(reparse(dialect, original))]
    streaming = original.get("stream") is True
    recalls = 0
    response = await forwarder._forward(request, dialect, json.dumps(body).encode(), plan)
    later = replace(plan, usage_key="")  # only the first round's prompt is the history's
    payload: Any = None
    opening: list[Any] = []  # the thinking the turn opened with (Anthropic)
    for round_ in range(MAX_ROUNDS + 1):
        if response.status_code != 200 or isinstance(response, StreamingResponse):
            return response  # an upstream error (or a stream nobody asked for) as it is
        try:
            payload = json.loads(bytes(response.body))
        except (ValueError, RecursionError):  # not JSON (or nested too deep to read)
            return response
        if not isinstance(payload, dict):
            return response
        if round_ == 0 and dialect == "anthropic":
            opening = _thinking(payload.get("content"))
        calls, others = _calls(dialect, payload)
        if not calls or others or round_ == MAX_ROUNDS:
            break
        answers = [(call, _answer(archive, call)) for call in calls]
        recalls += len(calls)
        body = _next_body(dialect, body, payload, answers)
        response = await forwarder._forward(request, dialect, json.dumps(body).encode(), later)
    if recalls:
        logger.info("answered %d recall call(s) for a %s request", recalls, dialect)
    try:
        payload = _without_recall(dialect, payload)
        if recalls and opening:
            payload = _with_opening(payload, opening)
        if streaming:
            include_usage = bool((original.get("stream_options") or {}).get("include_usage"))
            events = "".join(_events(dialect, payload, include_usage))
    except (AttributeError, IndexError, KeyError, TypeError):  # a reply of an odd shape
        return response
    headers = [(n, v) for n, v in response.raw_headers if n not in _SKIPPED_HEADERS]
    headers.append((b"x-contextfold-recalls", str(recalls).encode()))
    if streaming:
        content = events.encode()
        media = b"text/event-stream"
    else:
        content = json.dumps(payload).encode()
        media = b"application/json"
    out = Response(content, status_code=200)
    out.raw_headers = [
        *headers,
        (b"content-type", media),
        (b"content-length", str(len(content)).encode()),
    ]
    return out


def _sse(data: Any, event: str | None = None) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n"


def _events(dialect: Dialect, payload: Any, include_usage: bool) -> Iterator[str]:
    """``payload`` (a complete reply) as the stream of events its API would have sent."""
    if dialect == "openai":
        yield from _openai_events(payload, include_usage)
    else:
        yield from _anthropic_events(payload)


def _openai_events(payload: dict[str, Any], include_usage: bool) -> Iterator[str]:
    base = {k: payload.get(k) for k in ("id", "created", "model", "system_fingerprint")}
    base["object"] = "chat.completion.chunk"
    message = _openai_message(payload) or {}
    choice = payload["choices"][0] if payload.get("choices") else {}
    delta: dict[str, Any] = {"role": "assistant", "content": message.get("content") or ""}
    yield _sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
    calls = [{"index": i, **call} for i, call in enumerate(message.get("tool_calls") or [])]
    if calls:
        delta = {"tool_calls": calls}
        yield _sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
    done = {"index": 0, "delta": {}, "finish_reason": choice.get("finish_reason", "stop")}
    yield _sse({**base, "choices": [done]})
    if include_usage and payload.get("usage") is not None:
        yield _sse({**base, "choices": [], "usage": payload["usage"]})
    yield "data: [DONE]\n\n"


def _anthropic_events(payload: dict[str, Any]) -> Iterator[str]:
    usage = payload.get("usage") or {}
    start = {**payload, "content": [], "stop_reason": None, "stop_sequence": None}
    start["usage"] = {**usage, "output_tokens": 0}
    yield _sse({"type": "message_start", "message": start}, "message_start")
    for index, block in enumerate(payload.get("content") or []):
        kind = block.get("type")
        if kind == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": block.get("text", "")}]
        elif kind == "tool_use":
            opening = {**block, "input": {}}
            partial = json.dumps(block.get("input") or {})
            deltas = [{"type": "input_json_delta", "partial_json": partial}]
        elif kind == "thinking":
            opening = {"type": "thinking", "thinking": ""}
            deltas = [
                {"type": "thinking_delta", "thinking": block.get("thinking", "")},
                {"type": "signature_delta", "signature": block.get("signature", "")},
            ]
        else:
            opening, deltas = block, []
        yield _sse(
            {"type": "content_block_start", "index": index, "content_block": opening},
            "content_block_start",
        )
        for delta in deltas:
            yield _sse(
                {"type": "content_block_delta", "index": index, "delta": delta},
                "content_block_delta",
            )
        yield _sse({"type": "content_block_stop", "index": index}, "content_block_stop")
    end = {"stop_reason": payload.get("stop_reason"), "stop_sequence": payload.get("stop_sequence")}
    tail = {"output_tokens": usage.get("output_tokens", 0)}
    yield _sse({"type": "message_delta", "delta": end, "usage": tail}, "message_delta")
    yield _sse({"type": "message_stop"}, "message_stop")
