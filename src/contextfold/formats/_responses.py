"""OpenAI Responses API ``input`` item lists, both ways: the machinery behind
:func:`~contextfold.formats.from_responses` and :func:`~contextfold.formats.to_responses`.

An ``input`` list is a flat sequence of *items*; a :class:`Message` is a turn. Items
are grouped into messages by their side of the conversation:

* the assistant's side: ``reasoning`` items, ``function_call`` items and ``message``
  items of role ``assistant`` - consecutive ones form one assistant message (so a
  reasoning item is never separated from the call or answer it led to);
* tool results: consecutive ``function_call_output`` items form one user message of
  :class:`ToolResultBlock` s;
* every ``message`` item of role ``user``, ``system`` or ``developer`` is a message
  of its own (``developer`` becomes ``system``).

:func:`item_starts` gives the item index where each message begins, so a caller can
copy the original items of any message verbatim.

Items nobody models here are carried as :class:`~contextfold.blocks.OpaqueBlock` s
(dialect :data:`DIALECT`), on the side their type says: an output or an approval
answer (``*_output``, ``*_response``: ``custom_tool_call_output``,
``computer_call_output``...) with the tool results, anything else (hosted and custom
tool calls, ``compaction`` items...) with the assistant's turn. One that carries a
``call_id`` pairs with its output like a function call (an approval with the
request whose ``id`` it answers). A ``message`` item of an unknown role is a system
message holding it whole. Content parts nobody models (files, audio, images by URL
or file id) are opaque blocks of dialect :data:`PART_DIALECT`. Only malformed
items (not objects, a non-string ``type`` or ``role``, a function call without its
``call_id``) raise :class:`ValueError`.
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
from contextfold.formats._chat import TOOL_ERROR_PREFIX, holds_json_object
from contextfold.formats._messages import decode_image
from contextfold.messages import Message

__all__ = ["DIALECT", "PART_DIALECT", "from_responses", "item_starts", "to_responses"]

DIALECT: Final = "responses"
"""The :attr:`~contextfold.blocks.OpaqueBlock.dialect` of input items carried whole."""
PART_DIALECT: Final = "responses.part"
"""The :attr:`~contextfold.blocks.OpaqueBlock.dialect` of content parts carried whole."""

Side = Literal["assistant", "results", "user", "system"]

_DATA_URL: Final = re.compile(r"data:(?P<type>[\w/+.-]+);base64,(?P<data>.*)\Z", re.DOTALL)
_TEXT_PARTS: Final = frozenset({"input_text", "output_text"})


def _side(item: Any, index: int) -> Side:
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


def _answers(kind: str) -> bool:
    """Whether an item of ``kind`` answers the assistant (a tool's output, an approval)."""
    return kind.endswith(("_output", "_response"))


def item_starts(items: Sequence[Any]) -> list[int]:
    """The index in ``items`` where each message :func:`from_responses` makes begins.

    Raises the same :class:`ValueError` as :func:`from_responses` for an item it
    does not model (the content of the items is not read).
    """
    starts: list[int] = []
    previous: Side | None = None
    for index, item in enumerate(items):
        side = _side(item, index)
        if not (side == previous and side in ("assistant", "results")):
            starts.append(index)
        previous = side
    return starts


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
            match = _DATA_URL.match(part["image_url"])
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
    :data:`TOOL_ERROR_PREFIX` in front of an error's text.
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        match message.role:
            case "system":
                whole = _item(message.content[0]) if len(message.content) == 1 else None
                if whole is not None:
                    out.append(whole)
                else:
                    out.append({"type": "message", "role": "system", "content": _text(message)})
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


def _text(message: Message) -> str:
    return "\n".join(
        b.text if isinstance(b, TextBlock) else b.placeholder()
        for b in message.content
        if isinstance(b, TextBlock | OpaqueBlock)
    )


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
        return _mark_error(content) if is_error else content
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
            text["text"] = _mark_error(text["text"])
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


def _mark_error(text: str) -> str:
    return text if text.startswith(TOOL_ERROR_PREFIX) else TOOL_ERROR_PREFIX + text
