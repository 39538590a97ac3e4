"""OpenAI's Responses API (``POST /v1/responses``): :data:`RESPONSES`.

A request carries its history in ``input`` (a string, or a flat list of *items*) and
its system prompt in ``instructions``; a :class:`~contextfold.messages.Message` is a
turn. Items are grouped into messages by their side of the conversation
(:func:`from_responses`, :func:`to_responses`):

* the assistant's side: ``reasoning`` items, ``function_call`` items and ``message``
  items of role ``assistant`` - consecutive ones form one assistant message (so a
  reasoning item is never separated from the call or answer it led to);
* tool results: consecutive ``function_call_output`` items form one user message of
  :class:`~contextfold.blocks.ToolResultBlock` s;
* every ``message`` item of role ``user``, ``system`` or ``developer`` is a message
  of its own (``developer`` becomes ``system``). A string ``input`` is one user
  message; ``instructions`` a leading system message.

:func:`item_starts` gives the item index where each message begins, so a caller can
copy the original items of any message verbatim. Reasoning items are read as
:class:`~contextfold.blocks.ThinkingBlock` s and never written: replay them only from
the items the client sent. Tool errors carry
:data:`~contextfold.dialects.chat.TOOL_ERROR_PREFIX` as in Chat Completions.

Items nobody models here are carried as :class:`~contextfold.blocks.OpaqueBlock` s
(dialect :data:`DIALECT`), on the side their type says: an output or an approval
answer (``*_output``, ``*_response``: ``custom_tool_call_output``,
``computer_call_output``...) with the tool results, anything else (hosted and custom
tool calls, ``compaction`` items...) with the assistant's turn. One that carries a
``call_id`` pairs with its output like a function call (an approval with the request
whose ``id`` it answers). A ``message`` item of an unknown role is a system message
holding it whole. Content parts nobody models (files, audio, images by URL or file id)
are opaque blocks of dialect :data:`PART_DIALECT`. Only malformed items (not objects,
a non-string ``type`` or ``role``, a function call without its ``call_id``) raise
:class:`ValueError`.

A request that leans on history the upstream holds (``previous_response_id``,
``conversation``, ``item_reference`` items) cannot be compacted
(:meth:`Responses.server_state`). The proxy offers no recall tool on this format.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

from contextfold.blocks import (
    ContentBlock,
    ImageBlock,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.dialects import _openai
from contextfold.dialects._common import DATA_URL, decode_image, plain_text, texts_of, usage_total
from contextfold.dialects._openai import TOOL_ERROR_PREFIX, holds_json_object, mark_error
from contextfold.dialects.base import Dialect, ItemRole
from contextfold.messages import Message

__all__ = [
    "DIALECT",
    "PART_DIALECT",
    "RESPONSES",
    "Responses",
    "from_responses",
    "item_starts",
    "to_responses",
]

DIALECT: Final = "responses"
"""The :attr:`~contextfold.blocks.OpaqueBlock.dialect` of input items carried whole."""
PART_DIALECT: Final = "responses.part"
"""The :attr:`~contextfold.blocks.OpaqueBlock.dialect` of content parts carried whole."""

_Side = Literal["assistant", "results", "user", "system"]

_TEXT_PARTS: Final = frozenset({"input_text", "output_text"})
_STATE_FIELDS: Final = ("previous_response_id", "conversation")


def _side(item: Any, index: int) -> _Side:
    """Which side of the conversation ``item`` belongs to (``ValueError`` if malformed)."""
    if not isinstance(item, Mapping):
        raise ValueError(f"input item {index} must be an object, got {type(item).__name__}")
    kind = item.get("type", "message" if "role" in item else None)
    if not isinstance(kind, str):
        raise ValueError(f"input item {index} field 'type' must be a string, got {kind!r}")
    if kind != "message":
        return "results" if _answers(kind) else "assistant"
    role = item.get("role")
    if not isinstance(role, str):
        raise ValueError(f"input item {index} field 'role' must be a string, got {role!r}")
    if role == "assistant":
        return "assistant"
    if role == "user":
        return "user"
    return "system"  # system, developer, or a role nobody models (carried whole)


def _side_of(item: Any) -> _Side | None:
    """:func:`_side`, or ``None`` for an item it would refuse."""
    try:
        return _side(item, 0)
    except ValueError:
        return None


def _answers(kind: str) -> bool:
    """Whether an item of ``kind`` answers the assistant (a tool's output, an approval)."""
    return kind.endswith(("_output", "_response"))


def item_starts(items: Sequence[Any]) -> list[int]:
    """The index in ``items`` where each message :func:`from_responses` makes begins.

    Raises the same :class:`ValueError` as :func:`from_responses` for an item it
    does not model (the content of the items is not read).
    """
    starts: list[int] = []
    previous: _Side | None = None
    for index, item in enumerate(items):
        side = _side(item, index)
        if not (side == previous and side in ("assistant", "results")):
            starts.append(index)
        previous = side
    return starts


# ---------------------------------------------------------------- from Responses


def from_responses(
    items: str | Sequence[Mapping[str, Any]], instructions: str | None = None
) -> list[Message]:
    """Parse a Responses ``input`` (a string or a list of items) into messages.

    Non-empty ``instructions`` become the first, system message. A string ``input``
    is one user message. See the module doc for the grouping of items; a reasoning
    item becomes a :class:`ThinkingBlock` (its ``encrypted_content``, marked
    ``redacted``, or else its summary text).
    """
    out: list[Message] = [Message.system(instructions)] if instructions else []
    if isinstance(items, str):
        return [*out, Message.user(items)]
    starts = item_starts(items)
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(items)
        side = _side(items[start], start)
        blocks: list[ContentBlock] = []
        for index in range(start, end):
            blocks += _blocks(items[index], index)
        if side == "system":
            out.append(Message("system", blocks))
        else:
            out.append(Message("assistant" if side == "assistant" else "user", blocks))
    return out


def _blocks(item: Mapping[str, Any], index: int) -> list[ContentBlock]:
    kind = item.get("type", "message")
    if kind == "message":
        if item.get("role") not in ("user", "assistant", "system", "developer"):
            return [OpaqueBlock("message", dict(item), DIALECT)]
        return _parts(item.get("content"), index)
    if kind not in ("reasoning", "function_call", "function_call_output"):
        return [_opaque_item(kind, item)]
    if kind == "reasoning":
        encrypted = item.get("encrypted_content")
        if isinstance(encrypted, str) and encrypted:
            return [ThinkingBlock(encrypted, redacted=True)]
        summary = item.get("summary") or []
        if not isinstance(summary, list):
            raise ValueError(f"input item {index} (reasoning) field 'summary' must be a list")
        texts = [p.get("text") for p in summary if isinstance(p, Mapping)]
        return [ThinkingBlock("\n".join(t for t in texts if isinstance(t, str)))]
    call_id = item.get("call_id")
    if not isinstance(call_id, str):
        raise ValueError(f"input item {index} ({kind}) needs a string 'call_id'")
    if kind == "function_call":
        arguments = item.get("arguments") or "{}"
        if isinstance(item.get("name"), str) and not (
            isinstance(arguments, str) and holds_json_object(arguments)
        ):
            # arguments that are not a JSON object (a model's broken or cut JSON, which
            # the API takes back): carried as they came, paired by the call id
            return [OpaqueBlock(kind, dict(item), DIALECT, call_id)]
        return [_call(item, call_id, index)]
    return [_result(item.get("output"), call_id, index)]


def _opaque_item(kind: str, item: Mapping[str, Any]) -> OpaqueBlock:
    """An item nobody models, paired by its ``call_id`` (an approval by the request's id)."""
    if kind == "mcp_approval_request":
        pair = item.get("id")
    elif kind == "mcp_approval_response":
        pair = item.get("approval_request_id")
    else:
        pair = item.get("call_id")
    call_id = pair if isinstance(pair, str) else ""
    return OpaqueBlock(kind, dict(item), DIALECT, call_id, _answers(kind))


def _call(item: Mapping[str, Any], call_id: str, index: int) -> ToolUseBlock:
    name, arguments = item.get("name"), item.get("arguments") or "{}"
    if not isinstance(name, str):
        raise ValueError(f"input item {index} (function_call) needs a string 'name'")
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) else None
    except (ValueError, RecursionError):
        parsed = None
    if not isinstance(parsed, dict):
        raise ValueError(
            f"input item {index}: arguments of function call {call_id} ({name}) "
            "must be a string holding a JSON object"
        )
    return ToolUseBlock(call_id, name, parsed)


