"""The providers' own compaction APIs, served for every upstream.

OpenAI's ``POST /v1/responses/compact`` returns the conversation's user messages and
one ``compaction`` item whose ``encrypted_content`` only OpenAI can read; later
requests send that item in place of what it replaced. Local and hosted
OpenAI-compatible servers (vLLM, Ollama, gateways) have no such endpoint. The proxy
emulates it for them (``native_compaction``, per model or proxy-wide):

``"auto"`` (the default)
    the provider's own endpoint (``api.openai.com``) gets the request and its
    compaction items untouched; every other upstream is emulated.
``"emulate"``
    the proxy answers ``/v1/responses/compact`` itself: the summary is written by the
    upstream's model (the request's own, or ``summary_model``) through the same
    summarizer, verdict and prompts as every compaction.
``"pass"``
    everything is forwarded as it came, as before (the proxy's own items too: they
    mean something only where it emulates).

**The item the proxy issues is its own.** Its ``encrypted_content`` is a token the
proxy can turn back into the summary: the summary itself, compressed, with an
HMAC-SHA256 over it, the dialect and the tenant (:mod:`._tenant`) under a key from the
proxy's configuration (``ProxyOptions.compaction_key``; without one, a key made when
the app starts, so its items do not outlive a restart or reach another replica). The
summary travels in the item rather than a stored id: any replica with the key can
expand it, nothing has to be kept or expired, and the client holds nothing it did not
send (a summary of its own conversation), so signing is enough and no encryption key
has to be managed. A token that does not verify (forged, truncated, another tenant's,
another proxy's) is a 400 in OpenAI's error shape, never trusted. A later request
that carries the item gets, in its place, the summary as a user message (the one every
compaction writes, so the next compaction updates it instead of summarizing it again).
An item the provider issued (not one of ours) is carried untouched in every mode: a
gateway in front of the provider can still use it, and an upstream that cannot read it
answers for itself ("model what you need, carry the rest").
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import re
import secrets
import time
import zlib
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from contextfold.compaction._summarizer import (
    acknowledgement,
    parse_summary_message,
    render_summary_message,
)
from contextfold.messages import Message

__all__ = [
    "MODES",
    "PREFIX",
    "ForgedItem",
    "NativeMode",
    "Seal",
    "compacted_response",
    "expand_responses",
    "split_at_summary",
]

NativeMode = Literal["auto", "emulate", "pass"]
MODES: Final[tuple[NativeMode, ...]] = ("auto", "emulate", "pass")

PREFIX: Final = "cfc1."
"""How an ``encrypted_content`` the proxy wrote begins (version 1)."""

_MAX_PAYLOAD: Final = 8 * 1024 * 1024  # bytes of JSON an item may expand to
_PROVIDER_HOSTS: Final = {"openai": "api.openai.com", "anthropic": "api.anthropic.com"}


class ForgedItem(ValueError):
    """A compaction item that looks like the proxy's but does not verify."""


