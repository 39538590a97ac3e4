"""What the proxy must know of the wire dialects beyond :mod:`contextfold.formats`.

The dialects: OpenAI chat (``openai``), Anthropic Messages (``anthropic``) and OpenAI
Responses (``responses``, its own rebuilding in :mod:`._responses`).

Request bodies are parsed into messages with ``formats``; a compacted body keeps
every field of the original except the history, and the *recent* part of the
history is copied from the original wire dicts verbatim whenever it was not changed
(so ``cache_control``, ``name`` and other fields the message model does not carry
survive). Also here: the usage the upstream reports (JSON and SSE) and the error
body each dialect's clients expect.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from contextfold.formats import (
    from_anthropic,
    from_openai,
    from_responses,
    to_anthropic,
    to_openai,
)
from contextfold.messages import Message
from contextfold.proxy import _json
from contextfold.proxy._memo import HistoryMemo
from contextfold.proxy._responses import input_items, rebuild_responses

Dialect = Literal["openai", "anthropic", "responses"]

MAX_DEPTH = 100
"""How deeply a body the proxy parses may nest its JSON (objects and lists).

Deeper bodies are forwarded unchanged, uncompacted: parsing, hashing and rewriting
a history recurse through it, and no chat request needs a tenth of this depth.
"""


@dataclass(frozen=True, slots=True)
class Conversation:
    """A parsed chat request: its body, model and history (system messages included)."""

    dialect: Dialect
    body: dict[str, Any]
    model: str
    messages: list[Message]
    lead: int  # how many system messages open ``messages``
    chain: list[str] | None = None  # prefix hashes of ``messages``, when already known
    # (wire index, message count): body["messages"][index:] parses to messages[count:]
    cuts: tuple[tuple[int, int], ...] = ()


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
    dialect: Dialect, body: dict[str, Any], model: str, memo: HistoryMemo | None = None
) -> Conversation:
    """The history of a body accepted by :func:`parse_body`, as messages.

    With a ``memo``, only the messages after the longest prefix it has seen are
    parsed and hashed, and the result carries its prefix hashes (``chain``); the
    messages are the same either way.

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

        parsed = memo.parse(dialect, model, wire, system, check=check)
        messages, chain, cuts = parsed.messages, parsed.chain, parsed.cuts
    elif dialect == "openai":
        messages = from_openai(wire)
    elif dialect == "responses":
        messages = from_responses(wire, system if isinstance(system, str) else None)
    else:
        messages = from_anthropic(wire, system)
    lead = 0
    while lead < len(messages) and messages[lead].role == "system":
        lead += 1
    return Conversation(dialect, body, model, messages, lead, chain, cuts)


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


def _parse(dialect: Dialect, wire: Sequence[Mapping[str, Any]]) -> list[Message]:
    return from_openai(wire) if dialect == "openai" else from_anthropic(wire)


def _verbatim_tail(conv: Conversation, start: int) -> list[Any] | None:
    """The original wire dicts that parse to exactly ``conv.messages[start:]``, if any.

    Wire dicts and messages are nearly one to one (OpenAI tool messages merge into
    one message, Anthropic system notes split out of one), so the search starts
    where they would be and walks in the direction the message count points.
    """
    wire: list[Any] = conv.body["messages"]
    cut = verbatim_cut(conv, start)
    if cut is not None:  # known from the memo: no parse needed
        return wire[cut:]
    want = conv.messages[start:]
    w = max(0, len(wire) - len(want))
    step = 0
    while 0 <= w < len(wire):
        try:
            got = _parse(conv.dialect, wire[w:])
        except ValueError:
            return None
        if got == want:
            return wire[w:]
        direction = (len(got) < len(want)) - (len(got) > len(want))
        if direction == 0 or direction == -step:
            return None
        step = direction
        w -= direction
    return None


def verbatim_cut(conv: Conversation, start: int) -> int | None:
    """The wire index whose tail parses to ``conv.messages[start:]``, if the memo knows one."""
    for index, count in conv.cuts:
        if count == start and index < len(conv.body["messages"]):  # a tail, not nothing
            return index
    return None


def rebuild(
    conv: Conversation, head: Sequence[Message], tail: Sequence[Message], start: int
) -> dict[str, Any]:
    """A copy of ``conv.body`` whose history is ``lead systems + head + tail``.

    ``head`` is what replaces ``conv.messages[conv.lead:start]`` (moved system
    messages, the summary, the acknowledgement); ``tail`` is the kept part, copied
    verbatim from the original body when it equals ``conv.messages[start:]``.
    """
    if conv.dialect == "responses":
        return rebuild_responses(conv, head, tail, start)
    lead = conv.messages[: conv.lead]
    original = tail == conv.messages[start:]
    wire_tail = _verbatim_tail(conv, start) if original else None
    body = dict(conv.body)
    if conv.dialect == "openai":
        messages: list[Any] = list(conv.body["messages"][: conv.lead])
        if wire_tail is None:
            messages += to_openai([*head, *tail])
        else:
            messages += to_openai(head) + wire_tail
        body["messages"] = messages
        return body
    top, head_wire = to_anthropic(
        [*lead, *head] if wire_tail is not None else [*lead, *head, *tail]
    )
    original_top = lead[0].text if lead and conv.body.get("system") else None
    if top != original_top:
        body["system"] = top
    body["messages"] = head_wire + wire_tail if wire_tail is not None else head_wire
    if top is None:
        body.pop("system", None)
    return body


def reparse(
    dialect: Dialect, body: Mapping[str, Any], known: tuple[int, Sequence[Message]] | None = None
) -> list[Message]:
    """The history a rebuilt ``body`` carries (to validate what will be sent).

    ``known``: ``(n, messages)``, the last ``n`` wire messages of ``body`` start at a
    cut (:func:`verbatim_cut`) and parse to ``messages``; only the rest is parsed.
    """
    if dialect == "responses":  # (``known`` is not used: Responses bodies parse whole)
        return from_responses(body["input"], body.get("instructions"))
    wire = body["messages"]
    tail: Sequence[Message] = ()
    if known is not None:
        wire, tail = wire[: len(wire) - known[0]], known[1]
    if dialect == "openai":
        return [*from_openai(wire), *tail]
    return [*from_anthropic(wire, body.get("system")), *tail]


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
