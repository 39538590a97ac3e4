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
    everything is forwarded as it came, as before.

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
An item the provider issued (not one of ours) passes through untouched where the mode
is ``"pass"`` (or ``"auto"`` before the provider), and is refused with a clear 400
where the proxy emulates: no other upstream can read it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import secrets
import time
import zlib
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from contextfold.compaction._summarizer import parse_summary_message, render_summary_message
from contextfold.messages import Message

__all__ = [
    "MODES",
    "PREFIX",
    "ForeignItem",
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


class ForeignItem(ValueError):
    """A compaction item the proxy did not issue, where it emulates the API."""


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
        except (binascii.Error, ValueError, zlib.error):
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


def expand_responses(
    body: dict[str, Any], seal: Seal, tenant: str, *, emulate: bool
) -> tuple[dict[str, Any], int]:
    """``body`` with every compaction item the proxy issued replaced by its summary,
    and how many were. With ``emulate``, an item the proxy did not issue is a
    :class:`ForeignItem`; otherwise it is left as it is. A token of the proxy's form
    that does not verify is a :class:`ForgedItem`."""
    items = body.get("input")
    if not isinstance(items, list):
        return body, 0
    expanded: list[Any] = []
    count = 0
    for item in items:
        if not (isinstance(item, dict) and item.get("type") == "compaction"):
            expanded.append(item)
            continue
        if not is_ours(item):
            if emulate:
                raise ForeignItem(
                    "a compaction item the proxy did not issue: its encrypted_content "
                    "can only be read by the provider that wrote it, and this upstream "
                    "is not that provider (contextfold emulates compaction for it; "
                    "compact again through the proxy)"
                )
            expanded.append(item)
            continue
        payload = seal.open("openai", tenant, item.get("encrypted_content"))
        expanded.append(summary_item(payload["summary"]))
        count += 1
    return ({**body, "input": expanded}, count) if count else (body, 0)


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