class Seal:
    """Signs summaries into compaction tokens and opens them again (see the module doc).

    ``key``: the configured secret (text or bytes, at least 16 bytes); ``None`` makes
    a random one for this process (:attr:`ephemeral`)."""

    def __init__(self, key: str | bytes | None) -> None:
        if key is None:
            self._key = secrets.token_bytes(32)
        else:
            raw = key.encode() if isinstance(key, str) else bytes(key)
            if len(raw) < 16:
                raise ValueError("compaction_key must be at least 16 bytes long")
            self._key = hashlib.sha256(b"contextfold compaction key\n" + raw).digest()
        self.ephemeral = key is None
        self.tenant_secret = hashlib.sha256(
            b"contextfold compaction tenants\n" + self._key
        ).digest()
        """The secret of the tenant keys items are bound to: derived from the
        compaction key, so replicas sharing that key agree on tenants whatever their
        summary caches (see :mod:`._tenant`)."""

    def _mac(self, dialect: str, tenant: str, body: str) -> bytes:
        message = f"{dialect}\n{tenant}\n{body}".encode()
        return hmac.new(self._key, message, hashlib.sha256).digest()

    def seal(self, dialect: str, tenant: str, payload: Mapping[str, Any]) -> str:
        """The token for ``payload`` (JSON-able), valid for ``tenant`` in ``dialect``."""
        packed = zlib.compress(json.dumps(payload, ensure_ascii=False).encode(), 6)
        body = _b64(packed)
        return f"{PREFIX}{body}.{_b64(self._mac(dialect, tenant, body))}"

    def open(self, dialect: str, tenant: str, token: object) -> dict[str, Any]:
        """The payload of ``token``; :class:`ForgedItem` when it does not verify."""
        if not isinstance(token, str) or not token.startswith(PREFIX):
            raise ForgedItem("its encrypted_content is not a token this proxy wrote")
        if not token.isascii():
            raise ForgedItem("its encrypted_content is damaged")
        body, dot, mac = token[len(PREFIX) :].rpartition(".")
        if not dot or not body:
            raise ForgedItem("its encrypted_content is truncated")
        try:
            given = _unb64(mac)
        except (binascii.Error, ValueError):
            raise ForgedItem("its encrypted_content is damaged") from None
        if not hmac.compare_digest(given, self._mac(dialect, tenant, body)):
            raise ForgedItem(
                "its encrypted_content does not verify: it was altered, or issued to "
                "another tenant, by another proxy or before this one restarted without "
                "a configured compaction_key"
            )
        try:
            inflate = zlib.decompressobj()
            data = inflate.decompress(_unb64(body), _MAX_PAYLOAD)
            if inflate.unconsumed_tail:
                raise ForgedItem("its encrypted_content expands beyond the size allowed")
            payload = json.loads(data)
        except (binascii.Error, ValueError, RecursionError, zlib.error):
            raise ForgedItem("its encrypted_content is damaged") from None
        if not isinstance(payload, dict) or not isinstance(payload.get("summary"), str):
            raise ForgedItem("its encrypted_content is damaged")
        return payload


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    if not text.isascii():
        raise ValueError("not base64")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


_ESCAPED_LETTER: Final = re.compile(rb"\\u00(?:[46][0-9a-fA-F]|[57][0-9aAfF])")


def may_use_native(raw: bytes) -> bool:
    """Whether a raw body may use the compaction APIs (and must be read for them):
    it names ``compaction`` or ``context_management``, or spells a letter as a JSON
    escape (``\\u0063ompaction`` is the same key; no encoder needs to escape one)."""
    return (
        b"compaction" in raw
        or b"context_management" in raw
        or _ESCAPED_LETTER.search(raw) is not None
    )


def is_ours(item: object) -> bool:
    """Whether ``item`` is a compaction item with a token of the proxy's form."""
    return (
        isinstance(item, dict)
        and isinstance(item.get("encrypted_content"), str)
        and item["encrypted_content"].startswith(PREFIX)
    )


def resolve_mode(mode: NativeMode, provider: str, upstream: str) -> Literal["emulate", "pass"]:
    """``"auto"`` made concrete: pass to the provider's own host, else emulate."""
    if mode != "auto":
        return mode
    host = (urlsplit(upstream).hostname or "").lower()
    return "pass" if host == _PROVIDER_HOSTS.get(provider) else "emulate"


def summary_item(summary: str) -> dict[str, Any]:
    """The Responses input item that stands for an expanded compaction item."""
    text = render_summary_message(summary).text
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def expand_responses(body: dict[str, Any], seal: Seal, tenant: str) -> tuple[dict[str, Any], int]:
    """``body`` with every compaction item the proxy issued replaced by its summary,
    and how many were. An item the proxy did not issue (the provider's) is carried as
    it is, whatever the mode: a gateway in front of the provider may read it, and an
    upstream that cannot answers for itself. A token of the proxy's form that does not
    verify is a :class:`ForgedItem`."""
    items = body.get("input")
    if not isinstance(items, list):
        return body, 0
    expanded: list[Any] = []
    count = 0
    for item in items:
        if not (isinstance(item, dict) and item.get("type") == "compaction"):
            expanded.append(item)
            continue
        if not is_ours(item):  # the provider's: carried for the upstream to judge
            expanded.append(item)
            continue
        payload = seal.open("openai", tenant, item.get("encrypted_content"))
        tail = payload.get("tail")
        if isinstance(tail, list):
            # context_management's item: it stands for everything before it, and the
            # turn it was made in (kept verbatim in the token) follows it
            expanded = [summary_item(payload["summary"]), *tail]
        else:
            expanded.append(summary_item(payload["summary"]))
        count += 1
    return ({**body, "input": expanded}, count) if count else (body, 0)


