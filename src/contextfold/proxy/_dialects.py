"""A chat request as a conversation and back, in whichever dialect it came.

The dialects (:mod:`contextfold.dialects`: Chat Completions, Responses, Messages)
know their JSON; this module is what the proxy does with them. A request body is
parsed into messages (:func:`conversation`); a compacted body keeps every field of
the original except the history, and every message it keeps unchanged is copied
from the original wire items verbatim (:func:`rebuild`: so ``cache_control``,
``name``, item ids and content the message model does not carry survive). Also here:
the usage the upstream reports (JSON and SSE) and the error body each dialect's
clients expect.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from contextfold.dialects import CHAT, Dialect
from contextfold.messages import Message
from contextfold.proxy import _json, _layout, _tenant
from contextfold.proxy._memo import HistoryMemo, segment_cuts

__all__ = [
    "MAX_DEPTH",
    "Conversation",
    "Dialect",
    "Rebuilt",
    "SSEUsageScanner",
    "conversation",
    "error_body",
    "read_body",
    "rebuild",
    "usage_input_tokens",
]

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
    ``messages[m0:m1]`` (see :meth:`~contextfold.dialects.base.Dialect.fresh`).
    ``top`` messages open ``messages`` without a wire item of their own (Anthropic's
    ``system``, Responses' ``instructions``). ``pinned`` is set by the planner's layout (see
    :mod:`._layout`): ``messages[:pinned]`` is prompt and task, never summarized.
    ``tenant`` is the request's tenant key (:mod:`._tenant`): whatever the planner
    keeps of this conversation is kept for that tenant only. ``items``: the digests of
    the wire items' prefixes (:func:`._layout.item_prefixes`, from the
    :func:`._layout.seed` of the request's dialect, model, system and tenant), when
    already known.
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
    items: list[bytes] | None = None

    @property
    def scope(self) -> str:
        """What the prefix hashes of ``messages`` are seeded with: tenant and model."""
        return _tenant.scope(self.tenant, self.model)


def read_body(raw: bytes, dialect: Dialect = CHAT) -> tuple[dict[str, Any], str, bool]:
    """The JSON object of a chat request, its model, and whether the body was read
    strictly (see :mod:`._json`).

    :class:`ValueError` says what is wrong when the body is not a chat request at
    all: not JSON (or nested too deeply to read), not an object, no string
    ``model``, or a history field of the wrong type
    (:meth:`~contextfold.dialects.base.Dialect.check_body`). What the history holds
    is not checked here (see :func:`conversation`).
    """
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
    dialect.check_body(body)
    return body, model, strict


def conversation(
    dialect: Dialect,
    body: dict[str, Any],
    model: str,
    memo: HistoryMemo | None = None,
    tenant: str = "",
) -> Conversation:
    """The history of a body accepted by :func:`read_body`, as messages, sent by
    ``tenant`` (a tenant key, :mod:`._tenant`).

    With a ``memo``, only the messages after the longest prefix ``tenant`` has sent
    before are parsed and hashed, and the result carries its prefix hashes
    (``chain``) and its items' (``items``); the messages are the same either way.

    :class:`ValueError` when the history holds content the dialect does not model
    well enough to rewrite, or content that is not well formed; the proxy then
    forwards the request unchanged and lets the upstream judge it.
    """
    too_deep = ValueError(f"the request nests JSON deeper than {MAX_DEPTH} levels")
    key = dialect.history_key
    if memo is None and _deeper_than(body, MAX_DEPTH):
        raise too_deep
    if memo is not None and _deeper_than([v for k, v in body.items() if k != key], MAX_DEPTH):
        raise too_deep
    wire, system = dialect.history(body)
    chain = items = None
    cuts: tuple[tuple[int, int], ...] = ()
    if isinstance(wire, str):  # a Responses ``input`` of one user message
        messages = dialect.read(wire, system)
    elif memo is not None:

        def check(item: Any) -> None:  # an item sits 2 levels deep: body, messages
            if isinstance(item, dict | list) and _deeper_than(item, MAX_DEPTH - 2):
                raise too_deep

        scope = _tenant.scope(tenant, model)
        seed = _layout.seed(dialect, model, dialect.outside(body), tenant)  # as the planner's
        parsed = memo.parse(dialect, scope, wire, system, check=check, seed=seed)
        messages, chain, cuts, items = parsed.messages, parsed.chain, parsed.cuts, parsed.items
    else:
        messages = dialect.read(wire, system)
        cuts = segment_cuts(dialect, wire, len(messages))
    lead = 0
    while lead < len(messages) and messages[lead].role == "system":
        lead += 1
    top = cuts[0][1] if cuts else (1 if system else 0)
    return Conversation(
        dialect, body, model, messages, lead, chain, cuts, top, tenant=tenant, items=items
    )


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
    dialect = conv.dialect
    key = dialect.history_key
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
        if not dialect.place_outside(body, history[:top]):
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
        written = dialect.write(pending)
        boundaries.append(len(out))
        out.extend(written)
        if known is not None:
            try:
                parsed = dialect.read(written)
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
    if known is not None and not all(dialect.fresh(out, b) for b in boundaries if b < len(out)):
        known = None  # a piece may read differently after another: parse the whole body
    return Rebuilt(body, known)


def usage_input_tokens(dialect: Dialect, payload: Any) -> int | None:
    """The whole prompt size in a response (or stream event) payload, if it has one
    (:meth:`~contextfold.dialects.base.Dialect.input_tokens`; the relay asks here)."""
    return dialect.input_tokens(payload)


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
            tokens = self.dialect.input_tokens(payload)
            if tokens:
                self.input_tokens = tokens
                self._partial = b""
                return


def error_body(dialect: Dialect, status: int, message: str) -> dict[str, Any]:
    """The error JSON that ``dialect``'s clients parse, for an error made by the proxy
    (:meth:`~contextfold.dialects.base.Dialect.error_body`; the server asks here)."""
    return dialect.error_body(status, message)
