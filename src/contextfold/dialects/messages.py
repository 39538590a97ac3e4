"""Anthropic's Messages API (``POST /v1/messages``): :data:`MESSAGES`.

Histories, both ways (:func:`to_anthropic`, :func:`from_anthropic`):

* ``system`` and the system messages that open the history form the top-level
  ``system`` parameter (joined by a blank line).
* A ``system`` message inside ``messages`` (Claude Code sends one) is read as a
  system message. A later system message is written as a user turn whose one text
  block reads ``"<system>\\n...\\n</system>"``, or, when it sits between a tool call
  and its result, as that text block after the tool results. :func:`from_anthropic`
  turns such blocks back into system messages.
* Thinking blocks are written with their signatures (``redacted_thinking`` for
  redacted ones): only send them back to Anthropic.
* Blocks of types nobody models (``document``, ``search_result``, server tool blocks,
  an image by URL or file id...) and messages of unknown roles are carried whole
  (see :mod:`contextfold.dialects`).

Every message reads on its own, so a history may be cut anywhere. Answers report
cached tokens apart from the rest (added back by :meth:`Messages.input_tokens`);
errors are ``{"type": "error", "error": {"type", "message"}}``; a prompt over the
window is "prompt is too long". The ``anthropic-beta: context-1m-...`` header asks
for a window of a million tokens.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final

from contextfold.blocks import (
    ContentBlock,
    ImageBlock,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.dialects._common import (
    decode_image,
    plain_text,
    sizes_of,
    split_system,
    sse,
    texts_of,
    unknown_role,
    usage_total,
    whole_message,
)
from contextfold.dialects.base import Dialect, ItemRole
from contextfold.messages import Message

__all__ = [
    "DIALECT",
    "MESSAGES",
    "Messages",
    "block_to_anthropic",
    "blocks_from_anthropic",
    "from_anthropic",
    "split_notes",
    "system_note",
    "to_anthropic",
]

DIALECT: Final = "anthropic"
"""The :attr:`~contextfold.blocks.OpaqueBlock.dialect` of blocks read from Messages dicts."""

_SYSTEM_MARK: Final = re.compile(r"<system>\n(?P<text>.*)\n</system>\Z", re.DOTALL)
_THINKING: Final = frozenset({"thinking", "redacted_thinking"})
_OVERFLOW: Final = ("prompt is too long", "input length and max_tokens exceed context limit")
_WINDOW: Final = re.compile(r"tokens > (\d[\d,]{0,12}) maximum", re.IGNORECASE)
_PROMPT: Final = re.compile(r"too long: (\d[\d,]{0,12}) tokens", re.IGNORECASE)
_ONE_MILLION_BETA: Final = "context-1m"
_ERROR_TYPES: Final[dict[int, str]] = {
    400: "invalid_request_error",
    404: "not_found_error",
    405: "invalid_request_error",
    413: "request_too_large",
    431: "invalid_request_error",
    500: "api_error",
    502: "api_error",
    504: "timeout_error",
}

# ---------------------------------------------------------------- blocks


def system_note(text: str) -> dict[str, Any]:
    """The text block that carries a system message inside a user turn."""
    return {"type": "text", "text": f"<system>\n{text}\n</system>"}


def split_notes(blocks: list[ContentBlock]) -> tuple[list[str], list[ContentBlock]]:
    """``(notes, others)``: the texts of the :func:`system_note` blocks, and the rest."""
    notes: list[str] = []
    others: list[ContentBlock] = []
    for block in blocks:
        mark = _SYSTEM_MARK.match(block.text) if isinstance(block, TextBlock) else None
        if mark is None:
            others.append(block)
        else:
            notes.append(mark["text"])
    return notes, others


def block_to_anthropic(block: ContentBlock) -> dict[str, Any]:
    """``block`` as a Messages API content block dict; ``TypeError`` if it is not a block."""
    match block:
        case TextBlock(text=text):
            return {"type": "text", "text": text}
        case ImageBlock(media_type=media_type, data=data):
            source = {
                "type": "base64",
                "media_type": media_type,
                "data": base64.b64encode(data).decode("ascii"),
            }
            return {"type": "image", "source": source}
        case ToolUseBlock(id=id_, name=name, input=input_):
            return {"type": "tool_use", "id": id_, "name": name, "input": dict(input_)}
        case ToolResultBlock(tool_use_id=tool_use_id, content=content, is_error=is_error):
            wire: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": tool_use_id,
                "content": content
                if isinstance(content, str)
                else [block_to_anthropic(b) for b in content],
            }
            if is_error:
                wire["is_error"] = True
            return wire
        case ThinkingBlock(thinking=thinking, signature=signature, redacted=True):
            return {"type": "redacted_thinking", "data": thinking}
        case ThinkingBlock(thinking=thinking, signature=signature):
            return {"type": "thinking", "thinking": thinking, "signature": signature}
        case OpaqueBlock(dialect="anthropic", data=data):
            return dict(data)
        case OpaqueBlock():
            return {"type": "text", "text": block.placeholder()}
    raise TypeError(f"not a content block: {block!r}")


def blocks_from_anthropic(content: Any, where: str) -> list[ContentBlock]:
    """A message's ``content`` (a string or a list of block dicts) as content blocks.

    A block of a type not modelled here becomes an :class:`OpaqueBlock` holding the
    dict as it came. Raises :class:`ValueError` starting with ``where``
    (``"message 3"``, ``"system"``) for content of the wrong type and malformed
    blocks of the modelled types.
    """
    if isinstance(content, str):
        return [TextBlock(content)]
    if not isinstance(content, Sequence):
        raise ValueError(
            f"{where} field 'content' must be a string or a list of blocks, "
            f"got {type(content).__name__}"
        )
    return [_parse_block(block, where) for block in content]


def _parse_block(block: Any, where: str) -> ContentBlock:
    if not isinstance(block, Mapping):
        raise ValueError(f"{where}: a content block must be a dict, got {type(block).__name__}")
    kind = block.get("type")
    try:
        match kind:
            case "text":
                return TextBlock(_str(block, "text"))
            case "image":
                source = block.get("source")
                if not isinstance(source, Mapping):
                    raise ValueError("image field 'source' must be an object")
                if source.get("type") != "base64":  # by URL or file id: carried as it came
                    return OpaqueBlock("image", dict(block), DIALECT)
                return decode_image(_str(source, "media_type"), _str(source, "data"), where)
            case "tool_use":
                input_ = block.get("input", {})
                if not isinstance(input_, dict):
                    raise ValueError("tool_use field 'input' must be an object")
                return ToolUseBlock(_str(block, "id"), _str(block, "name"), input_)
            case "tool_result":
                content = block.get("content", "")
                parsed: str | list[TextBlock | ImageBlock | OpaqueBlock] = ""
                if isinstance(content, str):
                    parsed = content
                else:
                    parts = blocks_from_anthropic(content, where)
                    kinds = TextBlock | ImageBlock | OpaqueBlock
                    if not all(isinstance(p, kinds) for p in parts):
                        raise ValueError("tool_result content may not hold tool calls or thinking")
                    parsed = [p for p in parts if isinstance(p, kinds)]
                is_error = block.get("is_error") is True
                return ToolResultBlock(_str(block, "tool_use_id"), parsed, is_error)
            case "thinking":
                signature = block.get("signature")
                if signature is not None and not isinstance(signature, str):
                    raise ValueError("thinking field 'signature' must be a string")
                return ThinkingBlock(_str(block, "thinking"), signature or "")
            case "redacted_thinking":
                return ThinkingBlock(_str(block, "data"), redacted=True)
            case None:
                raise ValueError("content block is missing field 'type'")
            case str():
                return OpaqueBlock(kind, dict(block), DIALECT)
            case _:
                raise ValueError(f"content block field 'type' must be a string, got {kind!r}")
    except ValueError as exc:
        reason = str(exc)  # nested parts already say where they are
        raise ValueError(
            reason if reason.startswith(f"{where}:") else f"{where}: {reason}"
        ) from None


def _str(d: Mapping[str, Any], name: str) -> str:
    value = d.get(name)
    if not isinstance(value, str):
        raise ValueError(f"{d.get('type', 'block')} field {name!r} must be a string")
    return value


# ---------------------------------------------------------------- histories


def to_anthropic(
    messages: Sequence[Message], system: str | None = None, *, lift: bool = True
) -> tuple[str | None, list[dict[str, Any]]]:
    """``(system, messages)`` for the Messages API (see the module doc for system messages).

    Thinking blocks are included with their signatures (``redacted_thinking`` for
    redacted ones): only send them back to Anthropic. ``lift=False`` writes the
    system messages that open ``messages`` as notes too, for a part of a history
    placed after others.
    """
    lead, rest = split_system(messages) if lift else (None, list(messages))
    top = "\n\n".join(s for s in (system, lead) if s) or None
    out: list[dict[str, Any]] = []
    deferred: list[dict[str, Any]] = []  # system notes waiting for pending tool results
    for message in rest:
        whole = whole_message(message, DIALECT)
        if whole is not None:
            out.append(whole)
            continue
        if message.role == "system":
            note = system_note(plain_text(message))
            awaiting = bool(out) and any(b["type"] == "tool_use" for b in out[-1]["content"])
            if awaiting and out[-1]["role"] == "assistant":
                deferred.append(note)
            else:
                out.append({"role": "user", "content": [note]})
            continue
        blocks = [block_to_anthropic(b) for b in message.content]
        if deferred:
            cut = sum(1 for b in blocks if b["type"] == "tool_result")
            blocks[cut:cut] = deferred
            deferred = []
        out.append({"role": message.role, "content": blocks})
    if deferred:
        out.append({"role": "user", "content": deferred})
    return top, out


def from_anthropic(
    messages: Sequence[Mapping[str, Any]], system: str | Sequence[Mapping[str, Any]] | None = None
) -> list[Message]:
    """Parse Messages API dicts (and the top-level ``system``) into messages.

    A non-empty ``system`` (a string or a list of text blocks) becomes the first,
    system message; ``<system>`` notes written by :func:`to_anthropic` and messages of
    role ``system`` become system messages. Blocks of unknown types and messages of
    unknown roles are carried as :class:`~contextfold.blocks.OpaqueBlock` s;
    malformed ones raise :class:`ValueError`.
    """
    out: list[Message] = []
    if isinstance(system, str) and system:
        out.append(Message.system(system))
    elif system:
        blocks = blocks_from_anthropic(system, "system")
        texts = [b.text for b in blocks if isinstance(b, TextBlock)]
        if len(texts) != len(blocks):
            raise ValueError("system may hold only text blocks")
        out.append(Message.system("\n\n".join(texts)))
    for index, wire in enumerate(messages):
        if not isinstance(wire, Mapping):
            raise ValueError(f"message {index} must be a dict, got {type(wire).__name__}")
        role = wire.get("role")
        if role is None:
            raise ValueError(f"message {index} is missing field 'role'")
        if not isinstance(role, str):
            raise ValueError(f"message {index} field 'role' must be a string")
        if role not in ("user", "assistant", "system"):
            out.append(unknown_role(wire, DIALECT))
            continue
        blocks = blocks_from_anthropic(wire.get("content"), f"message {index}")
        if role == "system":
            out.append(Message("system", blocks))
            continue
        if role == "user":
            notes, others = split_notes(blocks)
            # Only two shapes are notes: a message of notes alone, or tool results
            # followed by the notes that waited for them.
            if notes and (not others or all(isinstance(b, ToolResultBlock) for b in others)):
                out += [Message.system(note) for note in notes]
                if others:
                    out.append(Message("user", others))
                continue
        out.append(Message("user" if role == "user" else "assistant", blocks))
    return out


def _has_block(content: Any, kind: str) -> bool:
    return isinstance(content, list) and any(
        isinstance(b, Mapping) and b.get("type") == kind for b in content
    )


def _thinking(content: Any) -> list[Any]:
    """The thinking blocks ``content`` opens with."""
    opening = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict) or block.get("type") not in _THINKING:
            break
        opening.append(block)
    return opening


# ---------------------------------------------------------------- the dialect


class Messages(Dialect):
    """Anthropic's Messages API: ``messages`` and a top-level ``system``."""

    name = DIALECT
    path = "/v1/messages"
    provider = "anthropic"
    history_key = "messages"
    outside_key = "system"
    rules = "anthropic"
    history_marker = re.compile(rb'"messages"\s*:\s*\[')
    supports_recall = True

    def read(self, items: Sequence[Any], outside: Any = None) -> list[Message]:
        return from_anthropic(items, outside)

    def write(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        return to_anthropic(messages, lift=False)[1]

    def write_split(self, messages: Sequence[Message]) -> tuple[str | None, list[dict[str, Any]]]:
        return to_anthropic(messages)

    def place_outside(self, body: dict[str, Any], messages: Sequence[Message]) -> bool:
        text, _ = to_anthropic(messages)
        body["system"] = text
        if text is None:
            body.pop("system", None)
        return True

    def history(self, body: Mapping[str, Any]) -> tuple[str | list[Any], Any]:
        system = body.get("system")
        if system is not None and not isinstance(system, str | list):
            raise ValueError("field 'system' must be a string or a list of text blocks")
        return body["messages"], system

    def fresh(self, items: Sequence[Any], index: int) -> bool:
        return True  # every message reads on its own

    def classify(self, item: Any) -> ItemRole:
        if not isinstance(item, Mapping):
            return ItemRole("other")
        role, content = item.get("role"), item.get("content")
        if role == "assistant":
            return ItemRole("assistant", _has_block(content, "tool_use"))
        if role != "user":
            return ItemRole("other")
        if _has_block(content, "tool_result"):
            return ItemRole("results", True)
        return ItemRole("turn", False, texts_of(content))

    def input_tokens(self, payload: Any) -> int | None:
        if not isinstance(payload, dict):
            return None
        if isinstance(payload.get("message"), dict):
            payload = payload["message"]  # the message_start event
        keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        return usage_total(payload.get("usage"), keys)

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kind = _ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    def is_overflow(self, status: int | None, error: Any, fallback: str = "") -> bool:
        """Anthropic's "prompt is too long" on a 400 or 413, or on a 200 for an error
        event inside a stream."""
        error = error if isinstance(error, Mapping) else {}
        message = str(error.get("message") or fallback).lower().replace("`", "")
        return status in (200, 400, 413) and any(m in message for m in _OVERFLOW)

    def reported_sizes(self, text: str) -> tuple[int, int] | None:
        """From "prompt is too long: M tokens > N maximum"."""
        window, prompt = _WINDOW.search(text), _PROMPT.search(text)
        if window is None or prompt is None:
            return None
        return sizes_of(window, prompt)

    def overflow_body(self, prompt_tokens: int, window: int) -> dict[str, Any]:
        message = f"prompt is too long: {prompt_tokens} tokens > {window} maximum"
        return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}

    def upstream_url(self, path: str, *, openai_base: str, anthropic_base: str) -> str:
        return anthropic_base + path

    def claims(self, path: str, headers: Mapping[str, str]) -> bool:
        """Its route and what lies under it, and any request naming an
        ``anthropic-version``."""
        return super().claims(path, headers) or "anthropic-version" in headers

    def window(self, headers: Iterable[tuple[str, str]]) -> int | None:
        """A million tokens with the 1M-context beta (``anthropic-beta: context-1m-...``)."""
        betas = ",".join(value for name, value in headers if name.lower() == "anthropic-beta")
        return 1_000_000 if _ONE_MILLION_BETA in betas else None

    # -- recall ---------------------------------------------------------------------

    def tool_definition(
        self, name: str, description: str, schema: Mapping[str, Any]
    ) -> dict[str, Any]:
        return {"name": name, "description": description, "input_schema": schema}

    def tool_spec(self, tool: Any) -> Mapping[str, Any] | None:
        return tool if isinstance(tool, dict) else None

    def tool_uses(self, payload: Any) -> Iterator[tuple[Any, str, Any]]:
        if not isinstance(payload, dict):
            return
        blocks = payload.get("content")
        for block in blocks if isinstance(blocks, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                yield block.get("name"), str(block.get("id")), block.get("input")

    def answer_tools(
        self,
        body: Mapping[str, Any],
        payload: Mapping[str, Any],
        answers: Sequence[tuple[str, str, bool]],
    ) -> dict[str, Any]:
        results = [
            {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": error}
            for call_id, text, error in answers
        ]
        messages = [
            *body["messages"],
            {"role": "assistant", "content": payload.get("content") or []},
            {"role": "user", "content": results},
        ]
        return {**body, "messages": messages}

    def without_tool(self, payload: Mapping[str, Any], name: str, note: str) -> dict[str, Any]:
        blocks = [
            b
            for b in payload.get("content") or []
            if not (isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == name)
        ]
        if all(isinstance(b, dict) and b.get("type") in _THINKING for b in blocks):
            blocks.append({"type": "text", "text": note})  # nothing but thinking is left
        out = {**payload, "content": blocks}
        if payload.get("stop_reason") == "tool_use" and not _has_block(blocks, "tool_use"):
            out["stop_reason"] = "end_turn"
        return out

    def opening_thinking(self, payload: Mapping[str, Any]) -> list[Any]:
        return _thinking(payload.get("content"))

    def with_opening(self, payload: dict[str, Any], opening: list[Any]) -> dict[str, Any]:
        """With thinking on, the assistant message of a tool-use cycle must start with
        its thinking: a reply calling the client's tools without thinking of its own
        gets the turn's first."""
        content = payload["content"]
        if not _has_block(content, "tool_use") or _thinking(content):
            return payload
        return {**payload, "content": [*opening, *content]}

    def replay(self, payload: Mapping[str, Any], request: Mapping[str, Any]) -> Iterator[str]:
        usage = payload.get("usage") or {}
        start = {**payload, "content": [], "stop_reason": None, "stop_sequence": None}
        start["usage"] = {**usage, "output_tokens": 0}
        yield sse({"type": "message_start", "message": start}, "message_start")
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
            yield sse(
                {"type": "content_block_start", "index": index, "content_block": opening},
                "content_block_start",
            )
            for delta in deltas:
                yield sse(
                    {"type": "content_block_delta", "index": index, "delta": delta},
                    "content_block_delta",
                )
            yield sse({"type": "content_block_stop", "index": index}, "content_block_stop")
        end = {
            "stop_reason": payload.get("stop_reason"),
            "stop_sequence": payload.get("stop_sequence"),
        }
        tail = {"output_tokens": usage.get("output_tokens", 0)}
        yield sse({"type": "message_delta", "delta": end, "usage": tail}, "message_delta")
        yield sse({"type": "message_stop"}, "message_stop")


MESSAGES: Final = Messages()
"""Anthropic's Messages API."""