def expand_messages(body: dict[str, Any], seal: Seal, tenant: str) -> tuple[dict[str, Any], int]:
    """``body`` (Anthropic Messages) with every compaction block the proxy issued
    replaced by its summary, and how many were: a message that holds the block alone
    becomes the summary message (a user message) and, for an assistant's, the
    acknowledgement after it, so the roles still alternate; a block among others
    becomes a text block. The block's ``content`` must be the summary its
    ``signature`` holds. Blocks the proxy did not issue are carried as they are, as in
    :func:`expand_responses`."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return body, 0
    out: list[Any] = []
    count = 0
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list) or not any(
            isinstance(b, dict) and b.get("type") == "compaction" for b in content
        ):
            out.append(message)
            continue
        blocks: list[Any] = []
        summaries: list[str] = []
        for block in content:
            if not (isinstance(block, dict) and block.get("type") == "compaction"):
                blocks.append(block)
                continue
            signature = block.get("signature")
            if not (isinstance(signature, str) and signature.startswith(PREFIX)):
                blocks.append(block)  # the provider's: carried for the upstream to judge
                continue
            payload = seal.open("anthropic", tenant, signature)
            summary = payload["summary"]
            if block.get("content") is not None and block.get("content") != summary:
                raise ForgedItem("its content was changed after it was signed")
            tail = payload.get("tail")
            if isinstance(tail, list):
                # compact_20260112's block: it stands for everything before it, and
                # the turn it was made in (kept verbatim in the token) follows it
                out = [
                    {"role": "user", "content": render_summary_message(summary).text},
                    {"role": "assistant", "content": acknowledgement().text},
                    *tail,
                ]
                blocks = []
                count += 1
                continue
            summaries.append(summary)
            blocks.append({"type": "text", "text": render_summary_message(summary).text})
            count += 1
        if not summaries and not [b for b in blocks if b not in content]:
            if blocks:  # what followed an edit's block in its message (the reply)
                out.append({**message, "content": blocks})
            continue
        if len(content) == 1 and summaries:  # the block alone: the summary message
            out.append({"role": "user", "content": render_summary_message(summaries[0]).text})
            if message.get("role") == "assistant":
                out.append({"role": "assistant", "content": acknowledgement().text})
        else:
            out.append({**message, "content": blocks})
    return ({**body, "messages": out}, count) if count else (body, 0)


def compaction_message(
    model: str, summary: str, token: str, usage: Mapping[str, int]
) -> dict[str, Any]:
    """The answer to an Anthropic compaction request: one ``compaction`` block,
    ``stop_reason`` ``"compaction"``."""
    return {
        "id": f"msg_cfc_{os.urandom(12).hex()}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "compaction", "content": summary, "signature": token}],
        "stop_reason": "compaction",
        "stop_sequence": None,
        "usage": dict(usage),
    }


def compaction_events(message: Mapping[str, Any]) -> list[bytes]:
    """``message`` (:func:`compaction_message`) as Anthropic's stream sends one: the
    block opens with its signature, its summary comes in one ``compaction_delta``."""
    block = message["content"][0]
    usage = message["usage"]
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 0}}
    opening = json.dumps({"type": "message_start", "message": start}, ensure_ascii=False)
    head = f"event: message_start\ndata: {opening}\n\n"
    tail: list[tuple[str, dict[str, Any]]] = [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "compaction", "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return [
        head.encode(),
        *_block_events(block),
        *(
            f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()
            for name, data in tail
        ),
    ]


def split_at_summary(messages: Sequence[Message]) -> tuple[str | None, list[Message]]:
    """The latest expanded summary in ``messages`` and what follows it (everything,
    with ``None``, when there is none): a compaction of a compacted conversation
    updates the summary with what came after it."""
    for index in range(len(messages) - 1, -1, -1):
        parsed = parse_summary_message(messages[index])
        if parsed is not None:
            return parsed[0], list(messages[index + 1 :])
    return None, list(messages)


def user_items(items: object) -> list[dict[str, Any]]:
    """The user messages among Responses input ``items`` (a string is one), as the
    compacted output lists them: output message items (text content as a list of
    ``input_text`` parts), each sent back as it is on the next request."""
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    if not isinstance(items, list):
        return []
    found = []
    for item in items:
        if (
            isinstance(item, dict)
            and item.get("type", "message") == "message"
            and item.get("role") == "user"
        ):
            content = item.get("content")
            if isinstance(content, str):
                content = [{"type": "input_text", "text": content}]
            found.append(
                {
                    "id": item.get("id") or f"msg_{os.urandom(12).hex()}",
                    **item,
                    "type": "message",
                    "status": "completed",
                    "content": content,
                }
            )
    return found


def compacted_response(
    users: list[dict[str, Any]], token: str, input_tokens: int, output_tokens: int
) -> dict[str, Any]:
    """The body of ``/v1/responses/compact``'s answer (``object:
    "response.compaction"``): the user messages, then the compaction item."""
    now = int(time.time())
    return {
        "id": f"resp_cfc_{os.urandom(12).hex()}",
        "object": "response.compaction",
        "created_at": now,
        "output": [
            *users,
            {
                "id": f"cmp_{os.urandom(12).hex()}",
                "type": "compaction",
                "encrypted_content": token,
                "created_by": "contextfold",
            },
        ],
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        },
    }


# -- Anthropic's context editing (context_management.edits) -------------------------------

CLEARED_TOOL_RESULT: Final = "[tool result cleared to save context]"
"""What a cleared tool result holds (the model learns that it was removed)."""

_CLEAR_EDITS: Final = ("clear_tool_uses_20250919", "clear_thinking_20251015")
_TOOL_USES_TRIGGER: Final = 100_000  # input tokens, Anthropic's default
_TOOL_USES_KEEP: Final = 3
_THINKING_KEEP: Final = 1


class BadEdit(ValueError):
    """A ``context_management`` edit the proxy cannot read."""


def _count(name: str, value: object, kind: str) -> int:
    """The ``value`` of ``{"type": kind, "value": N}``; :class:`BadEdit` otherwise."""
    if (
        not isinstance(value, dict)
        or value.get("type") != kind
        or not isinstance(value.get("value"), int)
        or isinstance(value.get("value"), bool)
        or value["value"] < 0
    ):
        raise BadEdit(f'{name} must be {{"type": "{kind}", "value": N}} with N >= 0')
    number: int = value["value"]
    return number


def clear_edits(
    body: dict[str, Any], estimate: Callable[[list[Any]], int]
) -> tuple[dict[str, Any], list[dict[str, Any]] | None]:
    """``body`` with the ``clear_tool_uses_20250919`` and ``clear_thinking_20251015``
    edits of its ``context_management`` applied to its messages (and removed from it,
    with ``context_management`` itself once it holds no edit), and what they applied
    (``applied_edits``; ``None`` when the body asks for neither). ``estimate`` gives the
    input tokens of a list of messages. :class:`BadEdit` for an edit it cannot read."""
    config = body.get("context_management")
    if config is None:
        return body, None
    if not isinstance(config, dict) or not isinstance(config.get("edits", []), list):
        raise BadEdit("context_management must be an object with a list of edits")
    edits = config.get("edits", [])
    ours = [e for e in edits if isinstance(e, dict) and e.get("type") in _CLEAR_EDITS]
    if not ours:
        return body, None
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise BadEdit("messages must be a list")
    messages = json.loads(json.dumps(messages))  # edited in place: a copy
    applied: list[dict[str, Any]] = []
    for edit in ours:
        before = estimate(messages)
        if edit["type"] == "clear_tool_uses_20250919":
            least = edit.get("clear_at_least")
            least_tokens = 0 if least is None else _count("clear_at_least", least, "input_tokens")
            edited, count = _clear_tool_uses(edit, json.loads(json.dumps(messages)), before)
            cleared = 0 if edited is None else max(before - estimate(edited), 0)
            if edited is not None and cleared >= least_tokens:  # else: not worth a cache miss
                messages = edited
                applied.append(
                    {
                        "type": edit["type"],
                        "cleared_tool_uses": count,
                        "cleared_input_tokens": cleared,
                    }
                )
        else:
            messages, turns = _clear_thinking(edit, messages)
            if turns:
                applied.append(
                    {
                        "type": edit["type"],
                        "cleared_thinking_turns": turns,
                        "cleared_input_tokens": max(before - estimate(messages), 0),
                    }
                )
    left = [e for e in edits if e not in ours]
    rest = {k: v for k, v in body.items() if k != "context_management"}
    if left or set(config) - {"edits"}:
        rest["context_management"] = {**config, "edits": left}
    rest["messages"] = messages
    return rest, applied


def _tool_uses(messages: list[Any]) -> list[tuple[int, int, dict[str, Any]]]:
    """``(message index, block index, block)`` of every ``tool_use``, oldest first."""
    found = []
    for m, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, list):
            for b, block in enumerate(content):
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    found.append((m, b, block))
    return found


def _clear_tool_uses(
    edit: dict[str, Any], messages: list[Any], tokens: int
) -> tuple[list[Any] | None, int]:
    """The messages with the oldest tool results cleared, and how many; ``None`` when
    the edit is not triggered or would clear less than ``clear_at_least``."""
    keep = (
        _TOOL_USES_KEEP if edit.get("keep") is None else _count("keep", edit["keep"], "tool_uses")
    )
    excluded = edit.get("exclude_tools") or []
    inputs = edit.get("clear_tool_inputs", False)
    if not isinstance(excluded, list) or not all(isinstance(n, str) for n in excluded):
        raise BadEdit("exclude_tools must be a list of tool names")
    if not (
        isinstance(inputs, bool)
        or (isinstance(inputs, list) and all(isinstance(n, str) for n in inputs))
    ):
        raise BadEdit("clear_tool_inputs must be true, false or a list of tool names")
    uses = _tool_uses(messages)
    trigger = edit.get("trigger")
    if trigger is None:
        due = tokens >= _TOOL_USES_TRIGGER
    elif isinstance(trigger, dict) and trigger.get("type") == "tool_uses":
        due = len(uses) >= _count("trigger", trigger, "tool_uses")
    else:
        due = tokens >= _count("trigger", trigger, "input_tokens")
    if not due:
        return None, 0
    candidates = [u for u in uses if u[2].get("name") not in excluded]
    old = candidates[: max(len(candidates) - keep, 0)]
    ids = {u[2]["id"] for u in old if isinstance(u[2].get("id"), str)}
    cleared = 0
    for message in messages:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for b, block in enumerate(content):
            if (
                isinstance(block, dict)
                and block.get("type") == "tool_result"
                and isinstance(block.get("tool_use_id"), str)
                and block["tool_use_id"] in ids
                and block.get("content") != CLEARED_TOOL_RESULT
            ):
                content[b] = {**block, "content": CLEARED_TOOL_RESULT}
                cleared += 1
    for m, b, block in old:
        if inputs is True or (isinstance(inputs, list) and block.get("name") in inputs):
            messages[m]["content"][b] = {**block, "input": {}}
    return (messages, cleared) if cleared else (None, 0)


def _clear_thinking(edit: dict[str, Any], messages: list[Any]) -> tuple[list[Any], int]:
    """The messages with the thinking of all but the latest ``keep`` assistant turns
    that have some removed, and how many turns lost it. A turn runs from a user
    message that is not only tool results to the next such message."""
    keep_given = edit.get("keep")
    if keep_given == "all" or (isinstance(keep_given, dict) and keep_given.get("type") == "all"):
        return messages, 0
    keep = _THINKING_KEEP if keep_given is None else _count("keep", keep_given, "thinking_turns")
    turns: list[list[int]] = []
    for m, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if message.get("role") == "user":
            results_only = (
                isinstance(content, list)
                and content
                and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
            )
            if not results_only or not turns:
                turns.append([])
        elif message.get("role") == "assistant":
            if not turns:
                turns.append([])
            turns[-1].append(m)
    thinking = [turn for turn in turns if any(_has_thinking(messages[m]) for m in turn)]
    old = thinking[: max(len(thinking) - keep, 0)]
    for turn in old:
        for m in turn:
            content = messages[m]["content"]
            if not isinstance(content, list):
                continue
            kept = [
                b
                for b in content
                if not (isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking"))
            ]
            messages[m] = {**messages[m], "content": kept or content}
    return messages, len(old)


def _has_thinking(message: dict[str, Any]) -> bool:
    content = message.get("content")
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking") for b in content
    )


def with_applied_edits(data: bytes, applied: list[dict[str, Any]]) -> bytes:
    """A JSON message (or an SSE stream's ``message_delta`` event) with
    ``context_management.applied_edits`` added; anything else as it is."""
    try:
        message = json.loads(data)
    except ValueError:
        return data
    if not isinstance(message, dict) or message.get("type") not in ("message", "message_delta"):
        return data
    message["context_management"] = {"applied_edits": applied}
    return json.dumps(message, ensure_ascii=False).encode()


async def applied_in_stream(
    chunks: AsyncIterator[bytes], applied: list[dict[str, Any]]
) -> AsyncIterator[bytes]:
    """An Anthropic SSE stream with ``applied_edits`` in its ``message_delta`` event."""
    pending = b""
    async for chunk in chunks:
        pending += chunk
        while True:
            cut = pending.find(b"\n\n")
            if cut < 0:
                break
            event, pending = pending[: cut + 2], pending[cut + 2 :]
            if b"message_delta" in event:
                lines = event.split(b"\n")
                lines = [
                    b"data: " + with_applied_edits(line[6:], applied)
                    if line.startswith(b"data: ")
                    else line
                    for line in lines
                ]
                event = b"\n".join(lines)
            yield event
    if pending:
        yield pending


COMPACT_EDIT: Final = "compact_20260112"
_COMPACT_TRIGGER: Final = 150_000  # input tokens, Anthropic's default


def compact_edit(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """``body`` without its ``compact_20260112`` edit (and without
    ``context_management`` once it holds nothing), and that edit, checked; ``None``
    when there is none. :class:`BadEdit` for one the proxy cannot read."""
    config = body.get("context_management")
    if not isinstance(config, dict) or not isinstance(config.get("edits"), list):
        return body, None
    found = [e for e in config["edits"] if isinstance(e, dict) and e.get("type") == COMPACT_EDIT]
    if not found:
        return body, None
    if len(found) > 1:
        raise BadEdit(f"{COMPACT_EDIT} is given more than once")
    edit = found[0]
    if edit.get("trigger") is not None:
        _count("trigger", edit["trigger"], "input_tokens")
    instructions = edit.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise BadEdit("instructions must be a string")
    if not isinstance(edit.get("pause_after_compaction", False), bool):
        raise BadEdit("pause_after_compaction must be true or false")
    left = [e for e in config["edits"] if e is not edit]
    rest = {k: v for k, v in body.items() if k != "context_management"}
    if left or set(config) - {"edits"}:
        rest["context_management"] = {**config, "edits": left}
    return rest, edit


def compact_trigger(edit: Mapping[str, Any]) -> int:
    """The input tokens past which ``edit`` (checked by :func:`compact_edit`) compacts."""
    trigger = edit.get("trigger")
    return _COMPACT_TRIGGER if trigger is None else _count("trigger", trigger, "input_tokens")


def current_turn(messages: Sequence[Any]) -> int:
    """Where the turn in progress starts: the last user message that is not only tool
    results (0 when there is none)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if not (
            isinstance(content, list)
            and content
            and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
        ):
            return index
    return 0


def with_block(data: bytes, block: Mapping[str, Any]) -> bytes:
    """A JSON message with ``block`` first in its content; anything else as it is."""
    try:
        message = json.loads(data)
    except ValueError:
        return data
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return data
    message["content"].insert(0, dict(block))
    return json.dumps(message, ensure_ascii=False).encode()


async def block_in_stream(
    chunks: AsyncIterator[bytes], block: Mapping[str, Any]
) -> AsyncIterator[bytes]:
    """An Anthropic SSE stream with ``block`` (a compaction block) sent first: its
    events right after ``message_start``, every later block's ``index`` one higher."""
    pending = b""
    opened = False
    async for chunk in chunks:
        pending += chunk
        while True:
            cut = pending.find(b"\n\n")
            if cut < 0:
                break
            event, pending = pending[: cut + 2], pending[cut + 2 :]
            lines = event.split(b"\n")
            data = next((line[6:] for line in lines if line.startswith(b"data: ")), None)
            try:
                parsed = json.loads(data) if data is not None else None
            except ValueError:
                parsed = None
            if isinstance(parsed, dict) and isinstance(parsed.get("index"), int):
                parsed["index"] += 1
                text = json.dumps(parsed, ensure_ascii=False).encode()
                event = b"\n".join(
                    b"data: " + text if line.startswith(b"data: ") else line for line in lines
                )
            yield event
            if not opened and isinstance(parsed, dict) and parsed.get("type") == "message_start":
                opened = True
                for extra in _block_events(block):
                    yield extra
    if pending:
        yield pending


def _block_events(block: Mapping[str, Any]) -> list[bytes]:
    start = {"type": "compaction", "content": None, "signature": block["signature"]}
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": start},
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "compaction_delta", "content": block["content"]},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    ]
    return [
        f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()
        for name, data in events
    ]