def _result(output: Any, call_id: str, index: int) -> ToolResultBlock:
    if output is None or isinstance(output, str):
        text = output or ""
        return ToolResultBlock(call_id, text, text.startswith(TOOL_ERROR_PREFIX))
    kinds = TextBlock | ImageBlock | OpaqueBlock
    parts = [b for b in _parts(output, index) if isinstance(b, kinds)]
    texts = [b for b in parts if isinstance(b, TextBlock)]
    is_error = bool(texts) and texts[0].text.startswith(TOOL_ERROR_PREFIX)
    if is_error and texts[0].text == TOOL_ERROR_PREFIX:  # the marker of an image-only error
        parts.remove(texts[0])
    return ToolResultBlock(call_id, parts, is_error)


def _parts(content: Any, index: int) -> list[ContentBlock]:
    """A message's ``content`` (a string or a list of parts) as content blocks."""
    if isinstance(content, str):
        return [TextBlock(content)]
    if not isinstance(content, list):
        raise ValueError(
            f"input item {index} field 'content' must be a string or a list of parts, "
            f"got {type(content).__name__}"
        )
    blocks: list[ContentBlock] = []
    for part in content:
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind in _TEXT_PARTS and isinstance(part.get("text"), str):
            blocks.append(TextBlock(part["text"]))
        elif kind == "refusal" and isinstance(part.get("refusal"), str):
            blocks.append(TextBlock(part["refusal"]))
        elif kind == "input_image" and isinstance(part.get("image_url"), str):
            match = DATA_URL.match(part["image_url"])
            if match is None:  # a remote image: carried as it came
                blocks.append(OpaqueBlock(kind, dict(part), PART_DIALECT))
            else:
                where = f"input item {index}"
                blocks.append(decode_image(match["type"], match["data"], where))
        elif isinstance(kind, str) and kind not in (*_TEXT_PARTS, "refusal"):
            blocks.append(OpaqueBlock(kind, dict(part), PART_DIALECT))
        else:
            raise ValueError(f"input item {index} has a malformed content part: {kind!r}")
    return blocks


