"""The proxy's recall loop (``create_app(options=ProxyOptions(recall=True))``,
``contextfold serve --recall``).

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
thinking blocks; usage included). What each step looks like on the wire is the
dialect's (:attr:`~contextfold.dialects.base.Dialect.supports_recall`: Chat
Completions and Messages). Such a response carries ``x-contextfold-recalls:
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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from starlette.responses import Response, StreamingResponse

from contextfold._masking import RECALLABLE_HEADER
from contextfold.context import ArchivedMessage
from contextfold.dialects import Dialect
from contextfold.errors import RecallError
from contextfold.proxy._plan import ForwardPlan
from contextfold.recall import (
    RECALL_DESCRIPTION,
    RECALL_SCHEMA,
    RECALL_TOOL_NAME,
    recall_archived,
)

__all__ = ["MAX_ROUNDS", "answer_with_recall"]

logger = logging.getLogger("contextfold.proxy")

MAX_ROUNDS = 4
"""Upstream calls the proxy makes to answer recall calls, per client request, at most."""

LIMIT_NOTE = "[contextfold: the recall limit of this request was reached]"
_SKIPPED_HEADERS = frozenset({b"content-length", b"content-type", b"content-encoding"})

Send = Callable[[bytes, ForwardPlan], Awaitable[Response]]
"""Forwards a body upstream under a plan and relays the answer (the forwarder's)."""


@dataclass(frozen=True, slots=True)
class _Call:
    id: str
    input: dict[str, Any]


def _calls(dialect: Dialect, payload: Any) -> tuple[list[_Call], bool]:
    """The recall calls of a reply, and whether it calls other tools too."""
    recalls: list[_Call] = []
    others = False
    for name, call_id, arguments in dialect.tool_uses(payload):
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


def _answer(archive: list[ArchivedMessage], call: _Call) -> tuple[str, str, bool]:
    """The answer to one recall call: its id, its text, and whether it is an error."""
    offset = call.input.get("offset") or 0
    try:
        if not isinstance(offset, int) or isinstance(offset, bool):
            raise ValueError(f"offset must be an integer, got {offset!r}")
        page = recall_archived(archive, str(call.input.get("handle", "")), offset=offset)
    except (RecallError, ValueError) as exc:
        return call.id, f"Error: {exc}", True
    rendered = page.render()
    if isinstance(rendered, str):
        return call.id, rendered, False
    return call.id, "\n".join(getattr(part, "text", "[image]") for part in rendered), False


async def answer_with_recall(
    send: Send,
    dialect: Dialect,
    original: dict[str, Any],
    forwarded: bytes,
    plan: ForwardPlan,
) -> Response | None:
    """The answer to a compacted request with the recall tool offered, or ``None`` when
    recall does not apply to it (no handle forwarded, no room for the tool, or a
    dialect without recall: the tool is offered on chat completions and messages
    only). ``send`` forwards each round's body upstream."""
    if not dialect.supports_recall:
        return None
    if RECALLABLE_HEADER.encode() not in forwarded and b"[masked tool output" not in forwarded:
        return None
    try:
        body = dialect.offer_tool(
            json.loads(forwarded), RECALL_TOOL_NAME, RECALL_DESCRIPTION, RECALL_SCHEMA
        )
    except ValueError:
        return None
    if body is None:
        return None
    archive = [ArchivedMessage(i, 0, False, m) for i, m in enumerate(dialect.read_body(original))]
    streaming = original.get("stream") is True
    recalls = 0
    response = await send(json.dumps(body).encode(), plan)
    later = replace(plan, usage_key="")  # only the first round's prompt is the history's
    payload: Any = None
    opening: list[Any] = []  # the thinking the turn opened with
    for round_ in range(MAX_ROUNDS + 1):
        if response.status_code != 200 or isinstance(response, StreamingResponse):
            return response  # an upstream error (or a stream nobody asked for) as it is
        try:
            payload = json.loads(bytes(response.body))
        except (ValueError, RecursionError):  # not JSON (or nested too deep to read)
            return response
        if not isinstance(payload, dict):
            return response
        if round_ == 0:
            opening = dialect.opening_thinking(payload)
        calls, others = _calls(dialect, payload)
        if not calls or others or round_ == MAX_ROUNDS:
            break
        answers = [_answer(archive, call) for call in calls]
        recalls += len(calls)
        body = dialect.answer_tools(body, payload, answers)
        response = await send(json.dumps(body).encode(), later)
    if recalls:
        logger.info("answered %d recall call(s) for a %s request", recalls, dialect)
    try:
        payload = dialect.without_tool(payload, RECALL_TOOL_NAME, LIMIT_NOTE)
        if recalls and opening:
            payload = dialect.with_opening(payload, opening)
        if streaming:
            events = "".join(dialect.replay(payload, original))
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