# -- OpenAI's context_management compaction option of /v1/responses -----------------------


def responses_compaction(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """``body`` without its ``context_management`` compaction entry (the key dropped
    once empty), and that entry, checked; ``None`` when there is none. :class:`BadEdit`
    for one the proxy cannot read."""
    config = body.get("context_management")
    if config is None:
        return body, None
    if not isinstance(config, list) or not all(isinstance(e, dict) for e in config):
        raise BadEdit("context_management must be a list of objects")
    found = [e for e in config if e.get("type") == "compaction"]
    if not found:
        return body, None
    if len(found) > 1:
        raise BadEdit("the compaction entry is given more than once")
    threshold = found[0].get("compact_threshold")
    if threshold is not None and (
        not isinstance(threshold, int) or isinstance(threshold, bool) or threshold < 1
    ):
        raise BadEdit("compact_threshold must be a positive number of tokens")
    left = [e for e in config if e is not found[0]]
    rest = {k: v for k, v in body.items() if k != "context_management"}
    if left:
        rest["context_management"] = left
    return rest, found[0]


def current_input_turn(items: Sequence[Any]) -> int:
    """Where the turn in progress starts among Responses input ``items``: the last
    user message (0 when there is none)."""
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if (
            isinstance(item, dict)
            and item.get("role") == "user"
            and item.get("type", "message") == "message"
        ):
            return index
    return 0


def with_output_item(data: bytes, item: Mapping[str, Any]) -> bytes:
    """A JSON response object with ``item`` first in its ``output``."""
    try:
        response = json.loads(data)
    except ValueError:
        return data
    if not isinstance(response, dict) or not isinstance(response.get("output"), list):
        return data
    response["output"].insert(0, dict(item))
    return json.dumps(response, ensure_ascii=False).encode()


async def item_in_stream(
    chunks: AsyncIterator[bytes], item: Mapping[str, Any]
) -> AsyncIterator[bytes]:
    """A Responses SSE stream with ``item`` as output 0: its ``output_item.added`` and
    ``.done`` events after ``response.in_progress`` (or ``response.created``), every
    later ``output_index`` one higher, ``sequence_number`` counted anew, and the item
    first in the ``response`` objects the events carry."""
    pending = b""
    sequence = 0
    sent = False
    async for chunk in chunks:
        pending += chunk
        while True:
            cut = pending.find(b"\n\n")
            if cut < 0:
                break
            event, pending = pending[: cut + 2], pending[cut + 2 :]
            lines = event.split(b"\n")
            data = next((line[6:] for line in lines if line.startswith(b"data: ")), None)
            try:
                parsed = json.loads(data) if data is not None else None
            except ValueError:
                parsed = None
            if not isinstance(parsed, dict):
                yield event
                continue
            kind = parsed.get("type")
            if isinstance(parsed.get("output_index"), int):
                parsed["output_index"] += 1
            response = parsed.get("response")
            if (
                isinstance(response, dict)
                and isinstance(response.get("output"), list)
                and (kind == "response.completed" or response["output"])
            ):
                response["output"].insert(0, dict(item))
            if not sent and kind not in ("response.created", "response.in_progress"):
                for name, extra in (
                    ("response.output_item.added", {**item}),
                    ("response.output_item.done", {**item}),
                ):
                    added = {"type": name, "output_index": 0, "item": extra}
                    added["sequence_number"] = sequence
                    sequence += 1
                    line = json.dumps(added, ensure_ascii=False)
                    yield f"event: {name}\ndata: {line}\n\n".encode()
                sent = True
            if "sequence_number" in parsed:
                parsed["sequence_number"] = sequence
                sequence += 1
            rewritten = json.dumps(parsed, ensure_ascii=False).encode()
            yield b"\n".join(
                b"data: " + rewritten if raw.startswith(b"data: ") else raw for raw in lines
            )
    if pending:
        yield pending