# ---------------------------------------------------------------- to Responses


def to_responses(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """``messages`` as Responses ``input`` items.

    Thinking blocks are dropped (reasoning items are replayed only as the client sent
    them); an assistant's texts become messages with string content (no output item
    ids to invent), consecutive so they read back as one message; tool results become
    ``function_call_output`` items before the rest of their user message, with
    :data:`~contextfold.dialects.chat.TOOL_ERROR_PREFIX` in front of an error's text.
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        match message.role:
            case "system":
                whole = _item(message.content[0]) if len(message.content) == 1 else None
                if whole is not None:
                    out.append(whole)
                else:
                    content = plain_text(message)
                    out.append({"type": "message", "role": "system", "content": content})
            case "assistant":
                out += _assistant_items(message)
            case "user":
                out += _user_items(message)
    return out


def _item(block: ContentBlock) -> dict[str, Any] | None:
    """An opaque input item as it came, if ``block`` is one."""
    if isinstance(block, OpaqueBlock) and block.dialect == DIALECT:
        return dict(block.data)
    return None


def _assistant_items(message: Message) -> list[dict[str, Any]]:
    """The assistant's items in order: texts as messages (string content, one item per
    text: an assistant message of output parts is an output item, whose schema needs an
    id and a status this side cannot invent), calls, opaque items as they came."""
    out: list[dict[str, Any]] = []
    for block in message.content:
        match block:
            case TextBlock(text=text):
                out.append({"type": "message", "role": "assistant", "content": text})
            case ToolUseBlock(id=call_id, name=name, input=input_):
                arguments = json.dumps(input_, ensure_ascii=False)
                out.append(
                    {
                        "type": "function_call",
                        "call_id": call_id,
                        "name": name,
                        "arguments": arguments,
                    }
                )
            case OpaqueBlock():
                item = _item(block)
                said = {"type": "message", "role": "assistant", "content": block.placeholder()}
                out.append(item if item is not None else said)
    if not out:
        out.append({"type": "message", "role": "assistant", "content": ""})
    return out


def _user_items(message: Message) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for block in message.content:
        match block:
            case ToolResultBlock(tool_use_id=call_id, content=content, is_error=is_error):
                out.append(
                    {
                        "type": "function_call_output",
                        "call_id": call_id,
                        "output": _output(content, is_error),
                    }
                )
            case TextBlock(text=text):
                parts.append({"type": "input_text", "text": text})
            case ImageBlock():
                parts.append(_image(block))
            case OpaqueBlock(is_result=True) if block.dialect == DIALECT:
                out.append(dict(block.data))
            case OpaqueBlock():
                parts.append(_part(block))
    if parts or not out:
        simple = len(parts) == 1 and parts[0]["type"] == "input_text"
        wire: str | list[dict[str, Any]] = parts[0]["text"] if simple else parts
        out.append({"type": "message", "role": "user", "content": wire or ""})
    return out


def _output(content: str | Sequence[ContentBlock], is_error: bool) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return mark_error(content) if is_error else content
    parts: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, TextBlock):
            parts.append({"type": "input_text", "text": block.text})
        elif isinstance(block, ImageBlock):
            parts.append(_image(block))
        elif isinstance(block, OpaqueBlock):
            parts.append(_part(block))
    if is_error:
        text = next((p for p in parts if p["type"] == "input_text"), None)
        if text is None:
            parts.insert(0, {"type": "input_text", "text": TOOL_ERROR_PREFIX})
        else:
            text["text"] = mark_error(text["text"])
    return parts


def _part(block: OpaqueBlock) -> dict[str, Any]:
    """A content part as it came, or its placeholder as text."""
    if block.dialect == PART_DIALECT:
        return dict(block.data)
    return {"type": "input_text", "text": block.placeholder()}


def _image(block: ImageBlock) -> dict[str, Any]:
    data = base64.b64encode(block.data).decode("ascii")
    url = f"data:{block.media_type};base64,{data}"
    return {"type": "input_image", "image_url": url, "detail": "auto"}  # the API's default


# ---------------------------------------------------------------- the dialect


class Responses(Dialect):
    """OpenAI's Responses API: ``input`` items and ``instructions``.

    Its requests go to OpenAI only: Anthropic's rules (its thinking rule) do not
    apply to its rewrites.
    """

    name = DIALECT
    path = "/v1/responses"
    provider = "openai"
    history_key = "input"
    outside_key = "instructions"
    rules = "openai"
    history_marker = re.compile(rb'"input"\s*:\s*[\["]')
    server_state_markers = (b'"previous_response_id"', b'"conversation"')

    def read(self, items: Sequence[Any], outside: Any = None) -> list[Message]:
        return from_responses(items, outside if isinstance(outside, str) else None)

    def write(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        return to_responses(messages)

    def write_split(self, messages: Sequence[Message]) -> tuple[str | None, list[dict[str, Any]]]:
        lead = 0
        while lead < len(messages) and messages[lead].role == "system":
            lead += 1
        instructions = "\n\n".join(plain_text(m) for m in messages[:lead]) or None
        return instructions, to_responses(messages[lead:])

    def place_outside(self, body: dict[str, Any], messages: Sequence[Message]) -> bool:
        body["instructions"] = "\n\n".join(m.text for m in messages) or None
        return True

    def check_body(self, body: Mapping[str, Any]) -> None:
        """``input``, when present, is a string or a list."""
        if not isinstance(body.get("input", ""), str | list):
            raise ValueError("field 'input' must be a string or a list of items")

    def history(self, body: Mapping[str, Any]) -> tuple[str | list[Any], Any]:
        """:class:`ValueError` for ``instructions`` that is not a string."""
        instructions = body.get("instructions")
        if instructions is not None and not isinstance(instructions, str):
            raise ValueError("field 'instructions' must be a string")
        items: str | list[Any] = body.get("input", [])
        return items, instructions or None

    def fresh(self, items: Sequence[Any], index: int) -> bool:
        """An item starts afresh where its side of the conversation changes (and at
        every user and system message): consecutive assistant-side items, and
        consecutive tool outputs, form one message."""
        if index == 0:
            return True
        side = _side_of(items[index])
        return side in ("user", "system") or (
            side is not None and side != _side_of(items[index - 1])
        )

    def classify(self, item: Any) -> ItemRole:
        if not isinstance(item, Mapping):
            return ItemRole("other")
        kind = item.get("type")
        if isinstance(kind, str) and kind != "message":
            if kind == "reasoning":
                return ItemRole("assistant")
            return ItemRole("results" if _answers(kind) else "assistant", True)
        role = item.get("role")
        if role == "assistant":
            return ItemRole("assistant")
        if role != "user":
            return ItemRole("other")
        return ItemRole("turn", False, texts_of(item.get("content")))

    def server_state(self, body: Mapping[str, Any]) -> str | None:
        """With ``previous_response_id`` or ``conversation`` the upstream prepends history
        the proxy never sees, and an ``item_reference`` stands for an item only the
        upstream holds, so the proxy cannot tell what it would summarize."""
        for name in _STATE_FIELDS:
            if body.get(name) is not None:
                return (
                    f"not compacted: the request continues server-held state ({name}); the "
                    "upstream holds the earlier history, which the proxy cannot see or "
                    "compact; forwarded unchanged (send the whole history as input to have it "
                    "compacted)"
                )
        items = body.get("input")
        if isinstance(items, list) and any(
            isinstance(item, dict) and item.get("type") == "item_reference" for item in items
        ):
            return (
                "not compacted: the request refers to items the upstream holds "
                "(item_reference), which the proxy cannot see or compact; forwarded unchanged"
            )
        return None

    def input_tokens(self, payload: Any) -> int | None:
        """The response's ``input_tokens``; in a stream, the ``response.completed``
        event's response's."""
        if not isinstance(payload, dict):
            return None
        if isinstance(payload.get("response"), dict):
            payload = payload["response"]
        return usage_total(payload.get("usage"), ("input_tokens",))

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        return _openai.error_body(status, message)

    def is_overflow(self, status: int | None, error: Any, fallback: str = "") -> bool:
        return _openai.is_overflow(status, error, fallback)

    def reported_sizes(self, text: str) -> tuple[int, int] | None:
        return _openai.reported_sizes(text)

    def overflow_body(self, prompt_tokens: int, window: int) -> dict[str, Any]:
        message = (
            "Your input exceeds the context window of this model. "
            "Please adjust your input and try again."
        )
        error = {
            "message": message,
            "type": "invalid_request_error",
            "param": "input",
            "code": "context_length_exceeded",
        }
        return {"error": error}


RESPONSES: Final = Responses()
"""OpenAI's Responses API."""
