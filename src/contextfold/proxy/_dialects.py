"""What the proxy must know of the wire dialects beyond :mod:`contextfold.formats`.

The dialects: OpenAI chat (``openai``), Anthropic Messages (``anthropic``) and OpenAI
Responses (``responses``, its own rebuilding in :mod:`._responses`).

Request bodies are parsed into messages with ``formats``; a compacted body keeps
every field of the original except the history, and every message it keeps unchanged
is copied from the original wire dicts verbatim (:func:`rebuild`: so
``cache_control``, ``name``, item ids and content the message model does not carry
survive). Also here: the usage the upstream reports (JSON and SSE) and the error
body each dialect's clients expect.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Literal

from contextfold.formats import (
    from_anthropic,
    from_openai,
    from_responses,
    to_anthropic,
    to_openai,
    to_responses,
)
from contextfold.messages import Message
from contextfold.proxy import _json, _tenant
from contextfold.proxy._memo import HistoryMemo, fresh, segment_cuts
from contextfold.proxy._responses import input_items

Dialect = Literal["openai", "anthropic", "responses"]

MAX_DEPTH = 100
"""How deeply a body the proxy parses may nest its JSON (objects and lists).

Deeper bodies are forwarded unchanged, uncompacted: parsing, hashing and rewriting
a history recurse through it, and no chat request needs a tenth of this depth.
"""


@dataclass(frozen=True, slots=True)
class Conversation:
    """A parsed chat request: its body, model and history (system messages included).

    ``cuts`` split the wire history into segments that parse on their own: with
    consecutive cuts ``(w0, m0)`` and ``(w1, m1)``, ``wire[w0:w1]`` parses to exactly
    ``messages[m0:m1]`` (see :func:`contextfold.proxy._memo.fresh`). ``top`` messages
    open ``messages`` without a wire item of their own (Anthropic's ``system``,
    Responses' ``instructions``). ``pinned`` is set by the planner's layout (see
    :mod:`._layout`): ``messages[:pinned]`` is prompt and task, never summarized.
    ``tenant`` is the request's tenant key (:mod:`._tenant`): whatever the planner
    keeps of this conversation is kept for that tenant only.
    """

    dialect: Dialect
    body: dict[str, Any]
    model: str
    messages: list[Message]
    lead: int  # how many system messages open ``messages``
    chain: list[str] | None = None  # prefix hashes of ``messages``, when already known
    cuts: tuple[tuple[int, int], ...] = ()
    top: int = 0
    pinned: int = 0
    tail: int = 0
    recall: bool = False  # the request offers the recall tool (set by the planner)
    window: int | None = None  # the request's own, wider context window (set by the planner)
    tenant: str = ""

    @property
    def scope(self) -> str:
        """What the prefix hashes of ``messages`` are seeded with: tenant and model."""
        return _tenant.scope(self.tenant, self.model)


def parse_body(raw: bytes, dialect: Dialect = "openai") -> tuple[dict[str, Any], str]:
    """The JSON object of a chat request and its model.

    :class:`ValueError` says what is wrong when the body is not a chat request at
    all: not JSON (or nested too deeply to read), not an object, no string
    ``model``, or a ``messages`` that is not a list (for ``responses``: an ``input``
    that is neither a string nor a list, when present). What the history holds is
    not checked here (see :func:`conversation`).
    """
    body, model, _ = read_body(raw, dialect)
    return body, model


def read_body(raw: bytes, dialect: Dialect = "openai") -> tuple[dict[str, Any], str, bool]:
    """:func:`parse_body`, and whether the body was read strictly (see :mod:`._json`)."""
    try:
        body, strict = _json.loads(raw)
    except RecursionError:
        raise ValueError("request body is nested too deeply to read") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, over-long integers
        raise ValueError(f"request body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise ValueError(f"request body must be a JSON object, got {type(body).__name__}")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise ValueError("field 'model' must be a non-empty string")
    if dialect == "responses":
        if not isinstance(body.get("input", ""), str | list):
            raise ValueError("field 'input' must be a string or a list of items")
    elif not isinstance(body.get("messages"), list):
        raise ValueError("field 'messages' must be a list of messages")
    return body, model, strict


def conversation(
    dialect: Dialect,
    body: dict[str, Any],
    model: str,
    memo: HistoryMemo | None = None,
    tenant: str = "",
) -> Conversation:
    """The history of a body accepted by :func:`parse_body`, as messages, sent by
    ``tenant`` (a tenant key, :mod:`._tenant`).

    With a ``memo``, only the messages after the longest prefix ``tenant`` has sent
    before are parsed and hashed, and the result carries its prefix hashes
    (``chain``); the messages are the same either way.

    :class:`ValueError` when the history holds content :mod:`contextfold.formats`
    does not model (images by URL, files, audio, server tools...) or content that is
    not well formed; the proxy then forwards the request unchanged and lets the
    upstream judge it.
    """
    too_deep = ValueError(f"the request nests JSON deeper than {MAX_DEPTH} levels")
    key = "input" if dialect == "responses" else "messages"
    if memo is None and _deeper_than(body, MAX_DEPTH):
        raise too_deep
    if memo is not None and _deeper_than([v for k, v in body.items() if k != key], MAX_DEPTH):
        raise too_deep
    if dialect == "responses":
        wire, system = input_items(body)
    else:
        wire, system = body["messages"], None
    if dialect == "anthropic":
        system = body.get("system")
        if system is not None and not isinstance(system, str | list):
            raise ValueError("field 'system' must be a string or a list of text blocks")
    chain = None
    cuts: tuple[tuple[int, int], ...] = ()
    if isinstance(wire, str):  # a Responses ``input`` of one user message
        messages = from_responses(wire, system if isinstance(system, str) else None)
    elif memo is not None:

        def check(item: Any) -> None:  # an item sits 2 levels deep: body, messages
            if isinstance(item, dict | list) and _deeper_than(item, MAX_DEPTH - 2):
                raise too_deep

        parsed = memo.parse(dialect, _tenant.scope(tenant, model), wire, system, check=check)
        messages, chain, cuts = parsed.messages, parsed.chain, parsed.cuts
    else:
        if dialect == "openai":
            messages = from_openai(wire)
        elif dialect == "responses":
            messages = from_responses(wire, system if isinstance(system, str) else None)
        else:
            messages = from_anthropic(wire, system)
        cuts = segment_cuts(dialect, wire, len(messages))
    lead = 0
    while lead < len(messages) and messages[lead].role == "system":
        lead += 1
    top = cuts[0][1] if cuts else (1 if system else 0)
    return Conversation(dialect, body, model, messages, lead, chain, cuts, top, tenant=tenant)


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests objects and lists more than ``limit`` deep (no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node
        for child in children:
            if isinstance(child, dict | list):
                if depth == limit:
                    return True
                stack.append((child, depth + 1))
    return False


def _key(dialect: Dialect) -> str:
    return "input" if dialect == "responses" else "messages"


def _write(dialect: Dialect, messages: Sequence[Message]) -> list[Any]:
    """``messages`` as wire items of the history (Anthropic's system messages as notes:
    the body's own ``system`` is placed by the caller)."""
    if dialect == "openai":
        return to_openai(messages)
    if dialect == "responses":
        return to_responses(messages)
    return to_anthropic(messages, lift=False)[1]


def _parse(dialect: Dialect, wire: Sequence[Any]) -> list[Message]:
    if dialect == "openai":
        return from_openai(wire)
    if dialect == "responses":
        return from_responses(wire)
    return from_anthropic(wire)


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """A rewritten body and, when known without parsing it again, the history it holds."""

    body: dict[str, Any]
    messages: list[Message] | None


def rebuild(conv: Conversation, history: Sequence[Message]) -> Rebuilt:
    """A copy of ``conv.body`` carrying ``history`` (which opens with ``conv``'s top
    system messages, the same objects, unless it changes them).

    Every run of ``history`` that is one of ``conv``'s segments (the same message
    objects, in order) is copied from the original wire items verbatim, so fields and
    content the message model does not carry (``cache_control``, item ids, a system
    message's own fields, opaque blocks) survive byte for byte; the rest (a summary, an
    acknowledgement, a message shortened to fit) is written anew. Every other field of
    the body is left as it is.
    """
    key = _key(conv.dialect)
    wire = conv.body.get(key)
    wire = wire if isinstance(wire, list) else []
    body = dict(conv.body)
    top = conv.top
    kept_top = len(history) >= top and all(
        a is b for a, b in zip(history[:top], conv.messages[:top], strict=False)
    )
    if not kept_top:
        top = 0
        while top < len(history) and history[top].role == "system":
            top += 1
        if conv.dialect == "anthropic":
            text, _ = to_anthropic(history[:top])
            body["system"] = text
            if text is None:
                body.pop("system", None)
        elif conv.dialect == "responses":
            body["instructions"] = "\n\n".join(m.text for m in history[:top]) or None
        else:
            top = 0
    index = {id(m): k for k, m in enumerate(conv.messages)}
    spans = {m0: (w0, w1, m1) for (w0, m0), (w1, m1) in pairwise(conv.cuts) if m1 > m0}
    out: list[Any] = []
    known: list[Message] | None = list(history[:top]) if kept_top else None
    pending: list[Message] = []
    boundaries: list[int] = []  # where each verbatim run and written chunk starts in ``out``

    def flush() -> None:
        nonlocal known
        if not pending:
            return
        written = _write(conv.dialect, pending)
        boundaries.append(len(out))
        out.extend(written)
        if known is not None:
            try:
                parsed = _parse(conv.dialect, written)
            except ValueError:
                parsed = None
            known = None if parsed is None else known + parsed
        pending.clear()

    i = top
    while i < len(history):
        k = index.get(id(history[i]))
        span = spans.get(k) if k is not None else None
        if span is not None:
            w0, w1, m1 = span
            run = m1 - k  # type: ignore[operator]
            if all(
                a is b for a, b in zip(history[i : i + run], conv.messages[k:m1], strict=False)
            ) and i + run <= len(history):
                flush()
                boundaries.append(len(out))
                out.extend(wire[w0:w1])
                if known is not None:
                    known += conv.messages[k:m1]
                i += run
                continue
        pending.append(history[i])
        i += 1
    flush()
    body[key] = out
    if known is not None and not all(
        fresh(conv.dialect, out, b) for b in boundaries if b < len(out)
    ):
        known = None  # a piece may read differently after another: parse the whole body
    return Rebuilt(body, known)


def reparse(dialect: Dialect, body: Mapping[str, Any]) -> list[Message]:
    """The history a rebuilt ``body`` carries (to validate what will be sent)."""
    if dialect == "responses":
        return from_responses(body["input"], body.get("instructions"))
    if dialect == "openai":
        return from_openai(body["messages"])
    return from_anthropic(body["messages"], body.get("system"))


def usage_input_tokens(dialect: Dialect, payload: Any) -> int | None:
    """The whole prompt size in a response (or stream event) payload, if it has one.

    Anthropic reports cached tokens separately; they are added back. Responses
    report the whole size (``input_tokens``) in the response, and in a stream in the
    ``response.completed`` event's response.
    """
    if not isinstance(payload, dict):
        return None
    if dialect == "anthropic" and isinstance(payload.get("message"), dict):
        payload = payload["message"]  # the message_start event
    if dialect == "responses" and isinstance(payload.get("response"), dict):
        payload = payload["response"]  # the response.completed event
    usage = payload.get("usage")
    if not isinstance(usage, dict):
        return None
    if dialect == "openai":
        keys: tuple[str, ...] = ("prompt_tokens",)
    elif dialect == "responses":
        keys = ("input_tokens",)
    else:
        keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    values = [usage.get(k) for k in keys]
    if not isinstance(values[0], int) or isinstance(values[0], bool):
        return None
    total = sum(v for v in values if isinstance(v, int) and not isinstance(v, bool))
    return total or None


class SSEUsageScanner:
    """Watches an SSE byte stream for the prompt size without changing or holding it.

    Only ``data:`` lines that mention ``"usage"`` are decoded; partial lines are kept
    until their end arrives. The first non-zero prompt size found wins.
    """

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.input_tokens: int | None = None
        self._partial = b""

    def feed(self, chunk: bytes) -> None:
        if self.input_tokens is not None:
            return
        lines = (self._partial + chunk).split(b"\n")
        self._partial = lines.pop()
        for line in lines:
            if not line.startswith(b"data:") or b'"usage"' not in line:
                continue
            try:
                payload = json.loads(line[5:])
            except (ValueError, RecursionError):  # not JSON, or nested too deeply to read
                continue
            tokens = usage_input_tokens(self.dialect, payload)
            if tokens:
                self.input_tokens = tokens
                self._partial = b""
                return


_ERROR_TYPES: dict[int, tuple[str, str]] = {
    # status: (openai type, anthropic type)
    400: ("invalid_request_error", "invalid_request_error"),
    404: ("invalid_request_error", "not_found_error"),
    405: ("invalid_request_error", "invalid_request_error"),
    413: ("invalid_request_error", "request_too_large"),
    431: ("invalid_request_error", "invalid_request_error"),
    500: ("server_error", "api_error"),
    502: ("upstream_error", "api_error"),
    504: ("upstream_error", "timeout_error"),
}


def error_body(dialect: Dialect, status: int, message: str) -> dict[str, Any]:
    """The error JSON that ``dialect``'s clients parse, for an error made by the proxy.

    OpenAI (chat and Responses): ``{"error": {"message", "type", "param", "code"}}``;
    Anthropic: ``{"type": "error", "error": {"type", "message"}}``, each API's own
    error types.
    """
    openai_type, anthropic_type = _ERROR_TYPES.get(status, ("api_error", "api_error"))
    if dialect != "anthropic":
        code = "request_too_large" if status == 413 else None
        return {"error": {"message": message, "type": openai_type, "param": None, "code": code}}
    return {"type": "error", "error": {"type": anthropic_type, "message": message}}
